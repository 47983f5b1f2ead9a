package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/numfmt"
)

// card is one figure at a glance. Raw is the status field's value exactly as stored, so a
// reader (and the browser test) can hold the card against `kubectl get -o yaml`; Field
// names that field.
type card struct {
	Metric, Label, Value, Note string
	Raw, Field                 string
	// Class colours the card: "bad" when the figure alone is a finding (timeouts, a verdict
	// against the cluster), "warn" for a target missed.
	Class string
}

// runCards are the figures a review starts from: throughput against the target, the tail
// of each kind of operation, the timeout ratios and the bottleneck verdict.
func runCards(run *cbv1.BenchmarkRun) []card {
	r := run.Status.Results
	if r == nil {
		return nil
	}
	ops := card{Metric: "opsPerSecond", Field: "results.opsPerSecond", Label: "achieved ops/s",
		Value: numfmt.Count(r.OpsPerSecond), Raw: strconv.FormatInt(r.OpsPerSecond, 10),
		Note: fmt.Sprintf("%s operations in %s", numfmt.Count(r.Operations), seconds(r.WindowMillis))}
	if sc := r.Schedule; sc != nil && sc.TargetOpsPerSecond > 0 {
		pct := 100 * float64(r.OpsPerSecond) / float64(sc.TargetOpsPerSecond)
		ops.Note = fmt.Sprintf("of %s targeted (%.1f%%)", numfmt.Count(sc.TargetOpsPerSecond), pct)
		if pct < 99 {
			ops.Class = "warn"
		}
	}
	cards := []card{ops}
	for _, k := range []struct {
		name, field string
		ops         *cbv1.OperationResults
	}{{"writes", "writes", r.Writes}, {"reads", "reads", r.Reads}} {
		if k.ops == nil {
			continue
		}
		l := k.ops.Response
		cards = append(cards,
			latencyCard("p99", k.name, k.field+".response.p99", l, l.P99),
			latencyCard("p999", k.name, k.field+".response.p999", l, l.P999))
	}
	cards = append(cards,
		ratioCard("timeoutsPerAttempt", "timeouts per attempt", r.TimeoutsPerAttempt,
			fmt.Sprintf("of %s attempts; %s retries", numfmt.Count(r.Attempts), numfmt.Count(r.Retries))),
		ratioCard("timeoutsPerOperation", "timeouts per operation", r.TimeoutsPerOperation, "what the application saw, after retries"))
	if b := r.Bottleneck; b != nil {
		c := card{Metric: "bottleneck", Field: "results.bottleneck.verdict", Label: "bottleneck",
			Value: string(b.Verdict), Raw: string(b.Verdict), Note: "no evidence recorded"}
		if len(b.Evidence) > 0 {
			c.Note = b.Evidence[0]
		}
		if b.Verdict == cbv1.BottleneckWriters {
			c.Class = "warn"
		}
		cards = append(cards, c)
	}
	return cards
}

func latencyCard(p, kind, field string, l cbv1.Latency, v int64) card {
	label := map[string]string{"p99": "p99", "p999": "p99.9"}[p]
	c := card{Metric: kind + "." + p, Field: "results." + field, Label: label + " " + kind + " response",
		Value: Micros(v), Raw: strconv.FormatInt(v, 10), Note: "to " + Accuracy(l) + " (relative accuracy)"}
	if l.RelativeAccuracy == "" {
		c.Note = "accuracy not recorded"
	}
	return c
}

// ratioCard shows a decimal ratio as a percentage with the status string as Raw.
func ratioCard(metric, label, ratio, note string) card {
	c := card{Metric: metric, Field: "results." + metric, Label: label, Raw: ratio, Value: "-", Note: note}
	f, err := strconv.ParseFloat(ratio, 64)
	if err != nil {
		return c
	}
	c.Value = percent(f)
	if f > 0.001 {
		c.Class = "bad"
	}
	return c
}

// percent renders a ratio as a percentage with two significant digits, small ones included:
// 0.000001 is 0.0001%, not 0.00%.
func percent(f float64) string {
	if f == 0 {
		return "0%"
	}
	v := f * 100
	digits := max(0, 1-int(math.Floor(math.Log10(v))))
	s := strconv.FormatFloat(v, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + "%"
}

func seconds(millis int64) string {
	return strconv.FormatFloat(float64(millis)/1000, 'f', -1, 64) + " s"
}

// sweepCards are a sweep's figures at a glance: its best point's throughput and tail, and
// how many points succeeded.
func sweepCards(sw *cbv1.BenchmarkSweep) []card {
	st := sw.Status
	pts := card{Metric: "points", Field: "progress", Label: "points succeeded", Raw: st.Progress,
		Value: fmt.Sprintf("%d of %d", st.Completed-st.Failed, st.Points), Note: orDash(st.Progress)}
	if st.Failed > 0 {
		pts.Class = "warn"
	}
	cards := []card{}
	for i, p := range st.Table {
		if st.Best == nil || p.Point != st.Best.Point || p.Succeeded == 0 {
			continue
		}
		field := fmt.Sprintf("table[%d].", i)
		note := fmt.Sprintf("point %d: %s", p.Point, strings.Join(p.Values, ", "))
		cards = append(cards,
			card{Metric: "best.opsPerSecond", Field: field + "opsPerSecond", Label: "best ops/s (by " + string(st.Best.By) + ")",
				Value: numfmt.Count(p.OpsPerSecond), Raw: strconv.FormatInt(p.OpsPerSecond, 10), Note: note},
			card{Metric: "best.p99", Field: field + "p99", Label: "p99 at the best point",
				Value: Micros(p.P99), Raw: strconv.FormatInt(p.P99, 10), Note: fmt.Sprintf("%s to %s over %d runs", Micros(p.P99Min), Micros(p.P99Max), p.Succeeded)})
	}
	return append(cards, pts)
}
