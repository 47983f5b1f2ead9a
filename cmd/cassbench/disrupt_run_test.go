package main

import (
	"context"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/disruption"
)

// played is a disruptor whose steps are recorded instead of done.
func played(t *testing.T, schedule string) (*disruptor, func() []string) {
	t.Helper()
	steps, err := disruption.Parse(schedule)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var done []string
	d := &disruptor{steps: steps, log: io.Discard, started: make(chan time.Time, 1), finished: make(chan struct{}), done: make(chan struct{})}
	d.act = func(_ context.Context, st disruption.Step) error {
		mu.Lock()
		defer mu.Unlock()
		done = append(done, st.String())
		return nil
	}
	go d.run(context.Background())
	return d, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), done...) }
}

// Every step is done in order once the window starts; a stop-node and the start-node of its
// node make one fault, a flush one of its own.
func TestDisruptorKeepsTheSchedule(t *testing.T) {
	d, done := played(t, "stop-node 2 at 0s; flush 1 at 2ms; start-node 2 at 4ms")
	d.hook()(time.Now())
	d.hook()(time.Now().Add(time.Hour)) // a second writer's start changes nothing
	<-d.done                            // the last step ran before the writers finished
	d.finish()
	if got, want := done(), []string{"stop-node 2 at 0s", "flush 1 at 2ms", "start-node 2 at 4ms"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("steps done %v, want %v", got, want)
	}
	if len(d.observed) != 2 || d.observed[0].Name != "stop-node 2 at 0s; start-node 2 at 4ms" || d.observed[1].Name != "flush 1 at 2ms" {
		t.Fatalf("faults %+v", d.observed)
	}
	// Step times come from the clock: only their order is certain.
	if o := d.observed[0]; o.End < o.Start || d.observed[1].Start < o.Start || o.End < d.observed[1].Start {
		t.Errorf("faults out of order: %+v", d.observed)
	}
	if code := d.exitCode(0); code != 0 {
		t.Errorf("exit code %d with every step done", code)
	}
}

// Writers that finish before the schedule does leave no node stopped: its start-node is done
// at once, the other steps are skipped and the run exits 1 naming them.
func TestDisruptorStartsAStoppedNodeWhenTheWritersFinishFirst(t *testing.T) {
	d, done := played(t, "stop-node 2 at 0s; flush 1 at 1h; start-node 2 at 2h")
	d.hook()(time.Now())
	for len(done()) == 0 {
		time.Sleep(time.Millisecond)
	}
	d.finish()
	if got, want := done(), []string{"stop-node 2 at 0s", "start-node 2 at 2h0m0s"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("steps done %v, want %v", got, want)
	}
	if len(d.failures) != 1 || !strings.Contains(d.failures[0], "flush 1 at 1h0m0s: skipped, the writers had finished") {
		t.Errorf("failures %v", d.failures)
	}
	if code := d.exitCode(0); code != 1 {
		t.Errorf("exit code %d with a step skipped, want 1", code)
	}
}

// Writers that never start their window leave the cluster alone.
func TestDisruptorDoesNothingWithoutAWindow(t *testing.T) {
	d, done := played(t, "stop-node 2 at 0s; start-node 2 at 1s")
	d.finish()
	if got := done(); len(got) != 0 || len(d.observed) != 0 {
		t.Errorf("without a window: steps %v, faults %v", got, d.observed)
	}
	var none *disruptor
	none.finish()
	if none.hook() != nil || none.exitCode(3) != 3 {
		t.Error("a nil disruptor must do nothing")
	}
}
