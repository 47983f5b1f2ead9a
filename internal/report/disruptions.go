package report

import (
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// disruptionLines writes each fault made inside the window and its recovery figures.
func disruptionLines(w *errWriter, ds []cbv1.DisruptionResult) {
	if len(ds) == 0 {
		return
	}
	w.printf("disruptions (from the window's start; p99 over 5 s windows, an upper bound from the timeline's intervals):\n")
	for _, d := range ds {
		w.printf("  %s: %s..%s, %d errors while it lasted, %d after until recovered\n", d.Name, millis(d.StartMillis), millis(d.EndMillis), d.Errors, d.ErrorsAfter)
		switch {
		case d.BaselineP99Micros == 0:
			w.printf("    p99 peak %s; no interval before it to recover to\n", Micros(d.PeakP99Micros))
		case d.Recovered:
			w.printf("    p99 %s before, peak %s; back within 10%% and stable for 10 s %s after it ended\n",
				Micros(d.BaselineP99Micros), Micros(d.PeakP99Micros), millis(d.RecoveryMillis))
		default:
			w.printf("    p99 %s before, peak %s; not recovered (within 10%% for 10 s) before the window ended\n",
				Micros(d.BaselineP99Micros), Micros(d.PeakP99Micros))
		}
		if d.ObjectiveP99Micros > 0 {
			w.printf("    %s over the p99 objective of %s\n", millis(d.OverObjectiveMillis), Micros(d.ObjectiveP99Micros))
		}
	}
}

func millis(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() }
