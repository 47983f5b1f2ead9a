package results

import (
	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// kindAccumulators merge each kind of workload.operations across writers, in the order the
// kinds first appear.
type kindAccumulators struct {
	order  []string
	byKind map[string]*kindAccumulator
}

type kindAccumulator struct {
	accumulator
	pages, applied, notApplied int64
}

func (ks *kindAccumulators) add(s *summary.Summary) {
	for _, k := range s.Kinds {
		if k == nil {
			continue
		}
		if ks.byKind == nil {
			ks.byKind = map[string]*kindAccumulator{}
		}
		a, seen := ks.byKind[k.Kind]
		if !seen {
			a = &kindAccumulator{}
			ks.byKind[k.Kind] = a
			ks.order = append(ks.order, k.Kind)
		}
		a.add(&k.Ops)
		a.pages += k.Pages
		a.applied += k.Applied
		a.notApplied += k.NotApplied
	}
}

func (ks *kindAccumulators) sketches() []cbv1.KindSketch {
	var out []cbv1.KindSketch
	for _, name := range ks.order {
		if enc := Encode(ks.byKind[name].response); enc != "" {
			out = append(out, cbv1.KindSketch{Kind: cbv1.OperationKind(name), Response: enc})
		}
	}
	return out
}

func (ks *kindAccumulators) results() []cbv1.KindResults {
	var out []cbv1.KindResults
	for _, name := range ks.order {
		a := ks.byKind[name]
		out = append(out, cbv1.KindResults{
			Kind:       cbv1.OperationKind(name),
			Operations: a.ops.OK,
			Failed:     a.ops.Failed(),
			Response:   Latency(a.response),
			Rows:       a.ops.Rows,
			Pages:      a.pages,
			Misses:     a.ops.Misses,
			Applied:    a.applied,
			NotApplied: a.notApplied,
		})
	}
	return out
}
