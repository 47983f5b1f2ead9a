package server

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/summary"
)

// Assign picks the nodes writer index of writers watches: every writers-th node from its
// index, so the nodes are shared out and each is read by exactly one writer.
func Assign(targets []Target, index, writers int32) []Target {
	var out []Target
	for i := int(index); i < len(targets) && writers > 0; i += int(writers) {
		out = append(out, targets[i])
	}
	return out
}

// Sampler reads its nodes at the window's start, every interval during it (keeping only the
// peaks), and at its end.
type Sampler struct {
	session *gocql.Session
	targets []Target
	now     func() time.Time
	from    time.Time

	mu     sync.Mutex
	before map[string]*Snapshot
	peaks  map[string]*Peaks
	errs   []string

	stop chan struct{}
	done chan struct{}
}

// Start takes the first snapshots now and samples every interval until Stop.
func Start(ctx context.Context, s *gocql.Session, targets []Target, every time.Duration, now func() time.Time) *Sampler {
	if now == nil {
		now = time.Now
	}
	sm := &Sampler{session: s, targets: targets, now: now, from: now(),
		before: map[string]*Snapshot{}, peaks: map[string]*Peaks{},
		stop: make(chan struct{}), done: make(chan struct{})}
	for _, t := range targets {
		sm.peaks[t.Node] = &Peaks{}
		snap, err := Read(ctx, s, t, sm.from)
		if err != nil {
			sm.errs = append(sm.errs, err.Error())
			continue
		}
		sm.before[t.Node] = snap
	}
	go sm.loop(ctx, every)
	return sm
}

func (sm *Sampler) loop(ctx context.Context, every time.Duration) {
	defer close(sm.done)
	if every <= 0 {
		return
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-sm.stop:
			return
		case <-tick.C:
		}
		for _, t := range sm.targets {
			snap, err := Read(ctx, sm.session, t, sm.now())
			if err != nil {
				continue // a node too busy to answer shows in the other figures
			}
			sm.mu.Lock()
			sm.peaks[t.Node].Observe(snap)
			sm.mu.Unlock()
		}
	}
}

// Stop takes the last snapshots and the window's log lines, and returns the figures of every
// node read at both ends, bounded for the summary. It returns nil when the sampler watched no
// node.
func (sm *Sampler) Stop(ctx context.Context) *summary.Server {
	close(sm.stop)
	<-sm.done
	if len(sm.targets) == 0 {
		return nil
	}
	to := sm.now()
	var nodes []summary.ServerNode
	for _, t := range sm.targets {
		before := sm.before[t.Node]
		if before == nil {
			continue
		}
		after, err := Read(ctx, sm.session, t, to)
		if err != nil {
			sm.errs = append(sm.errs, err.Error())
			continue
		}
		sm.mu.Lock()
		peaks := *sm.peaks[t.Node]
		sm.mu.Unlock()
		nodes = append(nodes, Figures(before, after, peaks, ReadLogs(ctx, sm.session, t, sm.from, to)))
	}
	out := Bounded(nodes)
	if len(sm.errs) > 0 {
		out.Error = fmt.Sprintf("reading %d of %d nodes failed: %s", len(sm.errs), len(sm.targets), strings.Join(sm.errs, "; "))
	}
	out.Bound()
	return out
}
