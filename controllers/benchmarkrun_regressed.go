package controllers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/conditions"
	"github.com/cassbench/cassbench/internal/history"
)

// maxBaselines bounds the history a run is judged against: the change-point test is
// quadratic in it, for each of its permutations.
const maxBaselines = 100

// judgeRegression gives a run that succeeded and names baselines its Regressed condition,
// once: the baselines are those that had measured before it, so a later run of the
// experiment never changes what this one was judged against.
func (r *BenchmarkRunReconciler) judgeRegression(ctx context.Context, run *cbv1.BenchmarkRun, status *cbv1.BenchmarkRunStatus) error {
	b := run.Spec.Baselines
	if b == nil || status.Results == nil || meta.FindStatusCondition(status.Conditions, cbv1.ConditionRegressed) != nil {
		return nil
	}
	if c := meta.FindStatusCondition(status.Conditions, cbv1.ConditionSucceeded); c == nil || c.Status != metav1.ConditionTrue {
		return nil
	}
	set := func(s metav1.ConditionStatus, reason, msg string) {
		conditions.Set(&status.Conditions, run.Generation, r.Clock.Now(), cbv1.ConditionRegressed, s, reason, msg)
	}
	sel, err := metav1.LabelSelectorAsSelector(&b.Selector)
	if err != nil {
		set(metav1.ConditionUnknown, cbv1.ReasonBaselinesUnreadable, fmt.Sprintf("spec.baselines.selector: %v", err))
		return nil
	}
	var list cbv1.BenchmarkRunList
	if err := r.List(ctx, &list, client.InNamespace(run.Namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return fmt.Errorf("listing the baselines of %s: %w", run.Name, err)
	}
	judged := run.DeepCopy()
	judged.Status = *status.DeepCopy()
	judged.Status.Phase = cbv1.PhaseSucceeded
	s, reason, msg := regressed(judged, list.Items, b.MinRuns)
	set(s, reason, msg)
	return nil
}

// regressed judges a succeeded run against the candidates for its baselines: those that
// succeeded and measured before it, the newest maxBaselines of them.
func regressed(run *cbv1.BenchmarkRun, candidates []cbv1.BenchmarkRun, minRuns int32) (metav1.ConditionStatus, string, string) {
	self, _ := history.FromRun(run, run.Name, "")
	var runs []history.Run
	for i := range candidates {
		c := &candidates[i]
		if c.UID == run.UID && c.Name == run.Name {
			continue
		}
		if h, ok := history.FromRun(c, c.Name, ""); ok && h.Time.Before(self.Time) {
			runs = append(runs, h)
		}
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Time.Before(runs[j].Time) })
	if len(runs) > maxBaselines {
		runs = runs[len(runs)-maxBaselines:]
	}
	if minRuns < 2 {
		minRuns = 2
	}
	o := history.DefaultGate
	o.MinHistory = int(minRuns)
	res, err := history.Gate(history.Series{Experiment: self.Experiment, Runs: append(runs, self)}, o)
	if err != nil {
		return metav1.ConditionUnknown, cbv1.ReasonBaselinesUnreadable, fmt.Sprintf("judging against the baselines: %v", err)
	}
	switch res.Verdict {
	case history.TooLittleHistory:
		return metav1.ConditionUnknown, cbv1.ReasonTooLittleHistory,
			fmt.Sprintf("%d baselines succeeded before this run; spec.baselines.minRuns asks for %d", len(runs), minRuns)
	case history.Regressed:
		var found []string
		for _, f := range res.Findings {
			found = append(found, f.String())
		}
		return metav1.ConditionTrue, cbv1.ReasonRegressed,
			fmt.Sprintf("regressed against %d baselines: %s", len(runs), strings.Join(found, "; "))
	}
	return metav1.ConditionFalse, cbv1.ReasonNoRegression,
		fmt.Sprintf("no figure is a significant regression against %d baselines (%s to %s)", len(runs), runs[0].Name, runs[len(runs)-1].Name)
}
