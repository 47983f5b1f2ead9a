package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// pair is a point of the benchmark: requests in flight and threads.
type pair struct{ concurrency, threads int }

// writeReport writes every run, then per pair the median efficiency of each client, the
// writer's peak RSS, and the ratio of the writer's median to each other client's, with the
// ratio of every round (the clients alternate within a round, so a round's ratio compares
// runs on a node in the same state).
func writeReport(w io.Writer, rows []runRow, latteVersion string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %7s %9s %5s %10s %8s %8s %13s %13s\n", "client", "threads", "in flight", "round", "writes", "failed", "CPU-s", "writes/CPU-s", "peak RSS MiB")
	byClient := map[pair]map[string][]runRow{}
	var pairs []pair
	for _, r := range rows {
		name := r.client
		if name == "latte" {
			name = "latte " + latteVersion
		}
		fmt.Fprintf(&b, "%-16s %7d %9d %5d %10d %8d %8.2f %13.0f %13.1f\n", name, r.threads, r.concurrency, r.round, r.ok, r.failed, r.cpuSeconds, r.efficiency(), r.rssMiB())
		p := pair{r.concurrency, r.threads}
		if byClient[p] == nil {
			byClient[p] = map[string][]runRow{}
			pairs = append(pairs, p)
		}
		byClient[p][r.client] = append(byClient[p][r.client], r)
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if a.concurrency != b.concurrency {
			return a.concurrency - b.concurrency
		}
		return a.threads - b.threads
	})
	b.WriteString("\nmedians per (requests in flight, threads):\n")
	for _, p := range pairs {
		b.WriteString(medianLine(p, byClient[p]) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// medianLine is a pair's line of medians and ratios.
func medianLine(p pair, runs map[string][]runRow) string {
	line := fmt.Sprintf("  %4d in flight, %d thread(s): ", p.concurrency, p.threads)
	w := runs["cassbench"]
	if len(w) == 0 {
		return line + "cassbench: no run"
	}
	wm := median(efficiencies(w))
	line += fmt.Sprintf("cassbench %.0f writes/CPU-s, %.1f MiB", wm, peakMiB(w))
	if l := runs["latte"]; len(l) > 0 {
		lm := median(efficiencies(l))
		line += fmt.Sprintf("; latte %.0f writes/CPU-s, %.1f MiB; cassbench/latte %.2f (per round: %s)",
			lm, peakMiB(l), wm/lm, roundRatios(w, l, "%.2f"))
	}
	for _, other := range []string{"baseline", "stock"} {
		if o := runs[other]; len(o) > 0 {
			om := median(efficiencies(o))
			line += fmt.Sprintf("; %s %.0f writes/CPU-s; cassbench/%s %.3f (per round: %s)", other, om, other, wm/om, roundRatios(w, o, "%.3f"))
		}
	}
	return line
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
	byRound := map[int]runRow{}
	for _, r := range other {
		byRound[r.round] = r
	}
	var out []string
	for _, r := range w {
		if o, ok := byRound[r.round]; ok {
			out = append(out, fmt.Sprintf(format, r.efficiency()/o.efficiency()))
		}
	}
	return strings.Join(out, " ")
}
