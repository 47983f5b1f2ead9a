package local

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/tier"
)

// The environment is shared by the package's scenarios and started by the first of them, so
// the unit tests of the harness run without it.
var (
	envOnce   sync.Once
	sharedEnv *Env
	envErr    error
)

func TestMain(m *testing.M) {
	tier.Main(tier.Local)
	RunShimIfRequested() // the pod runner starts containers through this binary
	code := m.Run()
	if sharedEnv != nil {
		sharedEnv.Stop()
		if code == 0 {
			_ = sharedEnv.Remove()
		} else {
			fmt.Fprintf(os.Stderr, "local: kept %s (logs, pod files)\n", sharedEnv.Dir)
		}
	}
	os.Exit(code)
}

// environment returns the shared environment, starting it on first use.
func environment(t *testing.T) *Env {
	t.Helper()
	envOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		sharedEnv, envErr = Start(ctx, Options{Out: os.Stderr})
	})
	if envErr != nil {
		t.Fatalf("starting the local environment: %v", envErr)
	}
	return sharedEnv
}

// scenario starts a scenario: the environment, and on failure the logs of its runs.
func scenario(t *testing.T, runs ...string) (*Env, context.Context) {
	t.Helper()
	env := environment(t)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	t.Cleanup(cancel)
	t.Cleanup(func() {
		t.Logf("scenario took %s", time.Since(start).Round(time.Second))
		if t.Failed() {
			var b bytes.Buffer
			env.DumpLogs(&b, runs...)
			t.Log("\n" + b.String())
		}
	})
	return env, ctx
}

// newRun is a run on the environment's datacenter with its own keyspace, recreated.
func newRun(env *Env, name string) *builders.BenchmarkRunBuilder {
	b := builders.MakeBenchmarkRun(name, env.Namespace).Datacenter(env.Datacenter).
		Keyspace("local_" + strings.ReplaceAll(name, "-", "_"))
	b.Obj().Spec.Schema.Recreate = true
	return b
}

func create(ctx context.Context, t *testing.T, env *Env, run *cbv1.BenchmarkRun) {
	t.Helper()
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatalf("creating BenchmarkRun %s: %v", run.Name, err)
	}
}

// waitFinished polls until the run has its Succeeded condition.
func waitFinished(ctx context.Context, t *testing.T, env *Env, name string, timeout time.Duration) *cbv1.BenchmarkRun {
	t.Helper()
	return waitRun(ctx, t, env, name, timeout, "finished", func(r *cbv1.BenchmarkRun) bool {
		return meta.FindStatusCondition(r.Status.Conditions, cbv1.ConditionSucceeded) != nil
	})
}

// waitRun polls a run every 200 ms until done says so.
func waitRun(ctx context.Context, t *testing.T, env *Env, name string, timeout time.Duration, what string, done func(*cbv1.BenchmarkRun) bool) *cbv1.BenchmarkRun {
	t.Helper()
	deadline := time.Now().Add(timeout)
	run := &cbv1.BenchmarkRun{}
	for {
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: env.Namespace, Name: name}, run)
		if err == nil && done(run) {
			return run
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("BenchmarkRun %s not %s within %s (phase %q, err %v); conditions:\n%s", name, what, timeout, run.Status.Phase, err, conditions(run))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func conditions(run *cbv1.BenchmarkRun) string {
	var b strings.Builder
	for _, c := range run.Status.Conditions {
		fmt.Fprintf(&b, "  %s=%s %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	return b.String()
}

// cond returns a condition of the run, or the zero condition.
func cond(run *cbv1.BenchmarkRun, t string) metav1.Condition {
	if c := meta.FindStatusCondition(run.Status.Conditions, t); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// checkRestored checks that the datacenter is back as the environment created it, in the
// spec and on the real nodes: one node, the base config and heap, no lock.
func checkRestored(ctx context.Context, t *testing.T, env *Env) {
	t.Helper()
	if err := env.WaitDatacenterSettled(ctx, 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	dc := &cassdcapi.CassandraDatacenter{}
	if err := env.Client.Get(ctx, env.DatacenterKey(), dc); err != nil {
		t.Fatal(err)
	}
	if dc.Spec.Size != 1 || len(dc.Spec.Config) != 0 {
		t.Errorf("datacenter spec: size %d, config %s; want size 1 and no config", dc.Spec.Size, dc.Spec.Config)
	}
	if holder, ok := dc.Annotations[cbv1.LockAnnotation]; ok {
		t.Errorf("datacenter still locked by %s", holder)
	}
	if got := env.Nodes.Running(); len(got) != 1 || got[0] != 1 {
		t.Errorf("running Cassandra nodes: %v, want [1]", got)
	}
	if heap := env.Nodes.HeapOf(1); heap != env.Heap {
		t.Errorf("node 1 runs with -Xmx%s, want %s", heap, env.Heap)
	}
	if got := nodeSetting(ctx, t, 1, "concurrent_writes"); got != "32" {
		t.Errorf("node 1 concurrent_writes = %q, want the base config's 32", got)
	}
}

// session connects to the local cluster as the superuser, the way an independent client does.
func session(t *testing.T, hosts ...string) *gocql.Session {
	t.Helper()
	c := gocql.NewCluster(hosts...)
	c.Authenticator = gocql.PasswordAuthenticator{Username: Username, Password: Password}
	c.Timeout = 2 * time.Minute
	c.ConnectTimeout = 10 * time.Second
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("connecting to Cassandra at %v: %v", hosts, err)
	}
	t.Cleanup(s.Close)
	return s
}

// nodeSetting reads a setting from node i's own system_views.settings.
func nodeSetting(ctx context.Context, t *testing.T, i int, name string) string {
	t.Helper()
	c := gocql.NewCluster(NodeIP(i))
	c.Authenticator = gocql.PasswordAuthenticator{Username: Username, Password: Password}
	c.Timeout = 30 * time.Second
	// Only this node: virtual tables are node-local.
	c.HostFilter = gocql.WhiteListHostFilter(NodeIP(i))
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("connecting to node %d: %v", i, err)
	}
	defer s.Close()
	var v string
	if err := s.Query("SELECT value FROM system_views.settings WHERE name = ?", name).ScanContext(ctx, &v); err != nil {
		t.Fatalf("reading %s on node %d: %v", name, i, err)
	}
	return v
}
