package datacenter

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

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func raw(s string) *runtime.RawExtension { return &runtime.RawExtension{Raw: []byte(s)} }

func TestMergeConfig(t *testing.T) {
	cases := map[string]struct {
		original string
		tuning   *cbv1.DatacenterConfig
		want     string
	}{
		"no original config": {
			tuning: &cbv1.DatacenterConfig{CassandraYaml: raw(`{"concurrent_writes":64}`)},
			want:   `{"cassandra-yaml":{"concurrent_writes":64}}`,
		},
		"keys merge, the run wins, others are kept": {
			original: `{"cassandra-yaml":{"concurrent_writes":32,"num_tokens":16},"jvm-server-options":{"max_heap_size":"4G"}}`,
			tuning: &cbv1.DatacenterConfig{
				CassandraYaml:    raw(`{"concurrent_writes":128,"concurrent_reads":64}`),
				JvmServerOptions: raw(`{"max_heap_size":"8G","initial_heap_size":"8G"}`),
			},
			want: `{"cassandra-yaml":{"concurrent_reads":64,"concurrent_writes":128,"num_tokens":16},` +
				`"jvm-server-options":{"initial_heap_size":"8G","max_heap_size":"8G"}}`,
		},
		"nested objects merge deeply, lists replace": {
			original: `{"cassandra-yaml":{"seed_provider":{"class":"x","opts":{"a":1}}},"jvm-server-options":{"additional-jvm-opts":["-Da"]}}`,
			tuning: &cbv1.DatacenterConfig{
				CassandraYaml:    raw(`{"seed_provider":{"opts":{"b":2}}}`),
				JvmServerOptions: raw(`{"additional-jvm-opts":["-Db"]}`),
			},
			want: `{"cassandra-yaml":{"seed_provider":{"class":"x","opts":{"a":1,"b":2}}},"jvm-server-options":{"additional-jvm-opts":["-Db"]}}`,
		},
		"every section": {
			original: `null`,
			tuning: &cbv1.DatacenterConfig{
				Jvm11ServerOptions: raw(`{"garbage_collector":"G1GC"}`),
				Jvm17ServerOptions: raw(`{"garbage_collector":"ZGC"}`),
				CassandraEnvSh:     raw(`{"heap_newsize":"1000M"}`),
			},
			want: `{"cassandra-env-sh":{"heap_newsize":"1000M"},"jvm11-server-options":{"garbage_collector":"G1GC"},"jvm17-server-options":{"garbage_collector":"ZGC"}}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := MergeConfig(json.RawMessage(tc.original), tc.tuning)
			if err != nil {
				t.Fatal(err)
			}
			if !SameJSON(got, json.RawMessage(tc.want)) {
				t.Errorf("got %s\nwant %s", got, tc.want)
			}
		})
	}
	if _, err := MergeConfig(json.RawMessage(`{broken`), &cbv1.DatacenterConfig{}); err == nil {
		t.Error("a broken original config merged without error")
	}
}

type dcOpt func(*cassdcapi.CassandraDatacenter)

func dcWith(opts ...dcOpt) *cassdcapi.CassandraDatacenter {
	dc := &cassdcapi.CassandraDatacenter{ObjectMeta: metav1.ObjectMeta{Name: "dc1", Namespace: "db", Generation: 4}}
	dc.Status.ObservedGeneration = 4
	dc.Status.CassandraOperatorProgress = cassdcapi.ProgressReady
	dc.Status.Conditions = []cassdcapi.DatacenterCondition{
		{Type: cassdcapi.DatacenterReady, Status: corev1.ConditionTrue},
		{Type: cassdcapi.DatacenterValid, Status: corev1.ConditionTrue},
	}
	for _, o := range opts {
		o(dc)
	}
	return dc
}

func cond(t cassdcapi.DatacenterConditionType, s corev1.ConditionStatus) dcOpt {
	return func(dc *cassdcapi.CassandraDatacenter) {
		dc.SetCondition(cassdcapi.DatacenterCondition{Type: t, Status: s, Message: "because"})
	}
}

func TestReady(t *testing.T) {
	cases := map[string]struct {
		dc      *cassdcapi.CassandraDatacenter
		wrote   int64
		ready   bool
		pending string
	}{
		"settled":                        {dc: dcWith(), wrote: 4, ready: true},
		"generation not observed":        {dc: dcWith(), wrote: 5, pending: "observed generation 4 of 5"},
		"rolling restart keeps Ready":    {dc: dcWith(cond(cassdcapi.DatacenterUpdating, corev1.ConditionTrue), cond(cassdcapi.DatacenterRollingRestart, corev1.ConditionTrue)), wrote: 4, pending: "conditions RollingRestart, Updating are True"},
		"scaling up":                     {dc: dcWith(cond(cassdcapi.DatacenterScalingUp, corev1.ConditionTrue)), wrote: 4, pending: "ScalingUp"},
		"scaling down":                   {dc: dcWith(cond(cassdcapi.DatacenterScalingDown, corev1.ConditionTrue)), wrote: 4, pending: "ScalingDown"},
		"requires update":                {dc: dcWith(cond(cassdcapi.DatacenterRequiresUpdate, corev1.ConditionTrue)), wrote: 4, pending: "RequiresUpdate"},
		"replacing nodes":                {dc: dcWith(cond(cassdcapi.DatacenterReplacingNodes, corev1.ConditionTrue)), wrote: 4, pending: "ReplacingNodes"},
		"resuming":                       {dc: dcWith(cond(cassdcapi.DatacenterResuming, corev1.ConditionTrue)), wrote: 4, pending: "Resuming"},
		"resizing volumes":               {dc: dcWith(cond(cassdcapi.DatacenterResizingVolumes, corev1.ConditionTrue)), wrote: 4, pending: "ResizingVolumes"},
		"busy conditions False are fine": {dc: dcWith(cond(cassdcapi.DatacenterUpdating, corev1.ConditionFalse)), wrote: 4, ready: true},
		"progress Updating": {dc: dcWith(func(dc *cassdcapi.CassandraDatacenter) {
			dc.Status.CassandraOperatorProgress = cassdcapi.ProgressUpdating
		}), wrote: 4, pending: "cassandraOperatorProgress is Updating"},
		"not Ready":        {dc: dcWith(cond(cassdcapi.DatacenterReady, corev1.ConditionFalse)), wrote: 4, pending: "condition Ready is False"},
		"Ready missing":    {dc: dcWith(func(dc *cassdcapi.CassandraDatacenter) { dc.Status.Conditions = nil }), wrote: 4, pending: "condition Ready is not reported"},
		"invalid":          {dc: dcWith(cond(cassdcapi.DatacenterValid, corev1.ConditionFalse)), wrote: 4, pending: "Valid is False: because"},
		"no status at all": {dc: &cassdcapi.CassandraDatacenter{}, wrote: 1, pending: "Progress is not reported"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ready, why := Ready(tc.dc, tc.wrote)
			if ready != tc.ready || !strings.Contains(why, tc.pending) {
				t.Errorf("Ready = %v, %q; want %v containing %q", ready, why, tc.ready, tc.pending)
			}
		})
	}
}

func TestAllows(t *testing.T) {
	annotated := func(v string) *cassdcapi.CassandraDatacenter {
		return dcWith(func(dc *cassdcapi.CassandraDatacenter) {
			dc.Annotations = map[string]string{cbv1.AllowBenchmarksAnnotation: v}
		})
	}
	cases := map[string]struct {
		dc      *cassdcapi.CassandraDatacenter
		ns      string
		allowed bool
		reason  string
	}{
		"no annotation":                  {dc: dcWith(), ns: "db", reason: cbv1.ReasonDatacenterNotOptedIn},
		"true, same namespace":           {dc: annotated("true"), ns: "db", allowed: true},
		"True, same namespace":           {dc: annotated("True"), ns: "db", allowed: true},
		"true, other namespace":          {dc: annotated("true"), ns: "bench", reason: cbv1.ReasonNamespaceNotAllowed},
		"false":                          {dc: annotated("false"), ns: "db", reason: cbv1.ReasonDatacenterNotOptedIn},
		"list naming the namespace":      {dc: annotated("db, bench"), ns: "bench", allowed: true},
		"list not naming the namespace":  {dc: annotated("db,other"), ns: "bench", reason: cbv1.ReasonNamespaceNotAllowed},
		"star":                           {dc: annotated("*"), ns: "anything", allowed: true},
		"list without its own namespace": {dc: annotated("bench"), ns: "db", reason: cbv1.ReasonNamespaceNotAllowed},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ok, reason, msg := Allows(tc.dc, tc.ns)
			if ok != tc.allowed || reason != tc.reason {
				t.Errorf("Allows = %v, %q; want %v, %q", ok, reason, tc.allowed, tc.reason)
			}
			if !ok && !strings.Contains(msg, cbv1.AllowBenchmarksAnnotation) {
				t.Errorf("message does not say what to do: %q", msg)
			}
		})
	}
}

func TestQueueIsOldestFirstAndStable(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(ns, name string, age time.Duration) cbv1.BenchmarkRun {
		return cbv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(t0.Add(-age))}}
	}
	in := []cbv1.BenchmarkRun{run("a", "young", time.Minute), run("b", "same-second", time.Hour), run("a", "same-second", time.Hour), run("a", "old", 2*time.Hour)}
	var got []string
	for _, r := range Queue(in) {
		got = append(got, r.Namespace+"/"+r.Name)
	}
	want := []string{"a/old", "a/same-second", "b/same-second", "a/young"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestLockHolder(t *testing.T) {
	dc := dcWith()
	if _, ok := LockHolder(dc); ok {
		t.Fatal("an unannotated datacenter is locked")
	}
	dc.Annotations = map[string]string{cbv1.LockAnnotation: "bench/run-1"}
	got, ok := LockHolder(dc)
	if !ok || got.Sweep || got.Namespace != "bench" || got.Name != "run-1" || LockValue(got) != "bench/run-1" {
		t.Fatalf("LockHolder = %v, %v", got, ok)
	}
	// A sweep's lock reads as the sweep's, never as a run of the same name.
	dc.Annotations[cbv1.LockAnnotation] = "sweep:bench/run-1"
	got, ok = LockHolder(dc)
	if !ok || !got.Sweep || got.NamespacedName != (types.NamespacedName{Namespace: "bench", Name: "run-1"}) ||
		got == RunHolder(got.NamespacedName) || LockValue(got) != "sweep:bench/run-1" {
		t.Fatalf("LockHolder of a sweep's lock = %v, %v", got, ok)
	}
	if s := got.String(); s != "BenchmarkSweep bench/run-1" {
		t.Errorf("String() = %q", s)
	}
}

func TestNativePort(t *testing.T) {
	dc := dcWith()
	if p := NativePort(dc); p != 9042 {
		t.Errorf("default port %d", p)
	}
	dc.Spec.Config = json.RawMessage(`{"cassandra-yaml":{"native_transport_port":9142}}`)
	if p := NativePort(dc); p != 9142 {
		t.Errorf("configured port %d", p)
	}
}
