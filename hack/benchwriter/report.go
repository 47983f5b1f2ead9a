package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// pair is a point of the benchmark: requests in flight, threads, and the open loop's rate
// (0 in a closed loop).
type pair struct{ concurrency, threads, rate int }

// writeReport writes every run, then per pair the median efficiency of each client, the
// writer's peak RSS, and the ratio of the writer's median to each other client's, with the
// ratio of every round (the clients alternate within a round, so a round's ratio compares
// runs on a node in the same state).
func writeReport(w io.Writer, rows []runRow, latteVersion string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %7s %9s %7s %5s %10s %8s %8s %13s %13s %6s %11s\n", "client", "threads", "in flight", "rate", "round", "writes", "failed", "CPU-s", "writes/CPU-s", "peak RSS MiB", "load", "lag p50 µs")
	byClient := map[pair]map[string][]runRow{}
	var pairs []pair
	for _, r := range rows {
		name := r.client
		if name == "latte" {
			name = "latte " + latteVersion
		}
		fmt.Fprintf(&b, "%-16s %7d %9d %7s %5d %10d %8d %8.2f %13.0f %13.1f %6s %11s\n", name, r.threads, r.concurrency, rateText(r.rate), r.round, r.ok, r.failed,
			r.cpuSeconds, r.efficiency(), r.rssMiB(), orDash(r.load, "%.1f"), orDash(r.lagMicros, "%.0f"))
		p := pair{r.concurrency, r.threads, r.rate}
		if byClient[p] == nil {
			byClient[p] = map[string][]runRow{}
			pairs = append(pairs, p)
		}
		byClient[p][r.client] = append(byClient[p][r.client], r)
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if a.rate != b.rate {
			return a.rate - b.rate
		}
		if a.concurrency != b.concurrency {
			return a.concurrency - b.concurrency
		}
		return a.threads - b.threads
	})
	b.WriteString("\nmedians per (requests in flight, threads, rate):\n")
	for _, p := range pairs {
		b.WriteString(medianLine(p, byClient[p]) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// medianLine is a pair's line of medians and ratios.
func medianLine(p pair, runs map[string][]runRow) string {
	line := fmt.Sprintf("  %4d in flight, %d thread(s): ", p.concurrency, p.threads)
	if p.rate > 0 {
		line = fmt.Sprintf("  %4d in flight at %d ops/s, %d thread(s): ", p.concurrency, p.rate, p.threads)
	}
	w := runs["cassbench"]
	if len(w) == 0 {
		return line + "cassbench: no run"
	}
	wm := median(efficiencies(w))
	line += fmt.Sprintf("cassbench %.0f writes/CPU-s, %.1f MiB", wm, peakMiB(w))
	if lag := known(w, func(r runRow) float64 { return r.lagMicros }); len(lag) > 0 {
		line += fmt.Sprintf(", schedule lag p50 %.0f µs", median(lag))
	}
	if l := runs["latte"]; len(l) > 0 {
		lm := median(efficiencies(l))
		ratios := roundRatioValues(w, l)
		line += fmt.Sprintf("; latte %.0f writes/CPU-s, %.1f MiB; cassbench/latte %.2f (per round: %s; median %.2f, range %.2f–%.2f)",
			lm, peakMiB(l), wm/lm, roundRatios(w, l, "%.2f"), median(ratios), slices.Min(append(ratios, math.Inf(1))), slices.Max(append(ratios, math.Inf(-1))))
	}
	for _, other := range []string{"baseline", "stock"} {
		if o := runs[other]; len(o) > 0 {
			om := median(efficiencies(o))
			line += fmt.Sprintf("; %s %.0f writes/CPU-s; cassbench/%s %.3f (per round: %s)", other, om, other, wm/om, roundRatios(w, o, "%.3f"))
		}
	}
	var all []runRow
	for _, rs := range runs {
		all = append(all, rs...)
	}
	if load := known(all, func(r runRow) float64 { return r.load }); len(load) > 0 {
		line += fmt.Sprintf("; load average %.1f–%.1f (median %.1f)", slices.Min(load), slices.Max(load), median(load))
	}
	return line
}

// rateText is a run's rate in the table: "-" for a closed loop.
func rateText(rate int) string {
	if rate == 0 {
		return "-"
	}
	return fmt.Sprint(rate)
}

// known returns f of each run where it is known (not NaN).
func known(rs []runRow, f func(runRow) float64) []float64 {
	var out []float64
	for _, r := range rs {
		if v := f(r); !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

func efficiencies(rs []runRow) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.efficiency()
	}
	return out
}

func peakMiB(rs []runRow) float64 {
	var m float64
	for _, r := range rs {
		m = max(m, r.rssMiB())
	}
	return m
}

// roundRatios are the writer's efficiency over the other client's, round by round, for the
// rounds both ran.
func roundRatios(w, other []runRow, format string) string {
	var out []string
	for _, v := range roundRatioValues(w, other) {
		out = append(out, fmt.Sprintf(format, v))
	}
	return strings.Join(out, " ")
}

// roundRatioValues are roundRatios' ratios as numbers, in the writer's order of rounds.
func roundRatioValues(w, other []runRow) []float64 {
	byRound := map[int]runRow{}
	for _, r := range other {
		byRound[r.round] = r
	}
	var out []float64
	for _, r := range w {
		if o, ok := byRound[r.round]; ok {
			out = append(out, r.efficiency()/o.efficiency())
		}
	}
	return out
}
