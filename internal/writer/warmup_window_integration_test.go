package writer_test

import (
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// After a warm-up the nodes are read for the window's start where nobody sends (every writer
// drained its warm-up and waits for the window's agreed start), so at RF 1 the mutations
// the nodes applied to the table over the window are exactly the writes the writers
// completed in it, however many they send at that instant. Read at the window's start while
// the writers sent, they were short by what was applied during the reading (19 of the
// kind-demo sample's 10,000 on make local-cluster).
func TestMutationsOverTheWindowAfterAWarmupAreTheWrites(t *testing.T) {
	c := cluster(t)
	s := spec("it_warmup_window", func(b *builders.BenchmarkRunBuilder) {
		b.ReplicationFactor(1).Writers(3).Concurrency(8).Rate(900).Warmup(3 * time.Second).Duration(4 * time.Second)
	})
	setUp(t, c, s)
	r := results.Merge(mustRun(t, c, s))
	if r == nil || r.Server == nil || r.Writes == nil {
		t.Fatalf("no results or server figures: %+v", r)
	}
	t.Logf("writes %d (failed %d) in %d ms; server total %+v; error %q", r.Writes.Operations, r.Writes.Failed,
		r.WindowMillis, r.Server.Total, r.Server.Errors)
	if r.Writes.Operations < 200 {
		t.Fatalf("%d writes in the window: too few to tell", r.Writes.Operations)
	}
	if int(r.Server.NodesRead) != len(c.Hosts) {
		t.Errorf("%d of %d nodes read", r.Server.NodesRead, len(c.Hosts))
	}
	if r.Writes.Failed == 0 && r.Server.Total.Mutations != r.Writes.Operations {
		t.Errorf("the nodes applied %d mutations to the table over the window; the writers completed %d writes in it at RF 1",
			r.Server.Total.Mutations, r.Writes.Operations)
	}
}
