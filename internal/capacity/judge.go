package capacity

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Objective is what a step must meet.
type Objective struct {
	// P99 and P999 bound the response time (from the intended start); P999 zero: unbounded.
	P99, P999 time.Duration
	// TimeoutsPerMillion bounds the operations that ended in a timeout per million.
	TimeoutsPerMillion int64
	// MaxMissedPerMillion bounds the open loop's starts missed or left due per million: a
	// step whose writers could not send at the rate did not measure that rate.
	MaxMissedPerMillion int64
}

// Figures are one step's merged results.
type Figures struct {
	// Due is the operations the step's timetable had; Missed those never sent.
	Due, Missed int64
	// Operations completed, and those that ended in a timeout.
	Operations, Timeouts int64
	P99, P999            time.Duration
}

// Judge says whether a step met the objective and, when it did not, what it missed first.
func Judge(o Objective, f Figures) (bool, string) {
	var missed []string
	if f.Operations == 0 {
		return false, "no operation completed"
	}
	if f.P99 > o.P99 {
		missed = append(missed, fmt.Sprintf("p99 %s over %s", f.P99, o.P99))
	}
	if o.P999 > 0 && f.P999 > o.P999 {
		missed = append(missed, fmt.Sprintf("p99.9 %s over %s", f.P999, o.P999))
	}
	if perMillion(f.Timeouts, f.Operations) > o.TimeoutsPerMillion {
		missed = append(missed, fmt.Sprintf("%d timeouts in %d operations, over %d per million", f.Timeouts, f.Operations, o.TimeoutsPerMillion))
	}
	if f.Due > 0 && perMillion(f.Missed, f.Due) > o.MaxMissedPerMillion {
		missed = append(missed, fmt.Sprintf("the writers missed %d of %d starts", f.Missed, f.Due))
	}
	return len(missed) == 0, strings.Join(missed, "; ")
}

// perMillion is n per million of of, rounded up so that one over a bound is over it.
func perMillion(n, of int64) int64 {
	if of <= 0 {
		return 0
	}
	return int64(math.Ceil(float64(n) * 1e6 / float64(of)))
}

// Spread is how well a step knows its p99: the half-width of the 95% confidence interval of
// the mean of the p99s of the step's intervals, relative to that mean. Intervals are taken as
// independent samples (Student's t); with fewer than two it is +Inf.
func Spread(p99s []time.Duration) float64 {
	n := len(p99s)
	if n < 2 {
		return math.Inf(1)
	}
	var sum float64
	for _, p := range p99s {
		sum += float64(p)
	}
	mean := sum / float64(n)
	if mean <= 0 {
		return math.Inf(1)
	}
	var ss float64
	for _, p := range p99s {
		d := float64(p) - mean
		ss += d * d
	}
	sd := math.Sqrt(ss / float64(n-1))
	return tQuantile975(n-1) * sd / math.Sqrt(float64(n)) / mean
}

// t975 is Student's t at 0.975 for 1..30 degrees of freedom (any statistics table); past 30
// the normal 1.96 is within 2%.
var t975 = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

func tQuantile975(df int) float64 {
	if df >= 1 && df <= len(t975) {
		return t975[df-1]
	}
	return 1.96
}
