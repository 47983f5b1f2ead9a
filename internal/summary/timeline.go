package summary

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// MaxPoints bounds a timeline: a writer doubles its interval rather than go past it.
const MaxPoints = 120

// Timeline counts a measured window interval by interval, from its start.
type Timeline struct {
	// IntervalMillis is the length of every point but possibly the last.
	IntervalMillis int64
	Points         []Point
}

// Point is one interval: operations that completed in it, those of them that failed, and
// the p99 of their response latency in microseconds (to about 5%: it is stored as a step of
// a geometric scale, enough to see a curve).
type Point struct {
	Ops, Errors, P99 int64
}

// p99Step is the ratio between the p99 values a point can hold.
const p99Step = 1.1

// QuantizeP99 is the value a point stores for a p99 of us microseconds.
func QuantizeP99(us float64) int64 { return dequantize(quantize(us)) }

func quantize(us float64) uint64 {
	if us < 1 {
		return 0
	}
	return uint64(math.Round(math.Log(us)/math.Log(p99Step))) + 1
}

func dequantize(q uint64) int64 {
	if q == 0 {
		return 0
	}
	return int64(math.Round(math.Pow(p99Step, float64(q-1))))
}

// Add appends a point, halving the resolution when the timeline would pass MaxPoints.
func (t *Timeline) Add(p Point) {
	t.Points = append(t.Points, p)
	if len(t.Points) > MaxPoints {
		t.halve()
	}
}

// halve merges adjacent points, doubling the interval.
func (t *Timeline) halve() {
	out := t.Points[:0]
	for i := 0; i < len(t.Points); i += 2 {
		p := t.Points[i]
		if i+1 < len(t.Points) {
			q := t.Points[i+1]
			p = Point{Ops: p.Ops + q.Ops, Errors: p.Errors + q.Errors, P99: max(p.P99, q.P99)}
		}
		out = append(out, p)
	}
	t.Points = out
	t.IntervalMillis *= 2
}

// ShrinkTo halves the resolution until at most n points are left; a nil timeline stays nil.
func (t *Timeline) ShrinkTo(n int) {
	for t != nil && len(t.Points) > n && t.IntervalMillis > 0 {
		t.halve()
	}
}

// Clone returns a deep copy; nil stays nil.
func (t *Timeline) Clone() *Timeline {
	if t == nil {
		return nil
	}
	c := *t
	c.Points = append([]Point(nil), t.Points...)
	return &c
}

type timelineJSON struct {
	IntervalMillis int64  `json:"ms"`
	Points         string `json:"p"`
}

// MarshalJSON packs the points as uvarints (operations, errors, quantized p99) in base64:
// about 5 bytes a point, where JSON numbers would take about 20.
func (t *Timeline) MarshalJSON() ([]byte, error) {
	buf := make([]byte, 0, 6*len(t.Points))
	for _, p := range t.Points {
		buf = binary.AppendUvarint(buf, uint64(p.Ops))
		buf = binary.AppendUvarint(buf, uint64(p.Errors))
		buf = binary.AppendUvarint(buf, quantize(float64(p.P99)))
	}
	return json.Marshal(timelineJSON{t.IntervalMillis, base64.RawStdEncoding.EncodeToString(buf)})
}

var errTimeline = errors.New("timeline: corrupt encoding")

// maxQuantized is the largest stored p99 step whose value fits an int64 (459, about 9e18 µs):
// the bound used to be 1000, whose value overflowed to a negative p99 (found by FuzzTimeline).
var maxQuantized = uint64(math.Log(math.MaxInt64)/math.Log(p99Step)) + 1

// UnmarshalJSON reads what MarshalJSON wrote.
func (t *Timeline) UnmarshalJSON(data []byte) error {
	var j timelineJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	out := Timeline{IntervalMillis: j.IntervalMillis}
	err := eachPacked(j.Points, 3, math.MaxInt64, func(v []uint64) error {
		if len(out.Points) == MaxPoints || v[2] > maxQuantized {
			return errTimeline
		}
		out.Points = append(out.Points, Point{Ops: int64(v[0]), Errors: int64(v[1]), P99: dequantize(v[2])})
		return nil
	})
	switch {
	case errors.Is(err, errPacked):
		return errTimeline
	case err != nil && !errors.Is(err, errTimeline):
		return fmt.Errorf("timeline: %w", err)
	case err != nil:
		return err
	}
	*t = out
	return nil
}
