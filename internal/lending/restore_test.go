package lending

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// One table for both holders: every case the run's and the sweep's copies of the restore
// handled, each row naming its holder.

const (
	origConfig  = `{"cassandra-yaml":{"concurrent_writes":32}}`
	tunedConfig = `{"cassandra-yaml":{"concurrent_writes":64}}`
	otherConfig = `{"cassandra-yaml":{"concurrent_writes":128}}`
)

var (
	run   = datacenter.RunHolder(types.NamespacedName{Namespace: "bench", Name: "r"})
	sweep = datacenter.SweepHolder(types.NamespacedName{Namespace: "bench", Name: "sw"})
	// recorded are the originals: 3 nodes and origConfig.
	recorded = &Originals{Size: 3, Config: json.RawMessage(origConfig)}
	// runSet is what the run set: 5 nodes and tunedConfig.
	runSet = &Values{Size: 5, Config: json.RawMessage(tunedConfig)}
)

// dc1 is the datacenter with size and config, locked by lock if set. Giving back does not
// read readiness, only whether cass-operator is scaling (scaling).
func dc1(size int32, config, lock string) *cassdcapi.CassandraDatacenter {
	b := builders.MakeDatacenter("dc1", "bench").Size(size).AllowBenchmarks("true").Config(config)
	if lock != "" {
		b = b.Annotation(cbv1.LockAnnotation, lock)
	}
	return b.Obj()
}

// nudged is the datacenter with a nudge the run left while it waited.
func nudged(dc *cassdcapi.CassandraDatacenter) *cassdcapi.CassandraDatacenter {
	metav1.SetMetaDataAnnotation(&dc.ObjectMeta, cbv1.ReconcileRequestedAnnotation, "2026-11-28T10:00:00Z")
	return dc
}

func scaling(dc *cassdcapi.CassandraDatacenter) *cassdcapi.CassandraDatacenter {
	dc.Status.Conditions = []cassdcapi.DatacenterCondition{{Type: cassdcapi.DatacenterScalingUp, Status: corev1.ConditionTrue}}
	return dc
}

func TestPlanRestore(t *testing.T) {
	type want struct {
		Change, Status, Reason string
		Done                   bool
	}
	cases := map[string]struct {
		r       Restore
		want    want
		message string
	}{
		// Both holders.
		"run: size and config back, lock released, in one patch": {
			r:    Restore{Holder: run, DC: dc1(5, tunedConfig, "bench/r"), Originals: recorded, Set: runSet, Changed: true},
			want: want{Change: "size=3 config=" + origConfig + " lock=-", Status: "True", Reason: cbv1.ReasonRestored, Done: true},
		},
		"sweep: size and config back, lock released, in one patch": {
			r:    Restore{Holder: sweep, DC: dc1(2, tunedConfig, "sweep:bench/sw"), Originals: recorded},
			want: want{Change: "size=3 config=" + origConfig + " lock=-", Status: "True", Reason: cbv1.ReasonRestored, Done: true},
		},
		"sweep: only what differs: config": {
			r:    Restore{Holder: sweep, DC: dc1(3, tunedConfig, "sweep:bench/sw"), Originals: recorded},
			want: want{Change: "config=" + origConfig + " lock=-", Status: "True", Reason: cbv1.ReasonRestored, Done: true},
		},
		"sweep: only what differs: size": {
			r:    Restore{Holder: sweep, DC: dc1(2, origConfig, "sweep:bench/sw"), Originals: recorded},
			want: want{Change: "size=3 lock=-", Status: "True", Reason: cbv1.ReasonRestored, Done: true},
		},
		"sweep: already as it was: release only": {
			r:    Restore{Holder: sweep, DC: dc1(3, origConfig, "sweep:bench/sw"), Originals: recorded},
			want: want{Change: "lock=-", Status: "True", Reason: cbv1.ReasonNothingToRestore, Done: true},
		},
		"run: unchanged datacenter: release only": {
			r:    Restore{Holder: run, DC: dc1(3, origConfig, "bench/r"), Originals: recorded, Set: &Values{Size: 3, Config: json.RawMessage(origConfig)}},
			want: want{Change: "lock=-", Status: "True", Reason: cbv1.ReasonNothingToRestore, Done: true},
		},
		"sweep: a datacenter that had no config gets none back": {
			r:    Restore{Holder: sweep, DC: dc1(3, tunedConfig, "sweep:bench/sw"), Originals: &Originals{Size: 3}},
			want: want{Change: "config=null lock=-", Status: "True", Reason: cbv1.ReasonRestored, Done: true},
		},
		"run: no originals recorded: release only": {
			r:       Restore{Holder: run, DC: dc1(3, origConfig, "bench/r")},
			want:    want{Change: "lock=-", Status: "True", Reason: cbv1.ReasonNothingToRestore, Done: true},
			message: "the run did not change the datacenter; lock released",
		},
		"sweep: no originals recorded: release only": {
			r:       Restore{Holder: sweep, DC: dc1(3, tunedConfig, "sweep:bench/sw")},
			want:    want{Change: "lock=-", Status: "True", Reason: cbv1.ReasonNothingToRestore, Done: true},
			message: "the sweep did not change the datacenter",
		},
		// The nudges a run left (cbv1.ReconcileRequestedAnnotation) go with whatever it writes
		// last; while it waits for the scaling, it nudges on.
		"run: nudged: size, config, lock and the nudge back in one patch": {
			r:    Restore{Holder: run, DC: nudged(dc1(5, tunedConfig, "bench/r")), Originals: recorded, Set: runSet, Changed: true},
			want: want{Change: "size=3 config=" + origConfig + " lock=- nudge=-", Status: "True", Reason: cbv1.ReasonRestored, Done: true},
		},
		"run: nudged, nothing else to restore: the nudge goes with the lock": {
			r:    Restore{Holder: run, DC: nudged(dc1(3, origConfig, "bench/r")), Originals: recorded, Changed: true},
			want: want{Change: "lock=- nudge=-", Status: "True", Reason: cbv1.ReasonRestored, Done: true},
		},
		"run: nudged, lock already released (a crash in between): the nudge goes": {
			r:    Restore{Holder: run, DC: nudged(dc1(3, origConfig, "")), Originals: recorded, Changed: true},
			want: want{Change: "nudge=-", Status: "True", Reason: cbv1.ReasonRestored, Done: true},
		},
		"run: nudged, refused: the release removes the nudge": {
			r:    Restore{Holder: run, DC: nudged(dc1(5, tunedConfig, "bench/r")), Originals: recorded, Set: runSet, Refused: "the apiserver refused it"},
			want: want{Change: "lock=- nudge=-", Status: "False", Reason: cbv1.ReasonRefused, Done: true},
		},
		"run: nudged, someone else holds the lock: their datacenter is not touched": {
			r:    Restore{Holder: run, DC: nudged(dc1(3, origConfig, "bench/other")), Originals: recorded, Set: runSet, Changed: true},
			want: want{Status: "True", Reason: cbv1.ReasonRestored, Done: true},
		},
		"run: scaling: config now and a nudge, size and lock wait": {
			r: Restore{Holder: run, DC: nudged(scaling(dc1(5, tunedConfig, "bench/r"))), Originals: recorded, Set: runSet, Changed: true,
				Nudge: ptr.To("2026-11-28T10:00:30Z")},
			want: want{Change: "config=" + origConfig + " nudge=2026-11-28T10:00:30Z", Status: "False", Reason: cbv1.ReasonRestoring},
		},
		"run: scaling at the deadline: the nudge goes with the lock": {
			r:    Restore{Holder: run, DC: nudged(scaling(dc1(5, tunedConfig, "bench/r"))), Originals: recorded, Set: runSet, Changed: true, Expired: true},
			want: want{Change: "config=" + origConfig + " lock=- nudge=-", Status: "False", Reason: cbv1.ReasonRestoreStuck, Done: true},
		},
		"run: scaling: config now, size and lock wait": {
			r:       Restore{Holder: run, DC: scaling(dc1(5, tunedConfig, "bench/r")), Originals: recorded, Set: runSet, Changed: true},
			want:    want{Change: "config=" + origConfig, Status: "False", Reason: cbv1.ReasonRestoring},
			message: "before restoring size 3",
		},
		"sweep: scaling: config now, size and lock wait": {
			r:       Restore{Holder: sweep, DC: scaling(dc1(2, tunedConfig, "sweep:bench/sw")), Originals: recorded},
			want:    want{Change: "config=" + origConfig, Status: "False", Reason: cbv1.ReasonRestoring},
			message: "before restoring size 3",
		},
		"sweep: scaling at the deadline: release and say what to do": {
			r:       Restore{Holder: sweep, DC: scaling(dc1(2, tunedConfig, "sweep:bench/sw")), Originals: recorded, Expired: true},
			want:    want{Change: "config=" + origConfig + " lock=-", Status: "False", Reason: cbv1.ReasonRestoreStuck, Done: true},
			message: "set spec.size back to 3 by hand",
		},
		"run: lock taken by another run meanwhile: nothing touched": {
			r:       Restore{Holder: run, DC: dc1(5, tunedConfig, "bench/other"), Originals: recorded, Set: runSet, Changed: true},
			want:    want{Status: "False", Reason: cbv1.ReasonLockLost, Done: true},
			message: "BenchmarkRun bench/other holds it now: it keeps the run's size 5",
		},
		"sweep: lock taken by another run meanwhile: nothing touched": {
			r:       Restore{Holder: sweep, DC: dc1(2, tunedConfig, "bench/other"), Originals: recorded},
			want:    want{Status: "False", Reason: cbv1.ReasonLockLost, Done: true},
			message: "from the sweep's status.datacenter.originalSize",
		},
		"run: another holder, but the datacenter is back as it was": {
			r:    Restore{Holder: run, DC: dc1(3, origConfig, "bench/other"), Originals: recorded, Set: runSet, Changed: true},
			want: want{Status: "True", Reason: cbv1.ReasonRestored, Done: true},
		},
		"sweep: datacenter gone": {
			r:    Restore{Holder: sweep, Originals: recorded},
			want: want{Status: "True", Reason: cbv1.ReasonNothingToRestore, Done: true},
		},
		"run: datacenter gone": {
			r:    Restore{Holder: run, Originals: recorded, Set: runSet},
			want: want{Status: "True", Reason: cbv1.ReasonNothingToRestore, Done: true},
		},
		// The run's alone: it knows what it set, so it leaves what someone else set.
		"run: someone else changed the size: config back, their size stays": {
			r:       Restore{Holder: run, DC: dc1(7, tunedConfig, "bench/r"), Originals: recorded, Set: runSet, Changed: true},
			want:    want{Change: "config=" + origConfig + " lock=-", Status: "False", Reason: cbv1.ReasonDatacenterDrifted, Done: true},
			message: "spec.size is 7 (originally 3), not what the run set",
		},
		"run: someone else changed the config: size back, their config stays": {
			r:       Restore{Holder: run, DC: dc1(5, otherConfig, "bench/r"), Originals: recorded, Set: runSet, Changed: true},
			want:    want{Change: "size=3 lock=-", Status: "False", Reason: cbv1.ReasonDatacenterDrifted, Done: true},
			message: "spec.config is neither the original nor what the run set",
		},
		"run: keepChanges: release only": {
			r:    Restore{Holder: run, DC: dc1(5, tunedConfig, "bench/r"), Originals: recorded, Set: runSet, Changed: true, KeepChanges: true},
			want: want{Change: "lock=-", Status: "True", Reason: cbv1.ReasonKeptChanges, Done: true},
		},
		// The refusal, one way for both.
		"run: restore refused: release, refusal named": {
			r:       Restore{Holder: run, DC: dc1(5, tunedConfig, "bench/r"), Originals: recorded, Set: runSet, Refused: "the apiserver refused restoring"},
			want:    want{Change: "lock=-", Status: "False", Reason: cbv1.ReasonRefused, Done: true},
			message: "the apiserver refused restoring; lock released",
		},
		"sweep: restore refused: release, refusal named": {
			r:       Restore{Holder: sweep, DC: dc1(2, tunedConfig, "sweep:bench/sw"), Originals: recorded, Refused: "the apiserver refused restoring"},
			want:    want{Change: "lock=-", Status: "False", Reason: cbv1.ReasonRefused, Done: true},
			message: "the apiserver refused restoring; lock released",
		},
		"sweep: restore refused, lock already released: done": {
			r:    Restore{Holder: sweep, DC: dc1(2, tunedConfig, ""), Originals: recorded, Refused: "the apiserver refused restoring"},
			want: want{Status: "False", Reason: cbv1.ReasonRefused, Done: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := PlanRestore(tc.r)
			g := want{Change: got.Change.String(), Status: string(got.Status), Reason: got.Reason, Done: got.Done}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !strings.Contains(got.Message, tc.message) {
				t.Errorf("message %q does not contain %q", got.Message, tc.message)
			}
			if got.Change != nil && got.Change.Stage != cbv1.ConditionDatacenterRestored {
				t.Errorf("a refused restore would fail %q, not DatacenterRestored", got.Change.Stage)
			}
			if c := got.Change; c != nil && c.SetConfig && c.Config != nil && !json.Valid(c.Config) {
				t.Errorf("config %q is not JSON", c.Config)
			}
		})
	}
}

func TestFinal(t *testing.T) {
	cases := map[string]struct {
		status metav1.ConditionStatus
		reason string
		want   bool
	}{
		"restored":                            {metav1.ConditionTrue, cbv1.ReasonRestored, true},
		"held by the sweep":                   {metav1.ConditionTrue, cbv1.ReasonHeldBySweep, true},
		"still restoring":                     {metav1.ConditionFalse, cbv1.ReasonRestoring, false},
		"stuck":                               {metav1.ConditionFalse, cbv1.ReasonRestoreStuck, true},
		"lock lost":                           {metav1.ConditionFalse, cbv1.ReasonLockLost, true},
		"drifted":                             {metav1.ConditionFalse, cbv1.ReasonDatacenterDrifted, true},
		"refused: the lock may still be held": {metav1.ConditionFalse, cbv1.ReasonRefused, false},
		"stopping Jobs before giving back":    {metav1.ConditionFalse, cbv1.ReasonStoppingJobs, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Final(&metav1.Condition{Type: cbv1.ConditionDatacenterRestored, Status: tc.status, Reason: tc.reason}); got != tc.want {
				t.Errorf("Final = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestWaitToFind(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		deadline time.Time
		want     Wait
	}{
		"before the deadline: wait, look again then": {deadline: now.Add(time.Minute),
			want: Wait{Reason: cbv1.ReasonDatacenterNotFound, Message: "not found (until 2026-01-01T00:01:00Z)", RequeueAfter: time.Minute + time.Second}},
		"at the deadline: give up": {deadline: now,
			want: Wait{Expired: true, Reason: cbv1.ReasonPrepareDeadlineExceeded, Message: "not found; gave up"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, WaitToFind(now, tc.deadline, cbv1.ReasonDatacenterNotFound, "not found", "gave up")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestQueue(t *testing.T) {
	at := func(name, ns string, minute int) cbv1.BenchmarkRun {
		r := builders.MakeBenchmarkRun(name, ns).Datacenter("dc1").Obj()
		r.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 0, minute, 0, 0, time.UTC))
		return *r
	}
	done := at("done", "bench", 0)
	done.Status.Conditions = []metav1.Condition{{Type: cbv1.ConditionSucceeded, Status: metav1.ConditionTrue}}
	gone := at("gone", "bench", 0)
	gone.DeletionTimestamp = &gone.CreationTimestamp
	runs := []cbv1.BenchmarkRun{at("late", "bench", 3), done, gone, at("failing", "bench", 0), at("elsewhere", "other", 0), at("early", "bench", 1)}
	var got []string
	for _, r := range Queue(dc1(3, origConfig, ""), runs, func(r *cbv1.BenchmarkRun) bool { return r.Name == "failing" }) {
		got = append(got, r.Name)
	}
	if diff := cmp.Diff([]string{"early", "late"}, got); diff != "" {
		t.Errorf("queue (-want +got):\n%s", diff)
	}
}

func TestTarget(t *testing.T) {
	yaml := func(doc string) *cbv1.DatacenterConfig {
		return &cbv1.DatacenterConfig{CassandraYaml: &runtime.RawExtension{Raw: []byte(doc)}}
	}
	cases := map[string]struct {
		orig    Originals
		tuning  *cbv1.DatacenterTuning
		want    Values
		wantErr bool
	}{
		"no tuning: the originals": {orig: *recorded, want: Values{Size: 3, Config: json.RawMessage(origConfig)}},
		"size only": {orig: *recorded, tuning: &cbv1.DatacenterTuning{Size: ptr.To[int32](5)},
			want: Values{Size: 5, Config: json.RawMessage(origConfig)}},
		"config merged into the original": {orig: *recorded, tuning: &cbv1.DatacenterTuning{Config: yaml(`{"concurrent_writes":64}`)},
			want: Values{Size: 3, Config: json.RawMessage(tunedConfig)}},
		"config into a datacenter that had none": {orig: Originals{Size: 1}, tuning: &cbv1.DatacenterTuning{Config: yaml(`{"concurrent_writes":64}`)},
			want: Values{Size: 1, Config: json.RawMessage(tunedConfig)}},
		"an original config that is not JSON": {orig: Originals{Size: 1, Config: json.RawMessage(`{broken`)},
			tuning: &cbv1.DatacenterTuning{Config: yaml(`{"concurrent_writes":64}`)}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Target(tc.orig, tc.tuning)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if got.Size != tc.want.Size || !datacenter.SameJSON(got.Config, tc.want.Config) {
				t.Errorf("got size %d config %s, want %d %s", got.Size, got.Config, tc.want.Size, tc.want.Config)
			}
		})
	}
}
