package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// podStartGrace is the manager's --pod-start-grace here: how long a run's pod may fail to
// start before the run fails.
const podStartGrace = 15 * time.Second

// Options shape the environment.
type Options struct {
	// Namespace, Datacenter and Cluster name the CassandraDatacenter the environment creates
	// (one node, opted in to benchmarks) and backs with local nodes.
	Namespace, Datacenter, Cluster string
	// Heap of a node whose config names none.
	Heap string
	// MaxNodes is the largest size the datacenter can take.
	MaxNodes int
	// Image is the writer image the manager is started with; the pod runner maps its
	// /cassbench to the locally built binary.
	Image string
	// Dir holds binaries, kubeconfigs, logs and pod files; a new directory under /var/tmp when
	// empty (not /tmp: pods get their own /tmp, and their binary must stay visible).
	Dir string
	// Out gets a line per step of starting and stopping, and of the played parts.
	Out io.Writer
}

// Env is a running environment.
type Env struct {
	Options
	Root   string
	Scheme *runtime.Scheme
	// Client is an uncached admin client.
	Client client.Client
	// AdminKubeconfig reaches the apiserver as a member of system:masters.
	AdminKubeconfig string
	// Manager runs the pod of the chart's Deployment: the manager binary, under the chart's
	// ServiceAccount and RBAC.
	Manager *PodRunner
	Runner  *PodRunner
	// Operator runs cass-operator's pod; NodePods the pods of its StatefulSets; Volumes
	// their claims.
	Operator *PodRunner
	NodePods *NodePods
	Volumes  *Volumes
	Nodes    *Nodes

	settledMu sync.Mutex
	settled   map[int64]settle // what the watcher saw of each generation of the datacenter

	cp      *controlPlane
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	logMu   sync.Mutex
	harness *os.File
}

// Start brings up the environment: Cassandra's files, the control plane, the played kubelet,
// provisioner and DNS, cass-operator from its manifests, the datacenter, then cassbench from
// its Helm chart.
func Start(ctx context.Context, o Options) (_ *Env, err error) {
	o = withDefaults(o)
	root, err := kube.RepoRoot()
	if err != nil {
		return nil, err
	}
	scheme, err := kube.NewScheme()
	if err != nil {
		return nil, err
	}
	if o.Dir == "" {
		if o.Dir, err = os.MkdirTemp("/var/tmp", "cassbench-local-"); err != nil {
			return nil, err
		}
	}
	// Pods run as a non-root user and must reach their binary.
	if err := os.Chmod(o.Dir, 0o755); err != nil {
		return nil, err
	}
	e := &Env{Options: o, Root: root, Scheme: scheme}
	if e.harness, err = os.OpenFile(filepath.Join(o.Dir, "harness.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	defer func() {
		if err != nil {
			e.Stop()
		}
	}()

	// Cassandra takes longest; it starts while the binaries build and the control plane
	// comes up.
	e.Nodes = &Nodes{Datacenter: o.Datacenter, Heap: o.Heap, MaxNodes: o.MaxNodes, Logf: e.Logf}
	nodesCtx, cancelNodes := context.WithCancel(ctx)
	defer cancelNodes()
	nodesErr := make(chan error, 1)
	go func() { nodesErr <- e.Nodes.Start(nodesCtx) }()
	fail := func(err error) error {
		// Stop waits for the script, so that Stop can stop what it started.
		cancelNodes()
		if nerr := <-nodesErr; nerr != nil && !errors.Is(nerr, context.Canceled) {
			e.Logf("starting Cassandra: %v", nerr)
		}
		return err
	}

	e.Logf("building the image's binaries with hack/build.sh")
	bin := filepath.Join(o.Dir, "bin")
	if _, err := kube.Run(root, filepath.Join(root, "hack", "build.sh"), bin); err != nil {
		return nil, fail(err)
	}
	if e.cp, err = startControlPlane(ctx, root, o.Dir, o.MaxNodes, scheme, e.Logf); err != nil {
		return nil, fail(err)
	}
	e.Client = e.cp.client
	e.AdminKubeconfig = filepath.Join(o.Dir, "admin.kubeconfig")
	if err := os.WriteFile(e.AdminKubeconfig, e.cp.env.KubeConfig, 0o600); err != nil {
		return nil, fail(err)
	}
	if err := <-nodesErr; err != nil {
		return nil, err
	}

	manifests, operatorBin, err := operatorFiles(root)
	if err != nil {
		return nil, err
	}
	opImage, err := operatorImage(manifests)
	if err != nil {
		return nil, err
	}
	e.Logf("cass-operator: %s from %s, its manager %s", opImage, manifests, operatorBin)
	// The pod's user must reach the binary; the build cache is private to this user.
	if err := copyFile(operatorBin, filepath.Join(bin, "cass-operator-manager")); err != nil {
		return nil, err
	}
	caCert := e.cp.config.CAData
	apiServer := strings.TrimPrefix(e.cp.config.Host, "https://")
	e.Runner = &PodRunner{
		Client:   e.Client,
		Selector: labels.SelectorFromSet(labels.Set{"app.kubernetes.io/managed-by": "cassbench"}),
		Dir:      filepath.Join(o.Dir, "pods"),
		Images: map[string]Image{o.Image: {Commands: map[string]string{
			"/cassbench":        filepath.Join(bin, "cassbench"),
			"/cassbench-writer": filepath.Join(bin, "cassbench-writer"),
		}}},
		Hosts:     func() []HostAlias { return clusterHosts(e.Client) },
		APIServer: apiServer,
		CACert:    caCert,
		Logf:      e.Logf,
	}
	// The chart's Deployment runs the image's /manager; setup and writer pods its /cassbench
	// and /cassbench-writer, through Runner.
	e.Manager = &PodRunner{
		Client:   e.Client,
		Selector: managerSelector,
		Dir:      filepath.Join(o.Dir, "pods"),
		Images: map[string]Image{o.Image: {Commands: map[string]string{
			"/manager": filepath.Join(bin, "manager"),
		}}},
		Hosts:     func() []HostAlias { return clusterHosts(e.Client) },
		APIServer: apiServer,
		CACert:    caCert,
		Logf:      e.Logf,
	}
	e.Operator = &PodRunner{
		Client:   e.Client,
		Selector: labels.SelectorFromSet(labels.Set{"app.kubernetes.io/name": "cass-operator", "control-plane": "controller-manager"}),
		Dir:      filepath.Join(o.Dir, "pods"),
		Images: map[string]Image{opImage: {
			Commands: map[string]string{"/manager": filepath.Join(bin, "cass-operator-manager")},
			User:     &operatorUser,
		}},
		Hosts:     func() []HostAlias { return clusterHosts(e.Client) },
		APIServer: apiServer,
		CACert:    caCert,
		Logf:      e.Logf,
	}
	e.Volumes = &Volumes{Client: e.Client, Dir: filepath.Join(o.Dir, "volumes"), MaxNodes: o.MaxNodes, Logf: e.Logf}
	e.NodePods = &NodePods{Client: e.Client, Dir: filepath.Join(o.Dir, "pods"), Volumes: e.Volumes, Logf: e.Logf, ProbePeriod: 2 * time.Second}
	for _, d := range []string{e.Runner.Dir, e.Volumes.Dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := e.create(ctx, e.Volumes.StorageClass(storageClass)); err != nil {
		return nil, err
	}
	e.settled = map[int64]settle{}
	e.wg.Add(6)
	go func() { defer e.wg.Done(); e.Runner.Run(runCtx) }()
	go func() { defer e.wg.Done(); e.Manager.Run(runCtx) }()
	go func() { defer e.wg.Done(); e.Operator.Run(runCtx) }()
	go func() { defer e.wg.Done(); e.Volumes.Run(runCtx) }()
	go func() { defer e.wg.Done(); e.NodePods.Run(runCtx) }()
	go func() { defer e.wg.Done(); e.watchDatacenter(runCtx) }()
	e.Logf("installing cass-operator from %s", manifests)
	if err := e.installOperator(ctx, manifests); err != nil {
		return nil, err
	}
	if err := e.createDatacenter(ctx); err != nil {
		return nil, err
	}

	if err := e.installChart(ctx); err != nil {
		return nil, err
	}
	if err := e.WaitManager(ctx, 0, 2*time.Minute); err != nil {
		return nil, err
	}
	e.Logf("environment ready in %s", o.Dir)
	return e, nil
}

func withDefaults(o Options) Options {
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if o.Datacenter == "" {
		o.Datacenter = "dc1"
	}
	if o.Cluster == "" {
		o.Cluster = "cluster1"
	}
	if o.Heap == "" {
		o.Heap = "512M"
	}
	if o.MaxNodes == 0 {
		o.MaxNodes = 2
	}
	if o.Image == "" {
		o.Image = "cassbench:local"
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	return o
}

// storageClass is the class the environment's datacenter claims its volumes of.
const storageClass = "standard"

// createDatacenter creates the opted-in one-node datacenter and waits for cass-operator to
// report it ready. cass-operator's webhook judges the create; until its pod serves, the
// apiserver refuses it, and the create is tried again.
func (e *Env) createDatacenter(ctx context.Context) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.Namespace}}
	if err := e.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", e.Namespace, err)
	}
	dc := builders.MakeDatacenter(e.Datacenter, e.Namespace).Cluster(e.Cluster).ServerVersion(cassandraVersion()).
		AllowBenchmarks("true").
		// The tests' keyspaces on the shared cluster may have been created by other builds.
		Annotation(cbv1.AllowDropKeyspacesAnnotation, "local_*").Obj()
	var last error
	err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		last = e.Client.Create(ctx, dc.DeepCopy())
		return last == nil || apierrors.IsAlreadyExists(last), nil
	})
	if err != nil {
		return fmt.Errorf("creating CassandraDatacenter %s (cass-operator's webhook must admit it): %w: %w", e.Datacenter, err, last)
	}
	return e.WaitDatacenterSettled(ctx, 5*time.Minute)
}

// DatacenterKey names the environment's datacenter.
func (e *Env) DatacenterKey() types.NamespacedName {
	return types.NamespacedName{Namespace: e.Namespace, Name: e.Datacenter}
}

// applied tells whether cass-operator reports the datacenter's current generation applied:
// observed, progress Ready, and Ready True.
func applied(dc *cassdcapi.CassandraDatacenter) bool {
	s := dc.Status
	return s.ObservedGeneration == dc.Generation && s.CassandraOperatorProgress == cassdcapi.ProgressReady &&
		s.GetConditionStatus(cassdcapi.DatacenterReady) == corev1.ConditionTrue
}

// settle is what the watcher saw of one generation of the datacenter. The moment cass-operator
// applied it lies after notBefore and no later than seen: a read sent at notBefore still found
// it unapplied, and a later read found it applied. The watcher polls, so seen lags the truth by
// up to a poll and a loaded machine's scheduling; notBefore does not.
type settle struct {
	notBefore time.Time // when the last read that found the generation unapplied was sent
	seen      time.Time // when a read first found it applied
}

// watchDatacenter records, for each generation, the bounds of the moment cass-operator
// reported it applied.
func (e *Env) watchDatacenter(ctx context.Context) {
	for ctx.Err() == nil {
		sent := time.Now()
		dc := &cassdcapi.CassandraDatacenter{}
		if err := e.Client.Get(ctx, e.DatacenterKey(), dc); err == nil {
			e.settledMu.Lock()
			s := e.settled[dc.Generation]
			switch {
			case !applied(dc) && s.seen.IsZero():
				s.notBefore = sent
			case applied(dc) && s.seen.IsZero():
				s.seen = time.Now()
				e.Logf("cass-operator applied generation %d of %s: %d node(s) ready", dc.Generation, e.Datacenter, len(dc.Status.NodeStatuses))
			}
			e.settled[dc.Generation] = s
			e.settledMu.Unlock()
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// SettledAfter is a time before which cass-operator had certainly not yet reported the
// generation applied (a read sent then found it unapplied), and whether it was ever seen applied.
// A generation applied before the watcher first read it has no such time (zero).
func (e *Env) SettledAfter(generation int64) (time.Time, bool) {
	e.settledMu.Lock()
	defer e.settledMu.Unlock()
	s, ok := e.settled[generation]
	return s.notBefore, ok && !s.seen.IsZero()
}

// WaitDatacenterSettled waits until cass-operator has applied the datacenter's current spec.
func (e *Env) WaitDatacenterSettled(ctx context.Context, timeout time.Duration) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		dc := &cassdcapi.CassandraDatacenter{}
		if err := e.Client.Get(ctx, e.DatacenterKey(), dc); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		s := dc.Status
		last = fmt.Sprintf("generation %d, observed %d, progress %q, ready %q", dc.Generation, s.ObservedGeneration, s.CassandraOperatorProgress, s.GetConditionStatus(cassdcapi.DatacenterReady))
		return applied(dc), nil
	})
	if err != nil {
		return fmt.Errorf("waiting for cass-operator to apply CassandraDatacenter %s (%s): %w", e.DatacenterKey(), last, err)
	}
	return nil
}

// Stop stops everything, Cassandra included, and removes the directory unless keep.
func (e *Env) Stop() {
	e.Logf("stopping")
	if e.cancel != nil {
		e.cancel() // the pod runners kill their pods and stop the nodes
	}
	e.wg.Wait()
	if e.cp != nil {
		e.cp.stop()
	}
	if e.Nodes != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		if err := e.Nodes.Stop(ctx); err != nil {
			e.Logf("stopping Cassandra: %v", err)
		}
		cancel()
	}
	if e.harness != nil {
		e.logMu.Lock()
		_ = e.harness.Close()
		e.harness = nil
		e.logMu.Unlock()
	}
}

// Remove deletes the environment's directory.
func (e *Env) Remove() error { return os.RemoveAll(e.Dir) }

// Logf writes a line to Out and the harness log.
func (e *Env) Logf(format string, args ...any) {
	line := time.Now().Format("15:04:05.000") + " " + fmt.Sprintf(format, args...) + "\n"
	e.logMu.Lock()
	defer e.logMu.Unlock()
	_, _ = io.WriteString(e.Out, "local: "+line)
	if e.harness != nil {
		_, _ = io.WriteString(e.harness, line)
	}
}

// DumpLogs writes what helps explain a failure: the harness log, the manager's log, errors of
// kube-controller-manager, and the logs of the pods of the named runs (all pods when none).
func (e *Env) DumpLogs(w io.Writer, runs ...string) {
	_, _ = fmt.Fprintf(w, "--- harness log (%s) ---\n%s\n", filepath.Join(e.Dir, "harness.log"), tailFile(filepath.Join(e.Dir, "harness.log"), 80))
	if log := e.ManagerLog(); log != "" {
		_, _ = fmt.Fprintf(w, "--- manager log (%s) ---\n%s\n", log, tailFile(log, 80))
	}
	if e.cp != nil && e.cp.kcm != nil {
		var errs []string
		for _, l := range strings.Split(e.cp.kcm.Tail(2000), "\n") {
			if klogError.MatchString(l) {
				errs = append(errs, l)
			}
		}
		if len(errs) > 20 {
			errs = errs[len(errs)-20:]
		}
		_, _ = fmt.Fprintf(w, "--- kube-controller-manager errors (%s) ---\n%s\n", e.cp.kcm.Log, strings.Join(errs, "\n"))
	}
	if e.Runner == nil {
		return
	}
	for _, p := range e.Runner.Processes() {
		if len(runs) > 0 && !contains(runs, p.Labels["cassbench.io/run"]) {
			continue
		}
		_, _ = fmt.Fprintf(w, "--- pod %s/%s (pid %d, %s) ---\n%s\n", p.Namespace, p.Name, p.PID, p.Log, tailFile(p.Log, 40))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func withoutEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// cassandraVersion is the version the local nodes run.
func cassandraVersion() string { return localcassandra.DefaultLayout().Version }

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o755)
}
