package writer

import (
	"math/rand/v2"
	"time"
)

// Backoff spaces retries exponentially with jitter so that writers that failed together do
// not retry together.
type Backoff struct {
	Base time.Duration
	Max  time.Duration
}

// DefaultBackoff starts short: most retried errors are overloads and brief unavailability.
var DefaultBackoff = Backoff{Base: 20 * time.Millisecond, Max: 2 * time.Second}

// Delay before retry number attempt (0 for the first retry): a uniform pick in [d/2, d]
// where d = min(Max, Base*2^attempt).
func (b Backoff) Delay(attempt int, r *rand.Rand) time.Duration {
	d := b.Max
	if attempt < 30 {
		if e := b.Base << attempt; e > 0 && e < b.Max {
			d = e
		}
	}
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + time.Duration(r.Int64N(int64(d-half)+1))
}
