package report

import (
	"fmt"
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
		if d.HintsStored+d.HintsDelivered > 0 {
			w.printf("    hints: %d stored, %d delivered until the next fault or the window's end\n", d.HintsStored, d.HintsDelivered)
		}
	}
}

func millis(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() }

// disruptionBands shades each run's faults on the timeline, from their start to their end,
// labelled with what was done and how long p99 took to recover; with several runs on the
// chart, the label names the run.
func disruptionBands(runs []*cbv1.BenchmarkRun) []band {
	var out []band
	for _, run := range runs {
		r := run.Status.Results
		if r == nil {
			continue
		}
		for _, d := range r.Disruptions {
			label := d.Name
			if len(runs) > 1 {
				label = run.Name + ": " + label
			}
			out = append(out, band{from: float64(d.StartMillis) / 1000, to: float64(d.EndMillis) / 1000, label: label, note: recoveryPhrase(d)})
		}
	}
	return out
}

// recoveryPhrase is a fault's recovery in a few words, for a band's label and a table's cell.
func recoveryPhrase(d cbv1.DisruptionResult) string {
	switch {
	case d.BaselineP99Micros == 0:
		return "no interval before it"
	case d.Recovered:
		return "recovered " + millis(d.RecoveryMillis) + " after"
	}
	return "not recovered in the window"
}

// disruptionTable lists each fault with its recovery figures, as the run's text does.
func disruptionTable(ds []cbv1.DisruptionResult) (htmlTable, bool) {
	t := htmlTable{ID: "disruptions", Caption: "Disruptions inside the window",
		Head: []string{"fault", "from", "to", "errors during", "errors after", "p99 before (ms)", "p99 peak (ms)", "recovery", "over objective",
			"hints stored", "hints delivered"},
		ColClass: map[int]string{0: "text", 7: "text"}}
	if len(ds) == 0 {
		return t, false
	}
	for _, d := range ds {
		class, over := "", "-"
		if !d.Recovered || d.Errors+d.ErrorsAfter > 0 {
			class = "nonzero"
		}
		if d.ObjectiveP99Micros > 0 {
			over = fmt.Sprintf("%s of %s", millis(d.OverObjectiveMillis), Micros(d.ObjectiveP99Micros))
		}
		t.add(class, d.Name, millis(d.StartMillis), millis(d.EndMillis), fmt.Sprint(d.Errors), fmt.Sprint(d.ErrorsAfter),
			msCell(d.BaselineP99Micros), msCell(d.PeakP99Micros), recoveryPhrase(d), over, fmt.Sprint(d.HintsStored), fmt.Sprint(d.HintsDelivered))
	}
	t.Notes = append(t.Notes, "Times from the window's start. p99 over 5 s windows stepped each second; recovered means back within 10% of p99 before the fault and stable for 10 s.",
		"Hints are those the nodes stored and delivered from the fault's start until the next fault's (or the window's end), from the server evidence; 0 also where no node's hints could be read.")
	return t, true
}
