package workload

import "math/bits"

// golden is splitmix64's increment: odd, so stepping by it visits every uint64.
const golden = 0x9e3779b97f4a7c15

// mix is the splitmix64 finaliser. It is a bijection of uint64: values built from mix(x) stay
// as distinct as x, which is what identity columns rely on.
func mix(x uint64) uint64 {
	x += golden
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// below maps a uniform hash onto [0, n) with a multiply instead of a biased, slow modulo.
func below(h, n uint64) uint64 {
	hi, _ := bits.Mul64(h, n)
	return hi
}

// unit maps a hash onto [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// between is a size uniform in [lo, hi].
func between(h uint64, lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + int(below(h, uint64(hi-lo+1)))
}

// fnv names a column's salt by its name, so reordering columns does not change their values.
func fnv(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
