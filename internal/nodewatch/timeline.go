package nodewatch

import (
	"time"

	"github.com/cassbench/cassbench/internal/nodeproc"
	"github.com/cassbench/cassbench/internal/summary"
)

// Sample is one reading of a writer's nodes during the window: the snapshots of the nodes
// that answered, and the GC pauses the gc logs of its local nodes show since the previous
// sample.
type Sample struct {
	At    time.Time
	Snaps map[string]*Snapshot
	GC    []nodeproc.GCPauses
}

// timelineBuilder turns samples into a server timeline as they come, keeping only the last
// snapshot of each node: a node that did not answer a sample has its counts in the next one
// it answers.
type timelineBuilder struct {
	from time.Time
	tl   summary.ServerTimeline
	last map[string]*Snapshot
}

func newTimelineBuilder(from time.Time, every time.Duration, before map[string]*Snapshot) *timelineBuilder {
	b := &timelineBuilder{from: from, last: map[string]*Snapshot{},
		tl: summary.ServerTimeline{FromMillis: from.UnixMilli(), IntervalMillis: every.Milliseconds()}}
	for node, s := range before {
		b.last[node] = s
	}
	return b
}

// add folds a sample into the timeline: the highest pending tasks of a request stage on any
// node at the sample, and the compactions, flushes, hints and GC pauses since the previous one.
func (b *timelineBuilder) add(s Sample) {
	p := summary.ServerPoint{AtMillis: max(s.At.Sub(b.from).Milliseconds(), 0)}
	for node, cur := range s.Snaps {
		if cur == nil {
			continue
		}
		var peaks Peaks
		peaks.Observe(cur)
		p.Pending = max(p.Pending, peaks.Pending)
		if prev := b.last[node]; prev != nil {
			p.Compactions += compactedSince(prev, cur)
			p.Flushes += completedSince(prev, cur, "MemtableFlushWriter")
			if prev.HintsRead && cur.HintsRead {
				// A restarted node's metrics start again: that counts nothing.
				p.HintsStored += max(cur.HintsStored-prev.HintsStored, 0)
				p.HintsDelivered += max(cur.HintsDelivered-prev.HintsDelivered, 0)
			}
		}
		b.last[node] = cur
	}
	for _, gc := range s.GC {
		p.GCPauses += gc.Count
		p.GCMillis += (gc.TotalMicros + 500) / 1000
	}
	b.tl.Add(p)
}

// compactedSince is the compactions that finished between two snapshots, from the node's
// compaction history; where it was not read, CompactionExecutor's completed tasks (which
// also count the background checks that found nothing to compact).
func compactedSince(prev, cur *Snapshot) int64 {
	if prev.CompactedRead && cur.CompactedRead {
		return max(cur.Compacted-prev.Compacted, 0)
	}
	return completedSince(prev, cur, "CompactionExecutor")
}

// completedSince is the tasks a stage completed between two snapshots; a restarted node's
// counters start again, which counts nothing rather than a negative.
func completedSince(prev, cur *Snapshot, stage string) int64 {
	return max(cur.Pools[stage].Completed-prev.Pools[stage].Completed, 0)
}

// timeline is what was built, nil when no sample came.
func (b *timelineBuilder) timeline() *summary.ServerTimeline {
	if len(b.tl.Points) == 0 {
		return nil
	}
	tl := b.tl
	tl.Points = append([]summary.ServerPoint(nil), b.tl.Points...)
	return &tl
}

// Timeline builds a writer's server timeline from its nodes' snapshots at the window's start
// (before) and the samples after it, the last taken at the window's end.
func Timeline(from time.Time, every time.Duration, before map[string]*Snapshot, samples []Sample) *summary.ServerTimeline {
	b := newTimelineBuilder(from, every, before)
	for _, s := range samples {
		b.add(s)
	}
	return b.timeline()
}
