package sweep

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
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

var created = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const origConfig = `{"cassandra-yaml":{"concurrent_writes":32}}`

func atEndSweep(recorded bool) *cbv1.BenchmarkSweep {
	sw := builders.MakeSweep("sw", "bench").Created(created).Restore(cbv1.RestoreAtEnd).Obj()
	if recorded {
		sw.Status.Datacenter = &cbv1.HeldDatacenter{Name: "dc1", Namespace: "bench", OriginalSize: ptr.To[int32](1),
			OriginalConfig: &runtime.RawExtension{Raw: []byte(origConfig)}}
	}
	return sw
}

// dc1 is the sweep's datacenter: opted in, size and config as given, locked by lock if set.
func dc1(size int32, config, lock string) *cassdcapi.CassandraDatacenter {
	b := builders.MakeDatacenter("dc1", "bench").Size(size).AllowBenchmarks("true")
	if config != "" {
		b = b.Config(config)
	}
	if lock != "" {
		b = b.Annotation(cbv1.LockAnnotation, lock)
	}
	dc := b.Obj()
	dc.Generation, dc.Status.ObservedGeneration, dc.Status.CassandraOperatorProgress = 4, 4, cassdcapi.ProgressReady
	dc.Status.Conditions = []cassdcapi.DatacenterCondition{{Type: cassdcapi.DatacenterReady, Status: corev1.ConditionTrue}}
	return dc
}

func withAxis(sw *cbv1.BenchmarkSweep, path string, values ...int) *cbv1.BenchmarkSweep {
	axis := cbv1.SweepAxis{Path: path}
	for _, v := range values {
		axis.Values = append(axis.Values, intstr.FromInt(v))
	}
	sw.Spec.Axes = append(sw.Spec.Axes, axis)
	return sw
}

// managedDC is dc1 as a K8ssandraCluster's datacenter.
func managedDC(size int32) *cassdcapi.CassandraDatacenter {
	dc := dc1(size, origConfig, "")
	b := builders.MakeDatacenter("dc1", "bench").K8ssandraCluster("k8ssandra-operator", "demo").Obj()
	dc.Labels, dc.Finalizers = b.Labels, b.Finalizers
	return dc
}

func TestDecideTake(t *testing.T) {
	recordedFromDC := &cbv1.HeldDatacenter{Name: "dc1", Namespace: "bench", OriginalSize: ptr.To[int32](3),
		OriginalConfig: &runtime.RawExtension{Raw: []byte(origConfig)}}
	type want struct {
		Lock, Held, Fail, Lost bool
		Record                 *cbv1.HeldDatacenter
		Reason                 string
	}
	cases := map[string]struct {
		o HoldObserved
		want
		message string
	}{
		"free: lock and record in one step": {
			o:    HoldObserved{Sweep: atEndSweep(false), DC: dc1(3, origConfig, "")},
			want: want{Lock: true, Record: recordedFromDC, Reason: cbv1.ReasonLocked},
		},
		"stale lock of a finished run: taken": {
			o:    HoldObserved{Sweep: atEndSweep(false), DC: dc1(3, origConfig, "bench/old"), HolderAlive: false},
			want: want{Lock: true, Record: recordedFromDC, Reason: cbv1.ReasonLocked},
		},
		"busy with a run: wait, no deadline": {
			o:       HoldObserved{Sweep: atEndSweep(false), DC: dc1(3, origConfig, "bench/other"), HolderAlive: true, Now: created.Add(time.Hour)},
			want:    want{Reason: cbv1.ReasonDatacenterBusy},
			message: "in use by BenchmarkRun bench/other",
		},
		"busy with another sweep": {
			o:       HoldObserved{Sweep: atEndSweep(false), DC: dc1(3, origConfig, "sweep:bench/other"), HolderAlive: true},
			want:    want{Reason: cbv1.ReasonDatacenterBusy},
			message: "in use by BenchmarkSweep bench/other",
		},
		"an older run waits: it goes first": {
			o:       HoldObserved{Sweep: atEndSweep(false), DC: dc1(3, origConfig, ""), Ahead: types.NamespacedName{Namespace: "bench", Name: "early"}},
			want:    want{Reason: cbv1.ReasonDatacenterBusy},
			message: "is next promised to BenchmarkRun bench/early, which waited for it first; the sweep starts when it is done",
		},
		"free but still rolling a restore: wait for cass-operator before locking": {
			o: HoldObserved{Sweep: atEndSweep(false), DC: func() *cassdcapi.CassandraDatacenter {
				dc := dc1(3, origConfig, "")
				dc.Generation = 5
				dc.Status.Conditions = append(dc.Status.Conditions, cassdcapi.DatacenterCondition{Type: cassdcapi.DatacenterRollingRestart, Status: corev1.ConditionTrue})
				return dc
			}()},
			want:    want{Reason: cbv1.ReasonDatacenterUpdating},
			message: "RollingRestart",
		},
		"locked by an earlier pass that crashed before writing status: record only": {
			o:    HoldObserved{Sweep: atEndSweep(false), DC: dc1(3, origConfig, "sweep:bench/sw")},
			want: want{Record: recordedFromDC, Reason: cbv1.ReasonLocked},
		},
		"held and recorded: its runs may go": {
			o:    HoldObserved{Sweep: atEndSweep(true), DC: dc1(2, `{"cassandra-yaml":{"concurrent_writes":64}}`, "sweep:bench/sw")},
			want: want{Held: true, Reason: cbv1.ReasonLocked},
		},
		"lock removed after recording: lost, never locked again": {
			o:       HoldObserved{Sweep: atEndSweep(true), DC: dc1(2, `{"cassandra-yaml":{"concurrent_writes":64}}`, "")},
			want:    want{Lost: true, Reason: cbv1.ReasonLockLost},
			message: "was removed while the sweep held it",
		},
		"missing datacenter: wait until the deadline": {
			o:       HoldObserved{Sweep: atEndSweep(false), Now: created.Add(time.Minute)},
			want:    want{Reason: cbv1.ReasonDatacenterNotFound},
			message: "not found",
		},
		"missing datacenter after deadlines.prepare: fail": {
			o:       HoldObserved{Sweep: atEndSweep(false), Now: created.Add(30 * time.Minute)},
			want:    want{Fail: true, Reason: cbv1.ReasonPrepareDeadlineExceeded},
			message: "gave up after the template's deadlines.prepare (30m0s)",
		},
		"a K8ssandraCluster's datacenter and a point that resizes it: refused before locking": {
			o:    HoldObserved{Sweep: withAxis(atEndSweep(false), "datacenter.size", 3, 5), DC: managedDC(3)},
			want: want{Fail: true, Reason: cbv1.ReasonDatacenterManagedByK8ssandra},
			message: "is managed by K8ssandraCluster k8ssandra-operator/demo, which writes the datacenter's spec back from its own whenever it reconciles a change, " +
				"and the sweep's point 1 (datacenter.size=5) would change its size from 3 to 5",
		},
		"a K8ssandraCluster's datacenter and a template that tunes it: refused": {
			o: HoldObserved{Sweep: func() *cbv1.BenchmarkSweep {
				sw := withAxis(atEndSweep(false), "writers.replicas", 1, 2)
				sw.Spec.Template.Datacenter = &cbv1.DatacenterTuning{Config: &cbv1.DatacenterConfig{
					CassandraYaml: &runtime.RawExtension{Raw: []byte(`{"concurrent_writes":64}`)}}}
				return sw
			}(), DC: managedDC(3)},
			want:    want{Fail: true, Reason: cbv1.ReasonDatacenterManagedByK8ssandra},
			message: "point 0 (writers.replicas=1) would change its config (cassandra-yaml)",
		},
		"a K8ssandraCluster's datacenter and points that change nothing in it: locked as any": {
			o:    HoldObserved{Sweep: withAxis(atEndSweep(false), "writers.replicas", 1, 2), DC: managedDC(3)},
			want: want{Lock: true, Record: recordedFromDC, Reason: cbv1.ReasonLocked},
		},
		"not opted in: wait": {
			o:       HoldObserved{Sweep: atEndSweep(false), DC: builders.MakeDatacenter("dc1", "bench").Size(3).Obj()},
			want:    want{Reason: cbv1.ReasonDatacenterNotOptedIn},
			message: "has not opted in",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := DecideTake(tc.o)
			if diff := cmp.Diff(tc.want, want{Lock: got.Lock, Held: got.Held, Fail: got.Fail, Lost: got.Lost, Record: got.Record, Reason: got.Reason}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !strings.Contains(got.Message, tc.message) {
				t.Errorf("message %q does not contain %q", got.Message, tc.message)
			}
		})
	}
}

func TestPlanRestore(t *testing.T) {
	tuned := `{"cassandra-yaml":{"concurrent_writes":64}}`
	scaling := func(dc *cassdcapi.CassandraDatacenter) *cassdcapi.CassandraDatacenter {
		dc.Status.Conditions = []cassdcapi.DatacenterCondition{{Type: cassdcapi.DatacenterScalingUp, Status: corev1.ConditionTrue}}
		return dc
	}
	type want struct {
		Size      *int32
		Config    string
		SetConfig bool
		Unlock    bool
		Reason    string
		Done      bool
	}
	cases := map[string]struct {
		sw      *cbv1.BenchmarkSweep
		dc      *cassdcapi.CassandraDatacenter
		expired bool
		want    want
		message string
	}{
		"size and config back, lock released, in one patch": {
			sw: atEndSweep(true), dc: dc1(2, tuned, "sweep:bench/sw"),
			want: want{Size: ptr.To[int32](1), Config: origConfig, SetConfig: true, Unlock: true, Reason: cbv1.ReasonRestored, Done: true},
		},
		"only what differs: config": {
			sw: atEndSweep(true), dc: dc1(1, tuned, "sweep:bench/sw"),
			want: want{Config: origConfig, SetConfig: true, Unlock: true, Reason: cbv1.ReasonRestored, Done: true},
		},
		"only what differs: size": {
			sw: atEndSweep(true), dc: dc1(2, origConfig, "sweep:bench/sw"),
			want: want{Size: ptr.To[int32](1), Unlock: true, Reason: cbv1.ReasonRestored, Done: true},
		},
		"already as it was: release only": {
			sw: atEndSweep(true), dc: dc1(1, origConfig, "sweep:bench/sw"),
			want: want{Unlock: true, Reason: cbv1.ReasonNothingToRestore, Done: true},
		},
		"a datacenter that had no config gets none back": {
			sw: func() *cbv1.BenchmarkSweep {
				sw := atEndSweep(true)
				sw.Status.Datacenter.OriginalConfig = nil
				return sw
			}(),
			dc:   dc1(1, tuned, "sweep:bench/sw"),
			want: want{SetConfig: true, Unlock: true, Reason: cbv1.ReasonRestored, Done: true},
		},
		"no originals recorded: release only": {
			sw: atEndSweep(false), dc: dc1(3, tuned, "sweep:bench/sw"),
			want: want{Unlock: true, Reason: cbv1.ReasonNothingToRestore, Done: true},
		},
		"scaling: config now, size and lock wait": {
			sw: atEndSweep(true), dc: scaling(dc1(2, tuned, "sweep:bench/sw")),
			want:    want{Config: origConfig, SetConfig: true, Reason: cbv1.ReasonRestoring},
			message: "before restoring size 1",
		},
		"scaling at the deadline: release and say what to do": {
			sw: atEndSweep(true), dc: scaling(dc1(2, tuned, "sweep:bench/sw")), expired: true,
			want:    want{Config: origConfig, SetConfig: true, Unlock: true, Reason: cbv1.ReasonRestoreStuck, Done: true},
			message: "set spec.size back to 1 by hand",
		},
		"lock taken by another run meanwhile: nothing touched": {
			sw: atEndSweep(true), dc: dc1(2, tuned, "bench/other"),
			want:    want{Reason: cbv1.ReasonLockLost, Done: true},
			message: "BenchmarkRun bench/other holds it now",
		},
		"datacenter gone": {
			sw: atEndSweep(true), dc: nil,
			want: want{Reason: cbv1.ReasonNothingToRestore, Done: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := PlanRestore(tc.sw, tc.dc, nil, tc.expired, "")
			g := want{Reason: got.Reason, Done: got.Done}
			if c := got.Change; c != nil {
				g.Size, g.Config, g.SetConfig, g.Unlock = c.Size, string(c.Config), c.SetConfig, c.Lock != nil && *c.Lock == ""
			}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !strings.Contains(got.Message, tc.message) {
				t.Errorf("message %q does not contain %q", got.Message, tc.message)
			}
			if c := got.Change; c != nil && c.SetConfig && c.Config != nil && !json.Valid(c.Config) {
				t.Errorf("config %q is not JSON", c.Config)
			}
		})
	}
}

func TestGaveBack(t *testing.T) {
	sw := atEndSweep(true)
	if GaveBack(sw) {
		t.Error("a sweep holding its datacenter gave it back")
	}
	sw.Status.Conditions = []metav1.Condition{{Type: cbv1.ConditionDatacenterRestored, Status: metav1.ConditionFalse, Reason: cbv1.ReasonRestoring}}
	if GaveBack(sw) {
		t.Error("a sweep still restoring gave it back")
	}
	sw.Status.Conditions[0].Reason = cbv1.ReasonRestoreStuck
	if !GaveBack(sw) {
		t.Error("a sweep that gave up restoring still holds its datacenter")
	}
	sw.Spec.Restore = cbv1.RestoreAfterEach
	sw.Status.Conditions = nil
	if !GaveBack(sw) {
		t.Error("a sweep with restore afterEach holds a datacenter")
	}
}
