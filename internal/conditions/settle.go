package conditions

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// inProgress is the one list of reasons that say a stage is still under way, each with the
// reason that stage ends with when its run or sweep finishes first: Stopped for work that
// had begun, NotReached for a wait before the stage could begin. A finished status keeps
// none of them: a condition frozen mid-stage ("SetupRunning: Job … is verifying settings")
// on a failed run tells a user something that is no longer happening.
var inProgress = map[string]string{
	cbv1.ReasonDatacenterNotFound:   cbv1.ReasonNotReached,
	cbv1.ReasonDatacenterNotOptedIn: cbv1.ReasonNotReached,
	cbv1.ReasonNamespaceNotAllowed:  cbv1.ReasonNotReached,
	cbv1.ReasonDatacenterBusy:       cbv1.ReasonNotReached,
	cbv1.ReasonDatacenterUpdating:   cbv1.ReasonStopped,
	cbv1.ReasonCheckingSettings:     cbv1.ReasonStopped,
	cbv1.ReasonSetupRunning:         cbv1.ReasonStopped,
	cbv1.ReasonWritersRunning:       cbv1.ReasonStopped,
	cbv1.ReasonRestoring:            cbv1.ReasonStopped,
	cbv1.ReasonStoppingJobs:         cbv1.ReasonStopped,
	cbv1.ReasonStoppingRuns:         cbv1.ReasonStopped,
}

// InProgress tells whether a condition reason says its stage is still under way.
func InProgress(reason string) bool {
	_, ok := inProgress[reason]
	return ok
}

// Settle makes every condition of a finished object tell how its stage ended. A stage under
// way when the object finished becomes Stopped and one still waiting to begin NotReached,
// each keeping what it last said; a stage of stages with no condition at all becomes
// NotReached. kind is what finished ("run", "sweep"), for the messages. Settle does nothing
// before Succeeded is set.
func Settle(conds *[]metav1.Condition, generation int64, now time.Time, kind string, stages []string) {
	done := meta.FindStatusCondition(*conds, cbv1.ConditionSucceeded)
	if done == nil {
		return
	}
	ended := fmt.Sprintf("the %s failed (%s; see condition Succeeded)", kind, done.Reason)
	if done.Status == metav1.ConditionTrue {
		ended = fmt.Sprintf("the %s ended", kind)
	}
	for _, c := range append([]metav1.Condition(nil), *conds...) {
		end, ok := inProgress[c.Reason]
		if !ok {
			continue
		}
		msg := fmt.Sprintf("stopped when %s; it was at: %s", ended, c.Message)
		if end == cbv1.ReasonNotReached {
			msg = fmt.Sprintf("not reached: %s while this stage waited: %s", ended, c.Message)
		}
		Set(conds, generation, now, c.Type, metav1.ConditionFalse, end, msg)
	}
	for _, t := range stages {
		if meta.FindStatusCondition(*conds, t) == nil {
			Set(conds, generation, now, t, metav1.ConditionFalse, cbv1.ReasonNotReached,
				fmt.Sprintf("not reached: %s before this stage began", ended))

		}
	}
}
