package summary

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// MaxServerPoints bounds a writer's server timeline: a writer samples its nodes about ten
// times a window (more often only on windows over 50 s), and merges adjacent samples rather
// than go past it, so the timeline stays a small, fixed share of MaxServerBytes.
const MaxServerPoints = 24

// ServerTimeline is what a writer's nodes did between its samples over the window: point i
// covers the time from the previous point's AtMillis (or the sampler's start) to its own.
type ServerTimeline struct {
	// FromMillis is the sampler's start, in Unix milliseconds on the writer's clock (the
	// summary's OffsetMillis places it on Cassandra's).
	FromMillis int64
	// IntervalMillis is the sampling interval asked for; samples slowed by a busy node end
	// later, which AtMillis records.
	IntervalMillis int64
	Points         []ServerPoint
}

// ServerPoint is one sampling interval over the writer's nodes.
type ServerPoint struct {
	// AtMillis is when the interval ended, from FromMillis.
	AtMillis int64
	// Pending is the most tasks waiting in one request stage of one node at the sample.
	Pending int64
	// Compactions and Flushes finished in the interval (CompactionExecutor and
	// MemtableFlushWriter completed tasks), summed over the nodes.
	Compactions, Flushes int64
	// GCPauses and GCMillis are the stop-the-world pauses the gc logs of the writer's local
	// nodes show in the interval (none where no node runs on the writer's machine).
	GCPauses, GCMillis int64
	// HintsStored and HintsDelivered in the interval, summed over the nodes whose hints were
	// read (internal/nodewatch, hints.go).
	HintsStored, HintsDelivered int64
}

// merge folds q, the interval after p, into p: the peak stays the highest, counts add.
func (p ServerPoint) merge(q ServerPoint) ServerPoint {
	return ServerPoint{AtMillis: q.AtMillis, Pending: max(p.Pending, q.Pending), Compactions: p.Compactions + q.Compactions,
		Flushes: p.Flushes + q.Flushes, GCPauses: p.GCPauses + q.GCPauses, GCMillis: p.GCMillis + q.GCMillis,
		HintsStored: p.HintsStored + q.HintsStored, HintsDelivered: p.HintsDelivered + q.HintsDelivered}
}

// Add appends a point, merging adjacent points when the timeline would pass MaxServerPoints.
func (t *ServerTimeline) Add(p ServerPoint) {
	t.Points = append(t.Points, p)
	t.ShrinkTo(MaxServerPoints)
}

// ShrinkTo merges adjacent points, doubling the interval, until at most n are left.
func (t *ServerTimeline) ShrinkTo(n int) {
	for t != nil && len(t.Points) > max(n, 1) {
		out := t.Points[:0]
		for i := 0; i < len(t.Points); i += 2 {
			p := t.Points[i]
			if i+1 < len(t.Points) {
				p = p.merge(t.Points[i+1])
			}
			out = append(out, p)
		}
		t.Points = out
		t.IntervalMillis *= 2
	}
}

type serverTimelineJSON struct {
	FromMillis     int64  `json:"t0"`
	IntervalMillis int64  `json:"ms"`
	Points         string `json:"p"`
	// Hints are the points' hints stored and delivered, packed as Points are, one pair a
	// point; absent when every point has none (and in the summaries of writers before them).
	Hints string `json:"h,omitempty"`
}

// serverPointFields is how many uvarints a point takes.
const serverPointFields = 6

// MarshalJSON packs the points as uvarints in base64 (time since the previous point, then
// pending, compactions, flushes, GC pauses and milliseconds): about 8 bytes a point.
func (t *ServerTimeline) MarshalJSON() ([]byte, error) {
	buf := make([]byte, 0, 8*len(t.Points))
	var at int64
	for _, p := range t.Points {
		for _, v := range [serverPointFields]int64{p.AtMillis - at, p.Pending, p.Compactions, p.Flushes, p.GCPauses, p.GCMillis} {
			buf = binary.AppendUvarint(buf, uint64(max(v, 0)))
		}
		at = max(at, p.AtMillis)
	}
	j := serverTimelineJSON{FromMillis: t.FromMillis, IntervalMillis: t.IntervalMillis, Points: base64.RawStdEncoding.EncodeToString(buf)}
	var hints []byte
	some := false
	for _, p := range t.Points {
		hints = binary.AppendUvarint(binary.AppendUvarint(hints, uint64(max(p.HintsStored, 0))), uint64(max(p.HintsDelivered, 0)))
		some = some || p.HintsStored > 0 || p.HintsDelivered > 0
	}
	if some {
		j.Hints = base64.RawStdEncoding.EncodeToString(hints)
	}
	return json.Marshal(j)
}

var errServerTimeline = errors.New("server timeline: corrupt encoding")

// UnmarshalJSON reads what MarshalJSON wrote.
func (t *ServerTimeline) UnmarshalJSON(data []byte) error {
	var j serverTimelineJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("server timeline: %w", err)
	}
	out := ServerTimeline{FromMillis: j.FromMillis, IntervalMillis: j.IntervalMillis}
	var at int64
	err := eachPacked(j.Points, serverPointFields, math.MaxInt64/2, func(u []uint64) error {
		var v [serverPointFields]int64
		for i := range v {
			v[i] = int64(u[i])
		}
		if len(out.Points) == MaxServerPoints || at > math.MaxInt64/2-v[0] {
			return errServerTimeline
		}
		at += v[0]
		out.Points = append(out.Points, ServerPoint{AtMillis: at, Pending: v[1], Compactions: v[2], Flushes: v[3], GCPauses: v[4], GCMillis: v[5]})
		return nil
	})
	switch {
	case errors.Is(err, errPacked):
		return errServerTimeline
	case err != nil && !errors.Is(err, errServerTimeline):
		return fmt.Errorf("server timeline: %w", err)
	case err != nil:
		return err
	}
	if j.Hints != "" {
		i := 0
		err := eachPacked(j.Hints, 2, math.MaxInt64/2, func(u []uint64) error {
			if i == len(out.Points) {
				return errServerTimeline
			}
			out.Points[i].HintsStored, out.Points[i].HintsDelivered = int64(u[0]), int64(u[1])
			i++
			return nil
		})
		if err != nil || i != len(out.Points) {
			return errServerTimeline
		}
	}
	*t = out
	return nil
}
