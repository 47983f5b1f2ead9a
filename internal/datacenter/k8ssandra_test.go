package datacenter

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// managedBy labels a datacenter as k8ssandra-operator 1.32's NewDatacenter does.
func managedBy(cluster, namespace string) dcOpt {
	return func(dc *cassdcapi.CassandraDatacenter) {
		dc.Labels = map[string]string{
			"app.kubernetes.io/name":         "k8ssandra-operator",
			"app.kubernetes.io/part-of":      "k8ssandra",
			"app.kubernetes.io/component":    "cassandra",
			"k8ssandra.io/cleaned-up-by":     "k8ssandracluster-controller",
			"k8ssandra.io/cluster-name":      cluster,
			"k8ssandra.io/cluster-namespace": namespace,
		}
		dc.Finalizers = []string{"k8ssandracluster.k8ssandra.io/finalizer"}
	}
}

func labels(kv ...string) dcOpt {
	return func(dc *cassdcapi.CassandraDatacenter) {
		dc.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			dc.Labels[kv[i]] = kv[i+1]
		}
	}
}

func TestK8ssandraOwner(t *testing.T) {
	cases := map[string]struct {
		dc   *cassdcapi.CassandraDatacenter
		want *types.NamespacedName
	}{
		"plain cass-operator datacenter": {dc: dcWith()},
		"k8ssandra-operator 1.32": {dc: dcWith(managedBy("demo", "k8ssandra-operator")),
			want: &types.NamespacedName{Namespace: "k8ssandra-operator", Name: "demo"}},
		"before 1.8: created-by": {dc: dcWith(labels("app.kubernetes.io/created-by", "k8ssandracluster-controller",
			"k8ssandra.io/cluster-name", "demo", "k8ssandra.io/cluster-namespace", "k8ssandra-operator")),
			want: &types.NamespacedName{Namespace: "k8ssandra-operator", Name: "demo"}},
		"the finalizer marks it when a label was edited away": {dc: dcWith(labels("k8ssandra.io/cluster-name", "demo"),
			func(dc *cassdcapi.CassandraDatacenter) {
				dc.Finalizers = []string{"k8ssandracluster.k8ssandra.io/finalizer"}
			}), want: &types.NamespacedName{Namespace: "db", Name: "demo"}},
		"cluster name without a controller's mark": {dc: dcWith(labels("k8ssandra.io/cluster-name", "demo",
			"k8ssandra.io/cluster-namespace", "k8ssandra-operator"))},
		"controller's mark without a cluster name": {dc: dcWith(labels("k8ssandra.io/cleaned-up-by", "k8ssandracluster-controller"))},
		"another controller's mark": {dc: dcWith(labels("app.kubernetes.io/created-by", "cass-operator",
			"k8ssandra.io/cluster-name", "demo"))},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := K8ssandraOwner(tc.dc)
			var gotp *types.NamespacedName
			if ok {
				gotp = &got
			}
			if diff := cmp.Diff(tc.want, gotp); diff != "" {
				t.Errorf("K8ssandraOwner (-want +got):\n%s", diff)
			}
		})
	}
}

func TestChanges(t *testing.T) {
	const config = `{"cassandra-yaml":{"concurrent_writes":32,"num_tokens":16},"jvm-server-options":{"max_heap_size":"4G"}}`
	dc := dcWith(func(dc *cassdcapi.CassandraDatacenter) {
		dc.Spec.Size = 3
		dc.Spec.Config = json.RawMessage(config)
	})
	cases := map[string]struct {
		dc     *cassdcapi.CassandraDatacenter
		tuning *cbv1.DatacenterTuning
		want   []string
	}{
		"no tuning":                           {dc: dc},
		"empty tuning":                        {dc: dc, tuning: &cbv1.DatacenterTuning{}},
		"the size it has":                     {dc: dc, tuning: &cbv1.DatacenterTuning{Size: ptr.To[int32](3)}},
		"values it has, reordered":            {dc: dc, tuning: &cbv1.DatacenterTuning{Config: &cbv1.DatacenterConfig{CassandraYaml: raw(`{"num_tokens":16,"concurrent_writes":32}`)}}},
		"keep changes asks nothing by itself": {dc: dc, tuning: &cbv1.DatacenterTuning{KeepChanges: true}},
		"another size": {dc: dc, tuning: &cbv1.DatacenterTuning{Size: ptr.To[int32](5)},
			want: []string{"size from 3 to 5"}},
		"another value": {dc: dc, tuning: &cbv1.DatacenterTuning{Config: &cbv1.DatacenterConfig{CassandraYaml: raw(`{"concurrent_writes":64}`)}},
			want: []string{"config (cassandra-yaml)"}},
		"a new key in a section": {dc: dc, tuning: &cbv1.DatacenterTuning{Config: &cbv1.DatacenterConfig{JvmServerOptions: raw(`{"initial_heap_size":"4G"}`)}},
			want: []string{"config (jvm-server-options)"}},
		"a new section on a datacenter without config": {dc: dcWith(func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.Size = 3 }),
			tuning: &cbv1.DatacenterTuning{Config: &cbv1.DatacenterConfig{CassandraYaml: raw(`{"concurrent_writes":64}`)}},
			want:   []string{"config (cassandra-yaml)"}},
		"size and two sections, one unchanged": {dc: dc, tuning: &cbv1.DatacenterTuning{Size: ptr.To[int32](1), Config: &cbv1.DatacenterConfig{
			CassandraYaml: raw(`{"concurrent_writes":32}`), JvmServerOptions: raw(`{"max_heap_size":"8G"}`), CassandraEnvSh: raw(`{"malloc-arena-max":4}`)}},
			want: []string{"size from 3 to 1", "config (cassandra-env-sh, jvm-server-options)"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Changes(tc.dc, tc.tuning)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Changes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestK8ssandraManaged(t *testing.T) {
	managed := dcWith(managedBy("demo", "k8ssandra-operator"), func(dc *cassdcapi.CassandraDatacenter) {
		dc.Spec.Size = 3
		dc.Spec.Config = json.RawMessage(`{"cassandra-yaml":{"concurrent_writes":32}}`)
	})
	plain := managed.DeepCopy()
	plain.Labels, plain.Finalizers = nil, nil
	cases := map[string]struct {
		dc     *cassdcapi.CassandraDatacenter
		tuning *cbv1.DatacenterTuning
		reason string
		says   []string
	}{
		"a run that changes nothing":           {dc: managed, tuning: &cbv1.DatacenterTuning{Size: ptr.To[int32](3)}},
		"a run without tuning":                 {dc: managed},
		"a plain datacenter is tuned as usual": {dc: plain, tuning: &cbv1.DatacenterTuning{Size: ptr.To[int32](5)}},
		"a size change": {dc: managed, tuning: &cbv1.DatacenterTuning{Size: ptr.To[int32](5)},
			reason: cbv1.ReasonDatacenterManagedByK8ssandra,
			says: []string{"CassandraDatacenter db/dc1 is managed by K8ssandraCluster k8ssandra-operator/demo", "the run would change its size from 3 to 5",
				"change the datacenter's entry in K8ssandraCluster k8ssandra-operator/demo (spec.cassandra.datacenters[] named dc1: size, config.cassandraYaml, config.jvmOptions)",
				"run with no spec.datacenter size or config"}},
		"a config change": {dc: managed, tuning: &cbv1.DatacenterTuning{Config: &cbv1.DatacenterConfig{CassandraYaml: raw(`{"concurrent_writes":64}`)}},
			reason: cbv1.ReasonDatacenterManagedByK8ssandra, says: []string{"would change its config (cassandra-yaml)"}},
		"a config that does not decode": {dc: managed, tuning: &cbv1.DatacenterTuning{Config: &cbv1.DatacenterConfig{CassandraYaml: raw(`[1`)}},
			reason: cbv1.ReasonInvalidSpec, says: []string{"spec.datacenter.config.cassandra-yaml"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reason, msg := K8ssandraManaged(tc.dc, tc.tuning, "the run")
			if reason != tc.reason {
				t.Fatalf("reason %q, want %q (%s)", reason, tc.reason, msg)
			}
			for _, s := range tc.says {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q does not say %q", msg, s)
				}
			}
		})
	}
}
