package verdict

import (
	"fmt"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/numfmt"
	"github.com/cassbench/cassbench/internal/summary"
)

// JudgeMissed is the verdict of a capacity step that missed its objective (why says how).
// Where the step still reached its rate, Judge would answer TargetMet, which says nothing of
// the knee: the question there is what made the response time or the timeouts miss, so the
// signs alone decide, as in a step that fell short. With no sign on either side the verdict
// is Unclear, and names what each side used.
func JudgeMissed(r *cbv1.Results, sums []*summary.Summary, why string) *cbv1.Bottleneck {
	e, ok := evidenceOf(r, sums)
	if !ok {
		return nil
	}
	b := Verdict(e)
	if b.Verdict != cbv1.BottleneckTargetMet {
		return b
	}
	b = &cbv1.Bottleneck{}
	writers := writerSigns(e, b)
	cluster := clusterSigns(e, len(writers) > 0)
	reached := fmt.Sprintf("%s ops/s were reached, but %s", numfmt.Count(e.OpsPerSecond), why)
	switch {
	case len(writers) > 0 && len(cluster) == 0:
		b.Verdict, b.Evidence = cbv1.BottleneckWriters, append([]string{reached}, writers...)
	case len(cluster) > 0 && len(writers) == 0:
		b.Verdict, b.Evidence = cbv1.BottleneckCluster, append([]string{reached}, cluster...)
	case len(cluster) > 0:
		b.Verdict, b.Evidence = cbv1.BottleneckUnclear, append(append([]string{reached}, writers...), cluster...)
	default:
		b.Verdict, b.Evidence = cbv1.BottleneckUnclear, []string{reached + ", and neither side showed strain", usage(e, b)}
	}
	if len(b.Evidence) > 10 {
		b.Evidence = b.Evidence[:10]
	}
	return b
}

// usage says how much of its CPU the busiest node and the busiest writer used, where known.
func usage(e Evidence, b *cbv1.Bottleneck) string {
	node := "the nodes' CPU was not read"
	if e.Server != nil {
		if busiest, pct, _ := busiestNode(e.Server); busiest.Node != "" {
			node = fmt.Sprintf("the busiest node, %s, used %s of the %s it could use", NodeName(busiest), percent(pct), numfmt.Cores(nodeCPULimit(busiest)))
		}
	}
	// A writer (or node) that was read may have used under 1% of its CPU (a step of a few
	// operations a second): that is a reading, and says so, not "not read".
	for _, c := range e.CPU {
		if c.LimitMillicores > 0 || c.Procs > 0 {
			return fmt.Sprintf("%s; the busiest writer used %s of its CPU", node, percent(b.WriterCPUPercent))
		}
	}
	return node + "; the writers' CPU was not read"
}

// percent is a whole percentage of CPU, with a share under 1% said as such.
func percent(p int64) string {
	if p <= 0 {
		return "under 1%"
	}
	return fmt.Sprintf("%d%%", p)
}
