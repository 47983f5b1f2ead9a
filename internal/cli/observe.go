package cli

import (
	"context"
	"fmt"
	"os"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/podenv"
	"github.com/cassbench/cassbench/internal/replag"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/workload"
	"github.com/cassbench/cassbench/internal/writer"
)

// observer is a writer pod's replication-lag observer: a session whose local datacenter is
// the observed one (and no other, replag.Connect) reading back a sampled share of this
// writer's own acknowledged inserts. Observing from the writer's process puts the
// acknowledgement and the first sight on one clock, so the offsets' errors are the two
// measurements' only; the reads go to the observed datacenter's nodes as an observer pod's
// there would.
type observer struct {
	name string
	tap  *replag.Tap
}

// startObserver starts writer index's observer, in the datacenter of spec.datacenters it
// observes (podenv.ObservedDatacenter); nil when it observes none.
func startObserver(ctx context.Context, conn ConnFlags, spec *cbv1.BenchmarkRunSpec, index int, csv *workload.CSV) (*observer, error) {
	obsConn, name, ok, err := conn.Observed(os.Getenv(podenv.Placement), spec, index)
	if err != nil || !ok {
		return nil, err
	}
	gen, err := workload.NewGeneratorWith(spec, 0, 1, workload.Options{CSV: csv})
	if err != nil {
		return nil, err
	}
	s, err := replag.Connect(obsConn.Options())
	if err != nil {
		return nil, fmt.Errorf("observing datacenter %s: %w", name, err)
	}
	sample, limit, poll := podenv.LagSettings(spec)
	tap, err := replag.StartTap(ctx, s, gen.RowKeyCQL(), sample, poll, limit, podenv.ObserverReaders(spec.Datacenters, name))
	if err != nil {
		return nil, fmt.Errorf("observing datacenter %s: %w", name, err)
	}
	return &observer{name: name, tap: tap}, nil
}

// writerTap is what the writer feeds; nil without an observer.
func (o *observer) writerTap() *writer.LagTap {
	if o == nil {
		return nil
	}
	return o.tap.Writer
}

// finish waits for the keys still pending (at most spec.replicationLag.limit) and puts what
// the observer saw into the writer's summary, a failed writer's too.
func (o *observer) finish(ctx context.Context, sum *summary.Summary) {
	if o == nil || sum == nil {
		return
	}
	sum.Replag = o.tap.Finish(ctx).Summary(o.name)
}
