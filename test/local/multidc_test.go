package local

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
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
// give both datacenters back; a second run with dc2's node unreachable must say so
// (remoteDown). dc2 is deleted at the end, so the other scenarios find one datacenter and
// one node.
func TestRunAcrossTwoDatacentersOfOneCluster(t *testing.T) {
	const name, down = "two-dcs", "two-dcs-remote-down"
	env, ctx := scenario(t, name, down)
	dc2 := addDatacenter(ctx, t, env, "dc2")

	create(ctx, t, env, twoDatacenterRun(env, name, dc2.Name, 20*time.Second))
	done := waitFinished(ctx, t, env, name, 10*time.Minute)
	if c := cond(done, cbv1.ConditionSucceeded); c.Status != metav1.ConditionTrue {
		t.Fatalf("run did not succeed: %s/%s: %s\n%s", c.Status, c.Reason, c.Message, conditions(done))
	}
	res := done.Status.Results
	if res == nil {
		t.Fatal("no results")
	}
	var names []string
	found := false
	for _, d := range res.Datacenters {
		names = append(names, d.Name)
		if d.Name != env.Datacenter {
			continue
		}
		found = true
		if d.WritersReported != 1 || d.Operations == 0 || d.Writes == nil {
			t.Errorf("%s's results: %+v; want its writer's inserts", d.Name, d)
		}
	}
	if !found {
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
	t.Logf("replication lag %s -> %s: %d keys seen, p50 %dµs, p99 %dµs, max %dµs, bound %dµs",
		env.Datacenter, dc2.Name, l.Seen, l.Lag.P50, l.Lag.P99, l.Lag.Max, l.BoundMicros)
	givenBack(ctx, t, env, dc2.Name)

	remoteDown(ctx, t, env, down, dc2.Name)
}

// twoDatacenterRun writes in the environment's datacenter at LOCAL_QUORUM, so that the
// writes do not wait for the remote one, and observes a fifth of its inserts in remote.
func twoDatacenterRun(env *Env, name, remote string, d time.Duration) *cbv1.BenchmarkRun {
	run := newRun(env, name).Writers(1).Rate(200).Concurrency(4).Mix(1, 0).Duration(d).
		WriteConsistency("LOCAL_QUORUM").
		Datacenters(cbv1.RunDatacenter{Name: env.Datacenter, Writers: 1}, cbv1.RunDatacenter{Name: remote, Observers: 1}).Obj()
	run.Spec.Schema.Replication = cbv1.Replication{
		Strategy:    cbv1.NetworkTopologyStrategy,
		Datacenters: []cbv1.DatacenterReplication{{Name: env.Datacenter, Factor: 1}, {Name: remote, Factor: 1}},
	}
	run.Spec.ReplicationLag = &cbv1.ReplicationLagSpec{SampleShare: "0.2", Limit: &metav1.Duration{Duration: 5 * time.Second}}
	return run
}

// remoteDown runs again with the remote datacenter's node unreachable for most of the
// window: its JVM is paused (SIGSTOP) 3 s after the writer started measuring, as a
// partitioned node looks to its peers, and resumed before the window ends. The writes go on at LOCAL_QUORUM; the
// observer's reads of the keys written meanwhile find nothing within the limit, and node 1
// keeps the remote replica's writes as hints. The run must say so: keys not seen, counted
// apart from the lag, a ReplicationKeptUp condition naming the datacenter, and hints stored
// in the server evidence.
func remoteDown(ctx context.Context, t *testing.T, env *Env, name, remote string) {
	t.Helper()
	create(ctx, t, env, twoDatacenterRun(env, name, remote, 40*time.Second))
	// Paused once the writer measures: its observer then has its session in the remote
	// datacenter. A node paused before would fail the writer at its start (the observer could
	// not connect), which is another run than the one this shows; on a loaded machine the
	// writer pod can start well after the run is Running.
	waitWriterMeasuring(ctx, t, env, name, 0)
	time.Sleep(3 * time.Second)
	pid := env.Nodes.PID(2)
	if pid == 0 {
		t.Fatal("node 2 does not run")
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("pausing node 2: %v", err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
				t.Errorf("resuming node 2: %v", err)
			}
		}
	}
	t.Cleanup(resume)
	time.Sleep(25 * time.Second)
	resume()
	done := waitFinished(ctx, t, env, name, 10*time.Minute)
	t.Logf("run with %s unreachable for 25 s: %s", remote, conditions(done))
	res := done.Status.Results
	if res == nil || res.ReplicationLag == nil {
		t.Fatalf("no replication lag in the results: %+v", res)
	}
	l := res.ReplicationLag
	if l.Censored == 0 {
		t.Errorf("replication lag %+v: want keys not seen in %s while it was unreachable", l, remote)
	}
	if c := cond(done, cbv1.ConditionReplicationKeptUp); c.Status != metav1.ConditionFalse || c.Reason != cbv1.ReasonKeysNotSeen ||
		!strings.Contains(c.Message, "not readable in "+remote) {
		t.Errorf("ReplicationKeptUp %s/%s: %s; want False/%s naming %s", c.Status, c.Reason, c.Message, cbv1.ReasonKeysNotSeen, remote)
	}
	var hints int64
	if res.Server != nil && res.Server.Timeline != nil {
		for _, p := range res.Server.Timeline.Points {
			hints += p.HintsStored
		}
	}
	if hints == 0 {
		t.Errorf("no hints stored in the server evidence (results.server: %+v)", res.Server)
	}
	t.Logf("%d of %d sampled keys not seen in %s, %d read errors; %d hints stored", l.Censored, l.Seen+l.Censored, remote, l.ReadErrors, hints)
	givenBack(ctx, t, env, remote)
}

// givenBack checks that both datacenters are unlocked at their one node.
func givenBack(ctx context.Context, t *testing.T, env *Env, remote string) {
	t.Helper()
	for _, key := range []types.NamespacedName{env.DatacenterKey(), {Namespace: env.Namespace, Name: remote}} {
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
//
// system_auth is handled as an operator adding a datacenter does: on a new cluster it is
// SimpleStrategy with one replica, so the new node would take the tokens of some roles and
// logins, read at LOCAL_QUORUM, would find no replica where they look ("Cannot achieve
// consistency level LOCAL_QUORUM"). It is placed in the environment's datacenter before the
// new one is created (Cassandra refuses a datacenter it does not know yet), in both once the
// new node has joined, and the new node rebuilds it from the first (nodetool rebuild), so
// that the observers' logins in the new datacenter find their role there.
//
// The datacenter is annotated decommission-on-delete: cass-operator v1.31's ProcessDeletion
// (reconcile_datacenter.go) then decommissions its node (forced, through the management
// API) before it deletes it, so the ring the other scenarios use keeps no down node owning
// tokens; without it the StatefulSet is only scaled to 0. system_auth goes back to the first
// datacenter alone once the node has left (Cassandra refuses it while the node is up).
func addDatacenter(ctx context.Context, t *testing.T, env *Env, name string) *cassdcapi.CassandraDatacenter {
	t.Helper()
	user := superuser(ctx, t, env)
	authReplication(ctx, t, user, fmt.Sprintf("{'class': 'NetworkTopologyStrategy', '%s': 1}", env.Datacenter))
	dc := builders.MakeDatacenter(name, env.Namespace).Cluster(env.Cluster).ServerVersion(cassandraVersion()).
		AllowBenchmarks("true").Annotation(cbv1.AllowDropKeyspacesAnnotation, "local_*").
		Annotation(cassdcapi.DecommissionOnDeleteAnnotation, "true").Obj()
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
			return
		}
		authReplication(ctx, t, user, fmt.Sprintf("{'class': 'NetworkTopologyStrategy', '%s': 1}", env.Datacenter))
	})
	start := time.Now()
	both := fmt.Sprintf("{'class': 'NetworkTopologyStrategy', '%s': 1, '%s': 1}", env.Datacenter, name)
	var last error
	err := wait.PollUntilContextTimeout(ctx, 2*time.Second, 6*time.Minute, true, func(ctx context.Context) (bool, error) {
		last = alterAuth(user, both)
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("%s's node never joined (running nodes %v): %v", name, env.Nodes.Running(), last)
	}
	var out bytes.Buffer
	if err := nodesCluster(&out).Nodetool(ctx, 2, &out, &out, "rebuild", "--keyspace", "system_auth", "--", env.Datacenter); err != nil {
		t.Fatalf("rebuilding system_auth on node 2: %v\n%s", err, out.String())
	}
	err = wait.PollUntilContextTimeout(ctx, time.Second, 6*time.Minute, true, func(ctx context.Context) (bool, error) {
		got := &cassdcapi.CassandraDatacenter{}
		return env.Client.Get(ctx, key, got) == nil && applied(got), nil
	})
	if err != nil {
		t.Fatalf("%s not ready within 6 minutes (running nodes %v)", name, env.Nodes.Running())
	}
	t.Logf("%s ready in %s, nodes running %v", name, time.Since(start).Round(time.Second), env.Nodes.Running())
	return dc
}

// superuser is the credentials of the cluster's superuser Secret, which cass-operator made:
// its logins read at LOCAL_QUORUM, where the default superuser's read at QUORUM of every
// datacenter's replicas.
func superuser(ctx context.Context, t *testing.T, env *Env) gocql.PasswordAuthenticator {
	t.Helper()
	dc := &cassdcapi.CassandraDatacenter{}
	if err := env.Client.Get(ctx, env.DatacenterKey(), dc); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{}
	if err := env.Client.Get(ctx, dc.GetSuperuserSecretNamespacedName(), secret); err != nil {
		t.Fatalf("the superuser Secret: %v", err)
	}
	return gocql.PasswordAuthenticator{Username: string(secret.Data["username"]), Password: string(secret.Data["password"])}
}

// authReplication sets system_auth's replication through node 1.
func authReplication(ctx context.Context, t *testing.T, user gocql.PasswordAuthenticator, replication string) {
	t.Helper()
	if err := alterAuth(user, replication); err != nil {
		t.Errorf("system_auth replication %s: %v", replication, err)
	}
}

func alterAuth(user gocql.PasswordAuthenticator, replication string) error {
	c := gocql.NewCluster(NodeIP(1))
	c.Authenticator = user
	c.Timeout = 30 * time.Second
	c.HostFilter = gocql.WhiteListHostFilter(NodeIP(1))
	s, err := c.CreateSession()
	if err != nil {
		return fmt.Errorf("connecting to node 1: %w", err)
	}
	defer s.Close()
	return s.Query("ALTER KEYSPACE system_auth WITH replication = " + replication).Exec()
}
