package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/disruption"
	"github.com/cassbench/cassbench/internal/localcassandra"
)

// nodeTimeout bounds starting a stopped node again (CQL and the ring), as hack/cassandra.sh's
// default does.
const nodeTimeout = 180 * time.Second

// disruptor keeps a schedule on the local cluster once the window starts: each step at its
// time from the window's start (later when the step before it took longer), one at a time.
// A node it stopped is always started again, at once when the writers finished first.
type disruptor struct {
	cluster         *localcassandra.Cluster
	steps           []disruption.Step
	keyspace, table string
	log             io.Writer
	// act does a step; do, which drives the cluster, unless a test plays it.
	act func(context.Context, disruption.Step) error

	once     sync.Once
	started  chan time.Time
	finished chan struct{} // closed when the writers are done
	done     chan struct{} // closed when every step ran or was skipped

	mu       sync.Mutex
	observed []disruption.Observed
	failures []string
}

func newDisruptor(ctx context.Context, layout localcassandra.Layout, steps []disruption.Step, keyspace, table string, log io.Writer) *disruptor {
	c := &localcassandra.Cluster{Layout: layout, Log: log}
	d := &disruptor{cluster: c, steps: steps, keyspace: keyspace, table: table, log: log,
		started: make(chan time.Time, 1), finished: make(chan struct{}), done: make(chan struct{})}
	d.act = d.do
	go d.run(ctx)
	return d
}

// hook is the writers' Measuring hook: the first writer to start its window starts the
// schedule. It is nil on a nil disruptor, so the writers are told nothing.
func (d *disruptor) hook() func(time.Time) {
	if d == nil {
		return nil
	}
	return func(start time.Time) { d.once.Do(func() { d.started <- start }) }
}

// finish tells the disruptor the writers are done and waits for it: a stopped node is
// started again before the run reports.
func (d *disruptor) finish() {
	if d == nil {
		return
	}
	close(d.finished)
	<-d.done
}

// filler adds the recovery figures to the merged results (see fill).
func (d *disruptor) filler(objective time.Duration) func(*cbv1.Results) {
	return func(res *cbv1.Results) { d.fill(res, objective) }
}

// exitCode is code, or 1 when a step failed: the figures then measure less than was asked.
func (d *disruptor) exitCode(code int) int {
	if d == nil {
		return code
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.failures) > 0 {
		fmt.Fprintf(d.log, "cassbench run: --disrupt: %d step(s) failed or were skipped: %s\n", len(d.failures), strings.Join(d.failures, "; "))
		return max(code, 1)
	}
	return code
}

func (d *disruptor) run(ctx context.Context) {
	defer close(d.done)
	var start time.Time
	select {
	case start = <-d.started:
	case <-d.finished:
		return // no window: nothing was disrupted
	}
	down := map[int]bool{}
	var open []int // indexes into observed of faults not ended
	over := false
	for _, st := range d.steps {
		if !over {
			over = d.wait(ctx, start.Add(st.At))
		}
		if over && st.Kind != disruption.StartNode {
			d.fail("%s: skipped, the writers had finished", st)
			continue
		}
		if over && !down[st.Node] {
			continue
		}
		at := time.Since(start)
		err := d.act(ctx, st)
		end := time.Since(start)
		if err != nil {
			d.fail("%s: %v", st, err)
		}
		d.record(st, at, end, down, &open)
	}
}

// wait sleeps until t; true when the writers finished (or ctx ended) first.
func (d *disruptor) wait(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return false
	case <-d.finished:
		return true
	case <-ctx.Done():
		return true
	}
}

func (d *disruptor) do(ctx context.Context, st disruption.Step) error {
	fmt.Fprintf(d.log, "disrupt: %s\n", st)
	switch st.Kind {
	case disruption.StopNode:
		// Force: this run uses the cluster itself, and so may a test holding it shared.
		return d.cluster.Stop(ctx, localcassandra.Options{Node: st.Node, Force: true})
	case disruption.StartNode:
		// A context of its own: a node left down would spoil the next run.
		return d.cluster.Restart(context.WithoutCancel(ctx), localcassandra.Options{Node: st.Node, Force: true, Timeout: nodeTimeout})
	default:
		var out strings.Builder
		if err := d.cluster.Nodetool(ctx, st.Node, &out, &out, string(st.Kind), d.keyspace, d.table); err != nil {
			return fmt.Errorf("nodetool %s: %w: %s", st.Kind, err, strings.TrimSpace(out.String()))
		}
		return nil
	}
}

// record notes a step's times: a stop-node opens a fault that its start-node closes (once the
// node serves CQL again); a flush or compact lasts until its command returned.
func (d *disruptor) record(st disruption.Step, at, end time.Duration, down map[int]bool, open *[]int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch st.Kind {
	case disruption.StopNode:
		down[st.Node] = true
		*open = append(*open, len(d.observed))
		d.observed = append(d.observed, disruption.Observed{Name: st.String(), Start: at, End: end, Node: st.Node})
	case disruption.StartNode:
		delete(down, st.Node)
		for k, i := range *open {
			if d.observed[i].Node == st.Node {
				d.observed[i].End = end
				d.observed[i].Name += "; " + st.String()
				*open = append((*open)[:k], (*open)[k+1:]...)
				break
			}
		}
	default:
		d.observed = append(d.observed, disruption.Observed{Name: st.String(), Start: at, End: end, Node: st.Node})
	}
}

func (d *disruptor) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(d.log, "disrupt: %s\n", msg)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.failures = append(d.failures, msg)
}

// fill adds the recovery figures to res. The schedule counted from the writers' planned
// start, the timeline's origin (the first writer's first send); the figures give the times
// from the measured window's start, startSpreadMillis later.
func (d *disruptor) fill(res *cbv1.Results, objective time.Duration) {
	if d == nil || res == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	spread := time.Duration(res.StartSpreadMillis) * time.Millisecond
	obs := make([]disruption.Observed, len(d.observed))
	for i, o := range d.observed {
		o.Start -= spread
		o.End -= spread
		obs[i] = o
	}
	var server *cbv1.ServerTimeline
	if res.Server != nil {
		server = res.Server.Timeline
	}
	res.Disruptions = disruption.Figures(res.Timeline, server, spread, objective.Microseconds(), obs)
}
