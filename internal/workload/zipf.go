package workload

import (
	"fmt"
	"math"
)

// zipf draws ranks with P(k) proportional to k^-s by rejection-inversion (Hörmann and
// Derflinger): O(1) per draw and no table, so it serves billions of partitions, and a draw
// for a different n costs one extra log and exp, which recency-skewed reads need.
type zipf struct {
	s   float64
	hX1 float64 // H(1.5) - h(1): the top of the inverted range
	acc float64 // draws closer than this to their rank are accepted without the full test
}

func newZipf(s float64) (*zipf, error) {
	if !(s > 0) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("zipf exponent %v must be greater than 0", s)
	}
	z := &zipf{s: s}
	z.hX1 = z.hIntegral(1.5) - 1
	z.acc = 2 - z.hIntegralInv(z.hIntegral(2.5)-z.h(2))
	return z, nil
}

// h is the unnormalised weight x^-s.
func (z *zipf) h(x float64) float64 { return math.Exp(-z.s * math.Log(x)) }

// hIntegral is an antiderivative of h, written so it stays exact as s approaches 1.
func (z *zipf) hIntegral(x float64) float64 {
	lx := math.Log(x)
	return expm1Over((1-z.s)*lx) * lx
}

func (z *zipf) hIntegralInv(y float64) float64 {
	t := y * (1 - z.s)
	if t < -1 { // rounding can step past the pole
		t = -1
	}
	return math.Exp(log1pOver(t) * y)
}

// rank draws from [0, n), 0 the most frequent. The uniforms come from h, stepped when a draw
// is rejected, so the result is a pure function of h.
func (z *zipf) rank(h, n uint64) uint64 {
	return z.rankIn(h, n, z.top(n))
}

// top is the bottom of the inverted range for n ranks, worth keeping when n is fixed.
func (z *zipf) top(n uint64) float64 { return z.hIntegral(float64(n) + 0.5) }

func (z *zipf) rankIn(h, n uint64, hN float64) uint64 {
	if n <= 1 {
		return 0
	}
	for i := uint64(0); ; i++ {
		u := hN + unit(mix(h+i*golden))*(z.hX1-hN)
		x := z.hIntegralInv(u)
		k := math.Floor(x + 0.5)
		k = math.Max(1, math.Min(k, float64(n)))
		if k-x <= z.acc || u >= z.hIntegral(k+0.5)-z.h(k) {
			return uint64(k) - 1
		}
	}
}

// expm1Over is (e^t - 1)/t, continued to 1 at t = 0.
func expm1Over(t float64) float64 {
	if math.Abs(t) > 1e-8 {
		return math.Expm1(t) / t
	}
	return 1 + t/2*(1+t/3*(1+t/4))
}

// log1pOver is log(1+t)/t, continued to 1 at t = 0.
func log1pOver(t float64) float64 {
	if math.Abs(t) > 1e-8 {
		return math.Log1p(t) / t
	}
	return 1 - t*(0.5-t*(1.0/3-t*0.25))
}
