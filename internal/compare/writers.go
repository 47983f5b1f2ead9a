package compare

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// Writers is one side's writers as their raw reports tell them: how evenly they ran, whether
// a few of them carry a difference, and whether their own CPU held them back. It is not a
// test of significance: the writers of one run share its cluster and its moment, so their
// spread is not the variation between runs, which only repeats measure (percentile's
// comment: two identical runs differed by 23% at p50).
type Writers struct {
	Side string `json:"side"`
	// Reports is how many raw reports were read; Missing, the writers whose report was not
	// stored or did not decode.
	Reports int `json:"reports"`
	Missing int `json:"missing"`
	// OpsPerSecond and P99Micros spread over the writers: each writer's own rate over its
	// window and its own p99 response latency.
	OpsPerSecond Spread `json:"opsPerSecond"`
	P99Micros    Spread `json:"p99Micros"`
	// WithTimeouts and Failed count writers.
	WithTimeouts int `json:"withTimeouts"`
	Failed       int `json:"failed"`
	// The busiest writer's CPU in millicores (and its limit, 0 for none), and the most any
	// writer's cgroup was throttled, in percent of periods.
	MaxCPUMillicores    int64 `json:"maxCPUMillicores"`
	CPULimitMillicores  int64 `json:"cpuLimitMillicores,omitempty"`
	MaxThrottledPercent int64 `json:"maxThrottledPercent"`
}

// Spread is the least, the median and the largest of the writers' figures.
type Spread struct {
	Min    int64 `json:"min"`
	Median int64 `json:"median"`
	Max    int64 `json:"max"`
}

// WritersOf reads side s's raw reports (status.writerReports with their summaries, as
// cassbench reads them back from the ConfigMaps the runs own, or from files).
func WritersOf(s Side) Writers {
	out := Writers{Side: s.Name}
	var rates, p99s []int64
	for _, run := range s.Runs {
		for _, r := range run.Status.WriterReports {
			sum, err := summary.Decode([]byte(r.Summary))
			if r.Summary == "" || err != nil {
				out.Missing++
				continue
			}
			out.Reports++
			rate, p99, timeouts := writerFigures(sum)
			rates, p99s = append(rates, rate), append(p99s, p99)
			if timeouts > 0 {
				out.WithTimeouts++
			}
			if sum.Error != "" {
				out.Failed++
			}
			if c := sum.CPU; c != nil {
				out.MaxCPUMillicores = max(out.MaxCPUMillicores, c.UsedMillicores)
				out.CPULimitMillicores = max(out.CPULimitMillicores, c.LimitMillicores)
				out.MaxThrottledPercent = max(out.MaxThrottledPercent, c.ThrottledPercent)
			}
		}
	}
	out.OpsPerSecond, out.P99Micros = spreadOf(rates), spreadOf(p99s)
	return out
}

// writerFigures are a writer's successful operations per second over its own window, its p99
// response latency over every operation, and its operations that timed out.
func writerFigures(s *summary.Summary) (rate, p99, timeouts int64) {
	var ok int64
	var lat *sketch.Sketch
	for _, o := range s.AllOps() {
		ok += o.OK
		timeouts += o.Timeouts()
		if o.Response != nil {
			if lat == nil {
				lat = sketch.New()
			}
			lat.Merge(o.Response)
		}
	}
	span := float64(s.SpanMicros) / 1e6
	if span <= 0 {
		span = float64(s.End-s.Start) / 1e3
	}
	if s.Measured() && span > 0 {
		rate = int64(math.Round(float64(ok) / span))
	}
	if lat != nil && lat.Count() > 0 {
		p99 = int64(math.Round(lat.Quantile(0.99)))
	}
	return rate, p99, timeouts
}

func spreadOf(xs []int64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return Spread{Min: xs[0], Median: xs[len(xs)/2], Max: xs[len(xs)-1]}
}

// WritersText renders each side's writers, a line each.
func WritersText(w io.Writer, ws []Writers) error {
	for _, s := range ws {
		if _, err := fmt.Fprintln(w, writersLine(s)); err != nil {
			return err
		}
	}
	return nil
}

func writersLine(s Writers) string {
	if s.Reports == 0 {
		return fmt.Sprintf("writers of %s: no raw report (%d writers without one)", s.Side, s.Missing)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "writers of %s (%d raw reports", s.Side, s.Reports)
	if s.Missing > 0 {
		fmt.Fprintf(&b, ", %d missing", s.Missing)
	}
	fmt.Fprintf(&b, "): ops/s each %d to %d (median %d); p99 each %dus to %dus (median %dus); %d with timeouts, %d failed; CPU up to %d millicores",
		s.OpsPerSecond.Min, s.OpsPerSecond.Max, s.OpsPerSecond.Median, s.P99Micros.Min, s.P99Micros.Max, s.P99Micros.Median,
		s.WithTimeouts, s.Failed, s.MaxCPUMillicores)
	if s.CPULimitMillicores > 0 {
		b.WriteString(" of " + strconv.FormatInt(s.CPULimitMillicores, 10))
	}
	fmt.Fprintf(&b, ", throttled up to %d%%", s.MaxThrottledPercent)
	return b.String()
}
