package opmetrics

import (
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// endingStages are the run's stages before it gives its datacenter back; the latest of them
// to change status ended the run (writers finished, or a stage failed), and the restore
// began then.
var endingStages = []string{cbv1.ConditionDatacenterReady, cbv1.ConditionSchemaReady, cbv1.ConditionWritersComplete}

// settledReasons are the reasons a finishing run gives the stages it stopped or never
// reached (conditions.Settle): they change at completion, so they did not end the run.
var settledReasons = map[string]bool{cbv1.ReasonStopped: true, cbv1.ReasonNotReached: true}

// Durations are how long a finished run held its datacenter (status.startTime, when it took
// it, to status.completionTime, once it gave it back) and how long it took to give it back
// (from the end of the stage that ended the run to status.completionTime). ok is false for a
// run that is not finished or never took its datacenter.
func Durations(run *cbv1.BenchmarkRun) (hold, restore time.Duration, ok bool) {
	st := run.Status
	if st.StartTime == nil || st.CompletionTime == nil || meta.FindStatusCondition(st.Conditions, cbv1.ConditionSucceeded) == nil {
		return 0, 0, false
	}
	done := st.CompletionTime.Time
	ended := st.StartTime.Time
	for _, t := range endingStages {
		c := meta.FindStatusCondition(st.Conditions, t)
		if c == nil || settledReasons[c.Reason] || c.Status == metav1.ConditionUnknown {
			continue
		}
		if at := c.LastTransitionTime.Time; at.After(ended) && !at.After(done) {
			ended = at
		}
	}
	return done.Sub(st.StartTime.Time), done.Sub(ended), true
}

// namespacedPhase is one object's namespace and phase.
type namespacedPhase struct {
	namespace string
	phase     cbv1.Phase
}

// phaseCount is how many objects of a namespace are in a phase.
type phaseCount struct {
	namespacedPhase
	n int
}

// runPhases and sweepPhases are every phase a run or a sweep can be in. Each namespace with
// objects gets a series for each, zeros included, so that a phase emptying shows as 0, not
// as a series that vanished.
var (
	runPhases = []cbv1.Phase{cbv1.PhasePending, cbv1.PhaseQueued, cbv1.PhasePreparing, cbv1.PhaseSettingUp,
		cbv1.PhaseRunning, cbv1.PhaseRestoring, cbv1.PhaseSucceeded, cbv1.PhaseFailed}
	sweepPhases = []cbv1.Phase{cbv1.PhasePending, cbv1.PhaseRunning, cbv1.PhaseSucceeded, cbv1.PhaseFailed}
)

// byPhase counts objects by namespace and phase, an unset phase counted as Pending.
func byPhase(objs []namespacedPhase, phases []cbv1.Phase) []phaseCount {
	counts := map[namespacedPhase]int{}
	namespaces := map[string]bool{}
	for _, o := range objs {
		if o.phase == "" {
			o.phase = cbv1.PhasePending
		}
		counts[o]++
		namespaces[o.namespace] = true
	}
	for ns := range namespaces {
		for _, p := range phases {
			if _, ok := counts[namespacedPhase{ns, p}]; !ok {
				counts[namespacedPhase{ns, p}] = 0
			}
		}
	}
	out := make([]phaseCount, 0, len(counts))
	for k, n := range counts {
		out = append(out, phaseCount{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].namespace != out[j].namespace {
			return out[i].namespace < out[j].namespace
		}
		return out[i].phase < out[j].phase
	})
	return out
}

func sweepsByPhase(sweeps []cbv1.BenchmarkSweep) []namespacedPhase {
	out := make([]namespacedPhase, 0, len(sweeps))
	for i := range sweeps {
		out = append(out, namespacedPhase{sweeps[i].Namespace, sweeps[i].Status.Phase})
	}
	return out
}
