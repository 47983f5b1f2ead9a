package writer_test

import (
	"context"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/writer"
)

// A writer whose peers never arrive gives up at the barrier timeout and says how many it saw.
func TestBarrierTimeout(t *testing.T) {
	c := cluster(t)
	s := spec("it_barrier", nil)
	setUp(t, c, s)
	sum, err := writer.Run(context.Background(), writer.Config{
		Spec: s, Conn: connOptions(c), RunID: "lonely", Index: 0, Writers: 3, BarrierTimeout: 2 * time.Second,
	})
	want := "start barrier: saw 1 of 3 writers after 2s"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if sum.Error != want {
		t.Errorf("summary error %q, want %q", sum.Error, want)
	}
}
