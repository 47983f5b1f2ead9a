package results

import (
	"fmt"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/verdict"
)

// TargetShare is the least share of its target an open loop must achieve to count as having
// reached it; the verdict's TargetMet uses the same.
const TargetShare = verdict.TargetShare

// TargetShortfall tells whether an open loop achieved less than TargetShare of its target,
// and says so in a sentence naming both; false for a closed loop.
func TargetShortfall(r *cbv1.Results) (string, bool) {
	if r == nil || r.Schedule == nil || r.Schedule.TargetOpsPerSecond <= 0 {
		return "", false
	}
	target := r.Schedule.TargetOpsPerSecond
	if float64(r.OpsPerSecond) >= TargetShare*float64(target) {
		return "", false
	}
	return fmt.Sprintf("achieved %d ops/s of the %d ops/s targeted (%.0f%%): %d of %d due operations were missed and "+
		"%d started more than 1 ms late; the cluster or the writers could not keep up, so latency at this rate was not measured",
		r.OpsPerSecond, target, 100*float64(r.OpsPerSecond)/float64(target), r.Schedule.Missed, r.Schedule.Due, r.Schedule.LateOver1ms), true
}
