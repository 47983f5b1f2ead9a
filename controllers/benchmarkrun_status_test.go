package controllers

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func runWith(conds ...metav1.Condition) *cbv1.BenchmarkRun {
	return &cbv1.BenchmarkRun{Status: cbv1.BenchmarkRunStatus{Conditions: conds}}
}

func c(t, reason string, s metav1.ConditionStatus) metav1.Condition {
	return metav1.Condition{Type: t, Reason: reason, Status: s}
}

func TestPhaseAndOutcome(t *testing.T) {
	f, tr := metav1.ConditionFalse, metav1.ConditionTrue
	cases := map[string]struct {
		run     *cbv1.BenchmarkRun
		phase   cbv1.Phase
		outcome string // "" when the run still has work to do
	}{
		"new":             {run: runWith(), phase: cbv1.PhasePending},
		"no datacenter":   {run: runWith(c(cbv1.ConditionDatacenterReady, cbv1.ReasonDatacenterNotFound, f)), phase: cbv1.PhasePending},
		"not opted in":    {run: runWith(c(cbv1.ConditionDatacenterReady, cbv1.ReasonDatacenterNotOptedIn, f)), phase: cbv1.PhasePending},
		"queued":          {run: runWith(c(cbv1.ConditionDatacenterReady, cbv1.ReasonDatacenterBusy, f)), phase: cbv1.PhaseQueued},
		"checking":        {run: runWith(c(cbv1.ConditionDatacenterReady, cbv1.ReasonCheckingSettings, f)), phase: cbv1.PhasePreparing},
		"rolling":         {run: runWith(c(cbv1.ConditionDatacenterReady, cbv1.ReasonDatacenterUpdating, f)), phase: cbv1.PhasePreparing},
		"setting up":      {run: runWith(c(cbv1.ConditionDatacenterReady, cbv1.ReasonDatacenterReady, tr), c(cbv1.ConditionSchemaReady, cbv1.ReasonSetupRunning, f)), phase: cbv1.PhaseSettingUp},
		"running":         {run: runWith(c(cbv1.ConditionSchemaReady, cbv1.ReasonSetupSucceeded, tr), c(cbv1.ConditionWritersComplete, cbv1.ReasonWritersRunning, f)), phase: cbv1.PhaseRunning},
		"writers done":    {run: runWith(c(cbv1.ConditionWritersComplete, cbv1.ReasonWritersSucceeded, tr)), phase: cbv1.PhaseRestoring, outcome: cbv1.ReasonSucceeded},
		"writer failed":   {run: runWith(c(cbv1.ConditionWritersComplete, cbv1.ReasonWriterFailed, f)), phase: cbv1.PhaseRestoring, outcome: cbv1.ReasonWriterFailed},
		"typo":            {run: runWith(c(cbv1.ConditionDatacenterReady, cbv1.ReasonSettingsInvalid, f)), phase: cbv1.PhaseRestoring, outcome: cbv1.ReasonSettingsInvalid},
		"setup failed":    {run: runWith(c(cbv1.ConditionSchemaReady, cbv1.ReasonSetupFailed, f)), phase: cbv1.PhaseRestoring, outcome: cbv1.ReasonSetupFailed},
		"deadline":        {run: runWith(c(cbv1.ConditionDatacenterReady, cbv1.ReasonPrepareDeadlineExceeded, f)), phase: cbv1.PhaseRestoring, outcome: cbv1.ReasonPrepareDeadlineExceeded},
		"succeeded":       {run: runWith(c(cbv1.ConditionWritersComplete, cbv1.ReasonWritersSucceeded, tr), c(cbv1.ConditionSucceeded, cbv1.ReasonSucceeded, tr)), phase: cbv1.PhaseSucceeded, outcome: cbv1.ReasonSucceeded},
		"failed":          {run: runWith(c(cbv1.ConditionSchemaReady, cbv1.ReasonSetupFailed, f), c(cbv1.ConditionSucceeded, cbv1.ReasonSetupFailed, f)), phase: cbv1.PhaseFailed, outcome: cbv1.ReasonSetupFailed},
		"restoring begun": {run: runWith(c(cbv1.ConditionDatacenterRestored, cbv1.ReasonRestoring, f)), phase: cbv1.PhaseRestoring},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := phase(tc.run); got != tc.phase {
				t.Errorf("phase %s, want %s", got, tc.phase)
			}
			o := pendingOutcome(tc.run)
			got := ""
			if o != nil {
				got = o.reason
			}
			if got != tc.outcome {
				t.Errorf("outcome %q, want %q", got, tc.outcome)
			}
		})
	}
}

func TestSucceededNeverFlips(t *testing.T) {
	run := runWith()
	if !setCondition(run, time.Now(), cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonWriterFailed, "writer 1 failed") {
		t.Fatal("first Succeeded not reported as a change")
	}
	if setCondition(run, time.Now(), cbv1.ConditionSucceeded, metav1.ConditionTrue, cbv1.ReasonSucceeded, "fine") {
		t.Error("Succeeded flipped")
	}
	if c := meta.FindStatusCondition(run.Status.Conditions, cbv1.ConditionSucceeded); c.Status != metav1.ConditionFalse {
		t.Errorf("Succeeded is %s", c.Status)
	}
	if setCondition(run, time.Now(), cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWritersRunning, "1 of 3") != true ||
		setCondition(run, time.Now(), cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWritersRunning, "2 of 3") != false {
		t.Error("a message-only change counted as a state change (an event per progress update)")
	}
}

func TestProgressChangesOncePerInterval(t *testing.T) {
	run := &cbv1.BenchmarkRun{Spec: cbv1.BenchmarkRunSpec{Writers: cbv1.WritersSpec{
		Warmup: &metav1.Duration{Duration: 10 * time.Second}, Duration: &metav1.Duration{Duration: 100 * time.Second}}}}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *cbv1.Progress { return progress(run, start, start.Add(d), 10*time.Second) }
	cases := map[string]struct {
		got, want *cbv1.Progress
	}{
		"not started":         {got: progress(run, time.Time{}, start, time.Second), want: nil},
		"warming up":          {got: at(5 * time.Second), want: &cbv1.Progress{}},
		"12s into the window": {got: at(22 * time.Second), want: &cbv1.Progress{ElapsedSeconds: 10, Percent: 10}},
		"19s, same interval":  {got: at(29 * time.Second), want: &cbv1.Progress{ElapsedSeconds: 10, Percent: 10}},
		"past the end":        {got: at(200 * time.Second), want: &cbv1.Progress{ElapsedSeconds: 190, Percent: 99}},
	}
	for name, tc := range cases {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s: %s", name, diff)
		}
	}
}

func TestDeadlines(t *testing.T) {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := &cbv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created)}}
	run.Spec.Writers.Duration = &metav1.Duration{Duration: 5 * time.Minute}
	run.Spec.Writers.Warmup = &metav1.Duration{Duration: time.Minute}
	if got := findDeadline(run); !got.Equal(created.Add(30 * time.Minute)) {
		t.Errorf("find deadline %s", got)
	}
	took := metav1.NewTime(created.Add(2 * time.Hour)) // queued for two hours: not counted
	run.Status.StartTime = &took
	if got := prepareDeadline(run); !got.Equal(took.Add(30 * time.Minute)) {
		t.Errorf("prepare deadline %s", got)
	}
	if got := runTimeout(run); got != 16*time.Minute {
		t.Errorf("run timeout %s", got)
	}
	run.Spec.Workload.Dataset = &cbv1.DatasetSpec{Rows: 1_000_000, Load: true}
	if got := runTimeout(run); got != time.Hour+16*time.Minute {
		t.Errorf("run timeout with a load stage %s", got)
	}
	run.Spec.Workload.Dataset = nil
	run.Spec.Writers.Duration, run.Spec.Writers.Operations = nil, ptr.To[int64](1000)
	if got := runTimeout(run); got != 2*time.Hour {
		t.Errorf("operations-bounded run timeout %s", got)
	}
	// A capacity search: 4 steps of up to 2 rounds of 5m (+30s each) and a 1m debt wait.
	run.Spec.Writers.Duration, run.Spec.Writers.Operations = &metav1.Duration{Duration: 5 * time.Minute}, nil
	run.Spec.Capacity = &cbv1.CapacitySpec{MaxSteps: 4, MaxExtensions: ptr.To[int32](1), DebtWaitLimit: &metav1.Duration{Duration: time.Minute}}
	if got, want := runTimeout(run), time.Minute+4*(11*time.Minute+time.Minute)+10*time.Minute; got != want {
		t.Errorf("capacity search run timeout %s, want %s", got, want)
	}
}
