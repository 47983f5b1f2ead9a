package local

import (
	"context"
	"strings"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// TestRunAcrossTwoDatacentersOfOneCluster adds a second one-node CassandraDatacenter, dc2, to
// the environment's cluster: the real cass-operator makes its StatefulSet, and its pod's
// rendered cassandra-rackdc.properties (datacenter-info from cass-operator) starts local node
// 2 in dc2 of the same ring. A run across both, its writer in dc1 and an observer in dc2,
// must succeed with dc1's results and a replication-lag distribution measured in dc2, and
// give both datacenters back. dc2 is deleted at the end, so the other scenarios find one
// datacenter and one node.
func TestRunAcrossTwoDatacentersOfOneCluster(t *testing.T) {
	const name = "two-dcs"
	env, ctx := scenario(t, name)
	dc2 := addDatacenter(ctx, t, env, "dc2")

	run := newRun(env, name).Writers(1).Rate(200).Concurrency(4).Mix(1, 0).Duration(20*time.Second).
		Datacenters(cbv1.RunDatacenter{Name: env.Datacenter, Writers: 1}, cbv1.RunDatacenter{Name: dc2.Name, Observers: 1}).Obj()
	run.Spec.Schema.Replication = cbv1.Replication{
		Strategy:    cbv1.NetworkTopologyStrategy,
		Datacenters: []cbv1.DatacenterReplication{{Name: env.Datacenter, Factor: 1}, {Name: dc2.Name, Factor: 1}},
	}
	run.Spec.ReplicationLag = &cbv1.ReplicationLagSpec{SampleShare: "0.2", Limit: &metav1.Duration{Duration: 10 * time.Second}}
	create(ctx, t, env, run)
	done := waitFinished(ctx, t, env, name, 10*time.Minute)
	if c := cond(done, cbv1.ConditionSucceeded); c.Status != metav1.ConditionTrue {
		t.Fatalf("run did not succeed: %s/%s: %s\n%s", c.Status, c.Reason, c.Message, conditions(done))
	}
	res := done.Status.Results
	if res == nil {
		t.Fatal("no results")
	}
	var names []string
	for _, d := range res.Datacenters {
		names = append(names, d.Name)
		if d.Name == env.Datacenter && (d.WritersReported != 1 || d.Operations == 0 || d.Writes == nil) {
			t.Errorf("%s's results: %+v; want its writer's inserts", d.Name, d)
		}
	}
	if !strings.Contains(strings.Join(names, ","), env.Datacenter) {
		t.Errorf("per-datacenter results name %v; want %s among them", names, env.Datacenter)
	}
	l := res.ReplicationLag
	if l == nil || l.ObservedDatacenter != dc2.Name || l.Seen == 0 || l.Lag == nil || l.Lag.Max < l.Lag.P50 {
		t.Fatalf("replication lag %+v: want keys seen in %s with a distribution", l, dc2.Name)
	}
	if l.Censored != 0 {
		t.Errorf("%d of %d sampled keys not seen in %s within %dms on a healthy cluster", l.Censored, l.Seen+l.Censored, dc2.Name, l.LimitMillis)
	}
	if c := cond(done, cbv1.ConditionReplicationKeptUp); c.Status != metav1.ConditionTrue || c.Reason != cbv1.ReasonKeysSeen {
		t.Errorf("ReplicationKeptUp %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	t.Logf("replication lag dc1 -> dc2: %d keys seen, p50 %dµs, p99 %dµs, max %dµs, bound %dµs",
		l.Seen, l.Lag.P50, l.Lag.P99, l.Lag.Max, l.BoundMicros)
	for _, key := range []types.NamespacedName{env.DatacenterKey(), {Namespace: env.Namespace, Name: dc2.Name}} {
		dc := &cassdcapi.CassandraDatacenter{}
		if err := env.Client.Get(ctx, key, dc); err != nil {
			t.Fatal(err)
		}
		if holder, ok := dc.Annotations[cbv1.LockAnnotation]; ok || dc.Spec.Size != 1 {
			t.Errorf("%s not given back: size %d, lock %q", key.Name, dc.Spec.Size, holder)
		}
	}
}

// addDatacenter creates a one-node CassandraDatacenter of the environment's cluster, opted in
// like the environment's own, waits until cass-operator reports it ready, and deletes it when
// the test ends, waiting until it is gone and its node stopped.
func addDatacenter(ctx context.Context, t *testing.T, env *Env, name string) *cassdcapi.CassandraDatacenter {
	t.Helper()
	dc := builders.MakeDatacenter(name, env.Namespace).Cluster(env.Cluster).ServerVersion(cassandraVersion()).
		AllowBenchmarks("true").Annotation(cbv1.AllowDropKeyspacesAnnotation, "local_*").Obj()
	if err := env.Client.Create(ctx, dc); err != nil {
		t.Fatalf("creating CassandraDatacenter %s: %v", name, err)
	}
	key := types.NamespacedName{Namespace: env.Namespace, Name: name}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if err := env.Client.Delete(ctx, dc); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting %s: %v", name, err)
			return
		}
		err := wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
			err := env.Client.Get(ctx, key, &cassdcapi.CassandraDatacenter{})
			return apierrors.IsNotFound(err) && len(env.Nodes.Running()) == 1, nil
		})
		if err != nil {
			t.Errorf("%s not gone with its node within 5 minutes (running nodes %v)", name, env.Nodes.Running())
		}
	})
	start := time.Now()
	err := wait.PollUntilContextTimeout(ctx, time.Second, 6*time.Minute, true, func(ctx context.Context) (bool, error) {
		got := &cassdcapi.CassandraDatacenter{}
		return env.Client.Get(ctx, key, got) == nil && applied(got), nil
	})
	if err != nil {
		t.Fatalf("%s not ready within 6 minutes (running nodes %v)", name, env.Nodes.Running())
	}
	t.Logf("%s ready in %s, nodes running %v", name, time.Since(start).Round(time.Second), env.Nodes.Running())
	return dc
}
