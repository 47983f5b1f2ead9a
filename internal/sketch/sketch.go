// Package sketch is a mergeable latency sketch with relative accuracy, in the manner of
// DDSketch: values fall in logarithmic buckets, so any quantile is known within a fixed
// relative error, and two sketches merge exactly by adding bucket counts.
//
// A sketch can be coarsened by whole levels: level L merges 2^L adjacent level-0 buckets into
// one, so every coarsening is exact and sketches at different levels still merge (at the
// coarser one). A sketch can also collapse its lowest buckets into one floor bucket, as
// DDSketch's collapsing-lowest stores do: quantiles above the floor keep their accuracy, and
// those that fall in it are known only as upper bounds. Writers shrink their sketches only
// when their summary would not otherwise fit the 4096-byte termination message, collapsing
// the low end first and coarsening last (see summary.Encode).
//
// Why not github.com/DataDog/sketches-go itself: its quantiles agree with these on the same
// data (ddsketch_test.go checks it), but a writer's report has 4096 bytes for several
// sketches, and its encoding of a wide latency distribution is about 1.6 times the size of
// this one (1364 against 864 bytes in that test); nor can it coarsen a sketch by exact levels
// that still merge with finer ones. The library stays as the test's reference.
package sketch

import (
	"math"
)

// Accuracy is the relative accuracy of a level-0 sketch.
const Accuracy = 0.01

var (
	gamma    = (1 + Accuracy) / (1 - Accuracy)
	logGamma = math.Log(gamma)
)

// minValue is the smallest value given a bucket of its own; smaller ones count as zero.
const minValue = 1e-3

// minIndex and maxIndex bound the level-0 bucket index of any value a sketch holds: minValue
// and the largest float64 (about -346 and 35 485). Coarser levels only narrow them.
var (
	minIndex = int(math.Ceil(math.Log(minValue) / logGamma))
	maxIndex = int(math.Ceil(math.Log(math.MaxFloat64) / logGamma))
)

// maxBuckets bounds the counts a decoded sketch may hold: above maxIndex-minIndex+1 (35 832),
// so at most 512 KiB whatever the input says.
const maxBuckets = 1 << 16

// Sketch holds a distribution of non-negative values (microseconds, by convention).
// The zero value is an empty level-0 sketch.
type Sketch struct {
	level  uint8
	offset int      // bucket index of counts[0]
	counts []uint64 // dense
	zeros  uint64
	count  uint64
	sum    float64
	min    float64
	max    float64
	// floored says counts[0] is a floor: it holds every value whose bucket is at or below
	// offset, so quantiles that land in it are upper bounds.
	floored bool
}

// New returns an empty level-0 sketch.
func New() *Sketch { return &Sketch{} }

// Add records one value.
func (s *Sketch) Add(v float64) { s.AddN(v, 1) }

// AddN records a value n times.
func (s *Sketch) AddN(v float64, n uint64) {
	if n == 0 || math.IsNaN(v) {
		return
	}
	if v < 0 {
		v = 0
	}
	if s.count == 0 || v < s.min {
		s.min = v
	}
	if s.count == 0 || v > s.max {
		s.max = v
	}
	s.count += n
	s.sum += v * float64(n)
	if v < minValue {
		s.zeros += n
		return
	}
	s.addBucket(s.index(v), n)
}

func (s *Sketch) index(v float64) int {
	i := int(math.Ceil(math.Log(v) / logGamma))
	return coarsen(i, s.level)
}

// coarsen maps a level-0 bucket index to its bucket at the given level: ceil(i / 2^level).
func coarsen(i int, level uint8) int {
	if level == 0 {
		return i
	}
	w := 1 << level
	if i > 0 {
		return (i + w - 1) / w
	}
	return -((-i) / w)
}

func (s *Sketch) addBucket(i int, n uint64) {
	if s.floored && i < s.offset {
		i = s.offset
	}
	if len(s.counts) == 0 {
		s.offset = i
		s.counts = append(s.counts[:0], n)
		return
	}
	if i < s.offset {
		grow := s.offset - i
		counts := make([]uint64, len(s.counts)+grow)
		copy(counts[grow:], s.counts)
		s.counts, s.offset = counts, i
	} else if i >= s.offset+len(s.counts) {
		s.counts = append(s.counts, make([]uint64, i-s.offset-len(s.counts)+1)...)
	}
	s.counts[i-s.offset] += n
}

// Count is the number of values recorded.
func (s *Sketch) Count() uint64 { return s.count }

// Sum of the values recorded.
func (s *Sketch) Sum() float64 { return s.sum }

// Min and Max are exact.
func (s *Sketch) Min() float64 { return s.min }

// Max is the largest value recorded.
func (s *Sketch) Max() float64 { return s.max }

// Mean is exact.
func (s *Sketch) Mean() float64 {
	if s.count == 0 {
		return 0
	}
	return s.sum / float64(s.count)
}

// Level is the coarsening level; RelativeAccuracy the error bound it gives.
func (s *Sketch) Level() uint8 { return s.level }

// RelativeAccuracy of quantiles at the sketch's level.
func (s *Sketch) RelativeAccuracy() float64 {
	g := math.Pow(gamma, float64(uint64(1)<<s.level))
	return (g - 1) / (g + 1)
}

// Quantile returns the value at quantile q in [0, 1], within RelativeAccuracy of a value
// actually at that rank unless it lands in a floor (see QuantileBound). An empty sketch
// returns 0.
func (s *Sketch) Quantile(q float64) float64 {
	v, _ := s.QuantileBound(q)
	return v
}

// QuantileBound is Quantile, and tells whether the value is only an upper bound: true when
// the rank lands in a floor that collapsing made, where the value is the floor's upper edge.
func (s *Sketch) QuantileBound(q float64) (float64, bool) {
	if s.count == 0 {
		return 0, false
	}
	if q <= 0 {
		return s.min, false
	}
	if q >= 1 {
		return s.max, false
	}
	rank := uint64(q * float64(s.count-1))
	if rank < s.zeros {
		return s.min, false
	}
	seen := s.zeros
	for j, c := range s.counts {
		seen += c
		if seen > rank {
			if j == 0 && s.floored {
				return s.clamp(s.upper(s.offset)), true
			}
			return s.clamp(s.value(s.offset + j)), false
		}
	}
	return s.max, false
}

func (s *Sketch) clamp(v float64) float64 { return math.Min(math.Max(v, s.min), s.max) }

// upper is the upper edge of bucket i.
func (s *Sketch) upper(i int) float64 {
	return math.Pow(gamma, float64(i)*float64(uint64(1)<<s.level))
}

// value is the representative of a bucket: the point whose relative distance to both of the
// bucket's bounds is equal.
func (s *Sketch) value(i int) float64 {
	g := math.Pow(gamma, float64(uint64(1)<<s.level))
	return 2 * math.Pow(g, float64(i)) / (g + 1)
}

// Coarsen raises the sketch to the given level; it never lowers it.
func (s *Sketch) Coarsen(level uint8) {
	if level <= s.level {
		return
	}
	old, oldOffset, from, floored := s.counts, s.offset, s.level, s.floored
	s.counts, s.offset, s.level, s.floored = nil, 0, level, false
	if floored {
		// The floor stays the lowest bucket, even when it is empty.
		s.addBucket(coarsenFrom(oldOffset, from, level), 0)
	}
	for j, c := range old {
		if c == 0 {
			continue
		}
		// Each old bucket maps to one new bucket: both are unions of level-0 buckets.
		i := oldOffset + j
		if from == 0 {
			s.addBucket(coarsen(i, level), c)
			continue
		}
		s.addBucket(coarsenFrom(i, from, level), c)
	}
	s.floored = floored
}

// coarsenFrom maps bucket i at level `from` to its bucket at level `to`.
func coarsenFrom(i int, from, to uint8) int { return coarsen(i, to-from) }

// Merge adds other's values into s, at the coarser of the two levels.
func (s *Sketch) Merge(other *Sketch) {
	if other == nil || other.count == 0 {
		return
	}
	o := other
	if other.level < s.level {
		o = other.Clone()
		o.Coarsen(s.level)
	} else if other.level > s.level {
		s.Coarsen(other.level)
	}
	if o.floored {
		s.collapseAt(o.offset)
	}
	if s.count == 0 || o.min < s.min {
		s.min = o.min
	}
	if s.count == 0 || o.max > s.max {
		s.max = o.max
	}
	s.count += o.count
	s.sum += o.sum
	s.zeros += o.zeros
	for j, c := range o.counts {
		if c != 0 {
			s.addBucket(o.offset+j, c)
		}
	}
}

// Clone returns a deep copy; nil stays nil.
func (s *Sketch) Clone() *Sketch {
	if s == nil {
		return nil
	}
	c := *s
	c.counts = append([]uint64(nil), s.counts...)
	return &c
}

// Reset empties the sketch and returns it to level 0, keeping its memory.
func (s *Sketch) Reset() {
	*s = Sketch{counts: s.counts[:0]}
}

// Floored tells whether the lowest buckets were collapsed into a floor.
func (s *Sketch) Floored() bool { return s.floored }

// CollapseBelow collapses every bucket below the one holding quantile q into a floor, so
// that quantiles from q up keep their accuracy while the sketch shrinks.
func (s *Sketch) CollapseBelow(q float64) {
	if s.count == 0 || len(s.counts) == 0 {
		return
	}
	rank := uint64(q * float64(s.count-1))
	seen := s.zeros
	for j, c := range s.counts {
		seen += c
		if seen > rank {
			if j > 0 {
				s.collapseAt(s.offset + j - 1)
			}
			return
		}
	}
}

// collapseAt makes bucket i a floor holding every value at or below it.
func (s *Sketch) collapseAt(i int) {
	switch {
	case s.floored && i <= s.offset:
		return
	case len(s.counts) == 0 || i < s.offset:
		s.addBucket(i, 0)
		s.offset = i
	default:
		hi := i - s.offset
		if hi >= len(s.counts) {
			s.counts = append(s.counts, make([]uint64, hi-len(s.counts)+1)...)
		}
		var below uint64
		for _, c := range s.counts[:hi] {
			below += c
		}
		s.counts = s.counts[hi:]
		s.counts[0] += below
		s.offset = i
	}
	s.floored = true
}

// DiffQuantile is quantile q of the values recorded in cur since it was the sketch prev (both
// at level 0, neither floored, prev an earlier copy of cur): what a writer's timeline reads
// from two snapshots of its cumulative sketch. It returns 0 when nothing was recorded.
func DiffQuantile(cur, prev *Sketch, q float64) float64 {
	n := cur.count - prev.count
	if n == 0 {
		return 0
	}
	rank := uint64(q * float64(n-1))
	seen := cur.zeros - prev.zeros
	if rank < seen {
		return 0
	}
	for j, c := range cur.counts {
		i := cur.offset + j
		if k := i - prev.offset; k >= 0 && k < len(prev.counts) {
			c -= prev.counts[k]
		}
		seen += c
		if seen > rank {
			return cur.value(i)
		}
	}
	return cur.max
}

// Buckets calls f for the zeros (value 0) and then every non-empty bucket in ascending order,
// with the value Quantile reports for a rank in it (its representative, kept within min and
// max; a floor's upper edge) and its count: the distribution as the sketch knows it, for
// re-recording into another histogram format.
func (s *Sketch) Buckets(f func(value float64, count uint64)) {
	if s.zeros > 0 {
		f(0, s.zeros)
	}
	for j, c := range s.counts {
		if c == 0 {
			continue
		}
		if j == 0 && s.floored {
			f(s.clamp(s.upper(s.offset)), c)
			continue
		}
		f(s.clamp(s.value(s.offset+j)), c)
	}
}
