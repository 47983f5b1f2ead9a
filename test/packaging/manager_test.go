package packaging_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/controllers"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// The manager, holding exactly the chart's ClusterRole and leader-election Role (nothing
// from config/rbac), elects itself and takes a run from start to restored datacenter. A
// permission the controller needs but the chart does not grant fails this test.
func TestManagerCompletesARunWithTheChartsRBAC(t *testing.T) {
	ns := env.Namespace(t)
	objs := renderChart(t, "cassbench", ns, "")
	roles := writeObjects(t, find(t, objs, "ClusterRole", "cassbench-manager"), find(t, objs, "Role", "cassbench-leader-election"))
	cfg := env.ServiceAccountConfig(t, ns, "cassbench-manager", roles)
	startManager(t, cfg, controllers.Options{LeaderElect: true, LeaderElectionNamespace: ns})
	playRun(t, ns)
}

// With watchNamespaces, the chart binds the manager's ClusterRole in the watched namespaces
// only (RoleBindings) and passes --watch-namespaces. Applied as rendered, that is enough to
// take a run through in a watched namespace, and a run elsewhere is never touched.
func TestManagerWatchingOneNamespaceWithTheChartsRBAC(t *testing.T) {
	system, watched, other := env.Namespace(t), env.Namespace(t), env.Namespace(t)
	release := "t-" + system[len(system)-5:]
	objs := renderChart(t, release, system, "watchNamespaces: ["+watched+"]\n")
	var rbac []*unstructured.Unstructured
	for _, o := range objs {
		switch o.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			rbac = append(rbac, o)
		}
	}
	applyForReal(t, rbac)
	account := find(t, objs, "ServiceAccount", "")
	user := "system:serviceaccount:" + system + ":" + account.GetName()
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + system, "system:authenticated"}
	waitAccess(t, user, groups, authorizationv1.ResourceAttributes{Namespace: watched, Verb: "list", Group: cbv1.GroupVersion.Group, Resource: "benchmarkruns"}, true)
	waitAccess(t, user, groups, authorizationv1.ResourceAttributes{Namespace: system, Verb: "create", Group: "coordination.k8s.io", Resource: "leases"}, true)
	waitAccess(t, user, groups, authorizationv1.ResourceAttributes{Namespace: other, Verb: "list", Group: cbv1.GroupVersion.Group, Resource: "benchmarkruns"}, false)
	waitAccess(t, user, groups, authorizationv1.ResourceAttributes{Verb: "list", Group: cbv1.GroupVersion.Group, Resource: "benchmarkruns"}, false)

	// A run the manager must not see: its namespace is not watched.
	outside := createReadyDatacenter(t, other)
	ignored := builders.MakeBenchmarkRun("ignored", other).Datacenter(outside.Name).Writers(1).Duration(10 * time.Second).Obj()
	pl.Create(t, ignored)

	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	startManager(t, cfg, controllers.Options{LeaderElect: true, LeaderElectionNamespace: system, WatchNamespaces: []string{watched}})
	playRun(t, watched)

	got := pl.Run(t, ignored)
	if len(got.Finalizers) != 0 || len(got.Status.Conditions) != 0 {
		t.Errorf("a run in an unwatched namespace was reconciled: finalizers %v, conditions %+v", got.Finalizers, got.Status.Conditions)
	}
	if _, locked := pl.Datacenter(t, outside).Annotations[cbv1.LockAnnotation]; locked {
		t.Error("a datacenter in an unwatched namespace was locked")
	}
}

const originalConfig = `{"cassandra-yaml":{"num_tokens":16}}`

func createReadyDatacenter(t *testing.T, ns string) *cassdcapi.CassandraDatacenter {
	t.Helper()
	dc := builders.MakeDatacenter("dc1", ns).Cluster("c1").Size(1).Config(originalConfig).AllowBenchmarks("true").Obj()
	pl.Create(t, dc)
	pl.Settle(t, dc)
	return dc
}

// playRun takes a run that scales a 1-node datacenter to 3 through setup and two writers,
// playing cass-operator and the kubelet, and checks what it measured and gave back.
func playRun(t *testing.T, ns string) {
	t.Helper()
	dc := createReadyDatacenter(t, ns)
	gen := pl.Datacenter(t, dc).Generation
	run := builders.MakeBenchmarkRun("chart-rbac", ns).Datacenter(dc.Name).Size(3).
		CassandraYaml(map[string]any{"concurrent_writes": 64}).Writers(2).Duration(10 * time.Second).Obj()
	pl.Create(t, run)
	pl.PassPreflight(t, run)
	pl.OperatorApplies(t, dc, gen)
	if got := pl.Datacenter(t, dc); got.Spec.Size != 3 || got.Annotations[cbv1.LockAnnotation] != ns+"/"+run.Name {
		t.Fatalf("datacenter not taken: size %d, annotations %v", got.Spec.Size, got.Annotations)
	}

	setup := pl.WaitJob(t, ns, jobs.SetupName(run))
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{CassandraVersion: "5.0.4", Nodes: 3})}})
	pl.FinishJob(t, setup, []int32{0}, nil)
	writers := pl.WaitJob(t, ns, jobs.WriterName(run))
	pl.Pods(t, writers, map[int32]play.PodResult{0: {Message: play.WriterSummary(t, 0, 2, 1000, "")}, 1: {Message: play.WriterSummary(t, 1, 2, 2000, "")}})
	pl.FinishJob(t, writers, []int32{0, 1}, nil)

	done := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionTrue, cbv1.ReasonSucceeded)
	if r := done.Status.Results; r == nil || r.Operations != 3000 || r.WritersReported != 2 {
		t.Errorf("results %+v, want 3000 operations from 2 writers", r)
	}
	if c := meta.FindStatusCondition(done.Status.Conditions, cbv1.ConditionDatacenterRestored); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("DatacenterRestored: %+v", c)
	}
	restored := pl.Datacenter(t, dc)
	if restored.Spec.Size != 1 || !datacenter.SameJSON(restored.Spec.Config, json.RawMessage(originalConfig)) {
		t.Errorf("not restored: size %d config %s", restored.Spec.Size, restored.Spec.Config)
	}
	if _, locked := restored.Annotations[cbv1.LockAnnotation]; locked {
		t.Error("lock not released")
	}
}

// startManager runs the manager as the command does, with test-sized intervals and no
// listeners, until the test ends.
func startManager(t *testing.T, cfg *rest.Config, o controllers.Options) {
	t.Helper()
	o.MetricsAddr, o.ProbeAddr = "0", "0"
	o.Image = play.Image
	o.ProgressInterval = 500 * time.Millisecond
	o.SkipNameValidation = true
	mgr, err := controllers.NewManager(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager stopped: %v", err)
		}
	})
}

// writeObjects writes objects to a multi-document file for Env.ServiceAccountConfig (JSON is
// YAML) and returns its path.
func writeObjects(t *testing.T, objs ...*unstructured.Unstructured) string {
	t.Helper()
	var docs []string
	for _, o := range objs {
		b, err := json.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	path := filepath.Join(t.TempDir(), "roles.yaml")
	if err := os.WriteFile(path, []byte(strings.Join(docs, "\n---\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitAccess waits until the RBAC authorizer, which sees bindings through an informer,
// answers allowed for the user; a denial expected is checked once the grants are visible.
func waitAccess(t *testing.T, user string, groups []string, attrs authorizationv1.ResourceAttributes, allowed bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	check := func(ctx context.Context) (bool, error) {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: groups, ResourceAttributes: &attrs}}
		if err := env.Client.Create(ctx, review); err != nil {
			return false, err
		}
		return review.Status.Allowed, nil
	}
	if !allowed {
		got, err := check(ctx)
		if err != nil || got {
			t.Fatalf("%s may %s %s/%s in %q (err %v); the chart should not grant it", user, attrs.Verb, attrs.Group, attrs.Resource, attrs.Namespace, err)
		}
		return
	}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, check); err != nil {
		t.Fatalf("waiting for RBAC to let %s %s %s/%s in %q: %v", user, attrs.Verb, attrs.Group, attrs.Resource, attrs.Namespace, err)
	}
}
