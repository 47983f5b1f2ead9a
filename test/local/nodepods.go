package local

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/test/local/configbuild"
	"github.com/cassbench/cassbench/test/local/mgmtapi"
)

// Container names in the pods cass-operator v1.31 builds (pkg/reconciliation
// construct_podtemplatespec.go).
const (
	baseConfigContainer   = "server-config-init-base"
	configContainer       = "server-config-init"
	cassandraContainer    = "cassandra"
	systemLoggerContainer = "server-system-logger"
	// dataVolume is the claim template of the Cassandra data (construct_statefulset.go).
	dataVolume = "server-data"
	// mgmtAPIPort is where the management API of a node listens.
	mgmtAPIPort = 8080
)

// NodePods plays the kubelet for the pods of cass-operator's StatefulSets, the way their
// containers behave in the images cass-operator v1.31 names:
//   - the init containers: server-config-init-base has nothing to copy (the base config is the
//     Cassandra distribution's conf/), server-config-init renders CONFIG_FILE_DATA with
//     test/local/configbuild, as k8ssandra-client's `config build` does;
//   - cassandra: the played management API (test/local/mgmtapi) on port 8080 of the pod's
//     address, which starts the local Cassandra node of the pod's volume when cass-operator
//     asks, with the settings the rendered config holds; its readiness probe is run as the
//     kubelet runs it, and its preStop drain on deletion;
//   - server-system-logger: reported running; the node's log is in its directory.
//
// A pod runs once its data claim is bound: the claim's volume (Volumes) names the local node,
// so a pod restarted on the same claim keeps its data, and a new claim starts a new node.
type NodePods struct {
	Client  client.Client
	Dir     string // a directory per pod: the rendered config
	Volumes *Volumes
	Logf    func(format string, args ...any)
	// ProbePeriod overrides the readiness probe's period, so that tests see readiness
	// changes within a second or two rather than the template's ten seconds. Zero keeps it.
	ProbePeriod time.Duration

	mu   sync.Mutex
	pods map[types.UID]*nodePod
}

type nodePod struct {
	namespace, name string
	uid             types.UID
	index           int
	newNode         func() *mgmtapi.LocalNode // the cassandra container's node, for each start of it
	node            *mgmtapi.LocalNode
	api             *mgmtapi.Server
	server          *http.Server
	metrics         *http.Server // the management API's metrics endpoint
	stop            context.CancelFunc
	stopped         chan struct{} // closed once the pod's containers are stopped
	stopping        bool
	ready           bool
	started         metav1.Time // the pod's start
	// The cassandra container: when it last started, its restarts, how it last ended, and
	// whether it waits out a restart back-off (CrashLoopBackOff).
	containerStarted metav1.Time
	restarts         int32
	lastTerminated   *corev1.ContainerStateTerminated
	backOff          string
	containerUp      bool // the management API serves; stopContainer stops it once
}

// nodePodSelector matches the pods of cass-operator's StatefulSets.
func nodePodSelector() labels.Selector {
	req, err := labels.NewRequirement("cassandra.datastax.com/cluster", selection.Exists, nil)
	if err != nil {
		panic(err)
	}
	return labels.NewSelector().Add(*req)
}

// Run plays the kubelet for the node pods until ctx ends, then stops every node it started.
func (k *NodePods) Run(ctx context.Context) {
	k.mu.Lock()
	if k.pods == nil {
		k.pods = map[types.UID]*nodePod{}
	}
	k.mu.Unlock()
	defer k.stopAll()
	syncEvery(ctx, 300*time.Millisecond, k.sync, func(err error) { k.Logf("node pods: %v", err) })
}

func (k *NodePods) sync(ctx context.Context) error {
	var list corev1.PodList
	if err := k.Client.List(ctx, &list, client.MatchingLabelsSelector{Selector: nodePodSelector()}); err != nil {
		return fmt.Errorf("listing pods: %w", err)
	}
	live := map[types.UID]bool{}
	for i := range list.Items {
		pod := &list.Items[i]
		k.mu.Lock()
		p := k.pods[pod.UID]
		k.mu.Unlock()
		if pod.DeletionTimestamp != nil {
			k.deleting(ctx, pod, p)
			continue
		}
		live[pod.UID] = true
		if p == nil && onLocalNode(pod) {
			if err := k.start(ctx, pod); err != nil {
				k.Logf("node pods: pod %s/%s: %v", pod.Namespace, pod.Name, err)
			}
		}
	}
	// A pod gone without a graceful delete (forced) has its containers stopped all the same.
	k.mu.Lock()
	var gone []*nodePod
	for uid, p := range k.pods {
		if !live[uid] && !p.stopping {
			p.stopping = true
			gone = append(gone, p)
		}
	}
	k.mu.Unlock()
	for _, p := range gone {
		go k.stopPod(p, false)
	}
	return nil
}

// deleting plays a graceful delete: the preStop drain, the node stopped, then the pod removed.
func (k *NodePods) deleting(ctx context.Context, pod *corev1.Pod, p *nodePod) {
	if p == nil {
		k.remove(ctx, pod)
		return
	}
	k.mu.Lock()
	first := !p.stopping
	p.stopping = true
	k.mu.Unlock()
	if !first {
		return
	}
	go func() {
		k.stopPod(p, true)
		k.remove(context.Background(), pod)
	}()
}

// remove deletes a pod whose containers have stopped, as the kubelet confirms a graceful delete.
func (k *NodePods) remove(ctx context.Context, pod *corev1.Pod) {
	(&PodRunner{Client: k.Client, Logf: k.Logf}).remove(ctx, pod)
}

// start runs the pod's init containers and its containers, once its data claim is bound.
func (k *NodePods) start(ctx context.Context, pod *corev1.Pod) error {
	vol, err := k.Volumes.ForPod(ctx, pod, dataVolume)
	if err != nil || vol == nil {
		return err // not bound yet: the kubelet waits for the volume
	}
	ip := NodeIP(vol.Node)
	dir := filepath.Join(k.Dir, fmt.Sprintf("%s_%s_%s", pod.Namespace, pod.Name, string(pod.UID)[:8]))
	configDir := filepath.Join(dir, "config")
	if err := os.MkdirAll(configDir, 0o755); err != nil {
		return err
	}
	now := metav1.Now()
	running := pod.DeepCopy()
	running.Status.PodIP, running.Status.HostIP = ip, ip
	settings, err := k.initContainers(ctx, running, configDir)
	if err != nil {
		// The kubelet runs a failed init container again with a back-off; the pod shows it.
		k.patchStatus(ctx, pod, func(st *corev1.PodStatus) {
			st.Phase = corev1.PodPending
			st.PodIP, st.HostIP = ip, ip
			st.InitContainerStatuses = []corev1.ContainerStatus{{
				Name: configContainer, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: 1, Reason: "Error", Message: err.Error(), FinishedAt: now,
				}},
			}}
		})
		k.mu.Lock()
		k.pods[pod.UID] = &nodePod{namespace: pod.Namespace, name: pod.Name, uid: pod.UID, stopping: true, stopped: closed()}
		k.mu.Unlock()
		return fmt.Errorf("%s failed: %w", configContainer, err)
	}

	p := &nodePod{
		namespace: pod.Namespace, name: pod.Name, uid: pod.UID, index: vol.Node,
		newNode: func() *mgmtapi.LocalNode {
			return &mgmtapi.LocalNode{
				Index:        vol.Node,
				Cluster:      nodesCluster,
				StartOptions: settings,
				Username:     Username,
				Password:     Password,
				Logf:         k.Logf,
				BeforeStart:  func() error { return vol.prepareNode() },
			}
		},
		stopped: make(chan struct{}), started: now,
	}
	if err := k.startContainer(p); err != nil {
		return err
	}
	probeCtx, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	k.mu.Lock()
	k.pods[pod.UID] = p
	k.mu.Unlock()
	k.Logf("node pods: pod %s/%s runs node %d (%s), management API on %s", pod.Namespace, pod.Name, vol.Node, vol.Name, p.server.Addr)
	k.patchStatus(ctx, pod, func(st *corev1.PodStatus) { *st = k.status(pod, p, false) })
	go k.probe(probeCtx, pod, p)
	return nil
}

// startContainer starts the cassandra container: a management API, not yet asked to start its
// node, on port 8080 of the pod's address, and its metrics endpoint on port 9000.
func (k *NodePods) startContainer(p *nodePod) error {
	addr := net.JoinHostPort(NodeIP(p.index), strconv.Itoa(mgmtAPIPort))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("the management API cannot listen on %s: %w", addr, err)
	}
	node := p.newNode()
	metrics, err := serveMetrics(p.index, node)
	if err != nil {
		_ = ln.Close()
		return err
	}
	api := mgmtapi.New(node, k.Logf)
	server := &http.Server{Addr: addr, Handler: api, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = server.Serve(ln) }()
	k.mu.Lock()
	p.node, p.api, p.server, p.metrics = node, api, server, metrics
	p.containerUp = true
	p.containerStarted = metav1.Now()
	p.backOff = ""
	k.mu.Unlock()
	return nil
}

// stopContainer stops the cassandra container: its node, then its management API.
func (k *NodePods) stopContainer(p *nodePod) {
	k.mu.Lock()
	up := p.containerUp
	p.containerUp = false
	k.mu.Unlock()
	if !up {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var log bytes.Buffer
	if err := nodesCluster(&log).Stop(ctx, localcassandra.Options{Node: p.index}); err != nil {
		k.Logf("node pods: pod %s/%s: stopping node %d: %v\n%s", p.namespace, p.name, p.index, err, log.String())
	}
	k.mu.Lock()
	server, api, node, metrics := p.server, p.api, p.node, p.metrics
	k.mu.Unlock()
	_ = metrics.Close()
	_ = server.Close()
	api.Close()
	node.Close()
}

// restartContainer plays the kubelet restarting the cassandra container after its liveness
// probe failed: the container is killed, waits out the restart back-off (10 s, doubling up to
// 5 minutes) in CrashLoopBackOff, and starts again.
func (k *NodePods) restartContainer(ctx context.Context, pod *corev1.Pod, p *nodePod) {
	k.stopContainer(p)
	backOff := min(10*time.Second<<min(p.restarts, 5), 5*time.Minute)
	now := metav1.Now()
	k.mu.Lock()
	p.lastTerminated = &corev1.ContainerStateTerminated{
		ExitCode: 137, Reason: "Error", StartedAt: p.containerStarted, FinishedAt: now,
		Message: "killed after its liveness probe failed",
	}
	p.restarts++
	p.ready = false
	p.backOff = fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", backOff, cassandraContainer, pod.Name)
	k.mu.Unlock()
	k.Logf("node pods: pod %s/%s: liveness probe failed; container %s restarts in %s", pod.Namespace, pod.Name, cassandraContainer, backOff)
	k.patchStatus(ctx, pod, func(st *corev1.PodStatus) { *st = k.status(pod, p, false) })
	select {
	case <-ctx.Done():
		return
	case <-time.After(backOff):
	}
	if err := k.startContainer(p); err != nil {
		k.Logf("node pods: pod %s/%s: %v", pod.Namespace, pod.Name, err)
		return
	}
	k.patchStatus(ctx, pod, func(st *corev1.PodStatus) { *st = k.status(pod, p, false) })
}

// initContainers plays server-config-init-base and server-config-init, and returns the
// settings the node starts with.
func (k *NodePods) initContainers(ctx context.Context, pod *corev1.Pod, configDir string) (localcassandra.Options, error) {
	var c *corev1.Container
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == configContainer {
			c = &pod.Spec.InitContainers[i]
		}
	}
	if c == nil {
		return localcassandra.Options{}, fmt.Errorf("the pod has no %s init container", configContainer)
	}
	env, err := containerEnv(pod, c, lookupIn(ctx, k.Client, pod.Namespace))
	if err != nil {
		return localcassandra.Options{}, err
	}
	vars := map[string]string{}
	for _, kv := range env {
		if name, value, ok := strings.Cut(kv, "="); ok {
			vars[name] = value
		}
	}
	in, err := configbuild.ParseInput(vars["CONFIG_FILE_DATA"])
	if err != nil {
		return localcassandra.Options{}, err
	}
	node, err := configbuild.NodeFromEnv(func(name string) string { return vars[name] })
	if err != nil {
		return localcassandra.Options{}, err
	}
	base := filepath.Join(filepath.Dir(configDir), "base-config")
	if err := baseConfig(base); err != nil {
		return localcassandra.Options{}, fmt.Errorf("%s: %w", baseConfigContainer, err)
	}
	if err := configbuild.Build(base, configDir, in, node); err != nil {
		return localcassandra.Options{}, err
	}
	return nodeSettings(configDir, in)
}

// baseConfig plays server-config-init-base: the image's base config copied to dir. The local
// distribution's conf/ is that base; it has no cassandra-env.sh, since internal/localcassandra
// starts the JVM itself, so the copy gets an empty one for server-config-init to extend.
func baseConfig(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	conf := filepath.Join(localcassandra.DefaultLayout().Dist(), "conf")
	entries, err := os.ReadDir(conf)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if err := copyFile(filepath.Join(conf, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	env := filepath.Join(dir, "cassandra-env.sh")
	if _, err := os.Stat(env); err == nil {
		return nil
	}
	return os.WriteFile(env, []byte("# the local node's JVM is started by internal/localcassandra, not by this script\n"), 0o644)
}

// status is the pod's status with its containers running, ready or not.
func (k *NodePods) status(pod *corev1.Pod, p *nodePod, ready bool) corev1.PodStatus {
	ip := NodeIP(p.index)
	cond := corev1.ConditionFalse
	reason := "ContainersNotReady"
	if ready {
		cond, reason = corev1.ConditionTrue, ""
	}
	st := corev1.PodStatus{
		Phase:     corev1.PodRunning,
		HostIP:    ip,
		HostIPs:   []corev1.HostIP{{IP: ip}},
		PodIP:     ip,
		PodIPs:    []corev1.PodIP{{IP: ip}},
		StartTime: &p.started,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue, LastTransitionTime: p.started},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: p.started},
			{Type: corev1.ContainersReady, Status: cond, Reason: reason, LastTransitionTime: metav1.Now()},
			{Type: corev1.PodReady, Status: cond, Reason: reason, LastTransitionTime: metav1.Now()},
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: p.started},
		},
	}
	for _, c := range pod.Spec.InitContainers {
		st.InitContainerStatuses = append(st.InitContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: "local://" + c.Image, ContainerID: "local://" + c.Name,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 0, Reason: "Completed", StartedAt: p.started, FinishedAt: p.started,
			}},
		})
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, c := range pod.Spec.Containers {
		cs := corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: "local://" + c.Image, ContainerID: "local://" + c.Name,
			Ready: true, Started: ptrTo(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: p.started}},
		}
		if c.Name == cassandraContainer {
			cs.Ready, cs.RestartCount = ready, p.restarts
			cs.State.Running.StartedAt = p.containerStarted
			if p.lastTerminated != nil {
				cs.LastTerminationState = corev1.ContainerState{Terminated: p.lastTerminated}
			}
			if p.backOff != "" {
				cs.Started = ptrTo(false)
				cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: p.backOff}}
			}
		}
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
	}
	return st
}

// probe runs the cassandra container's readiness probe as the kubelet does, and reports
// each change in the pod's status.
func (k *NodePods) probe(ctx context.Context, pod *corev1.Pod, p *nodePod) {
	var c *corev1.Container
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == cassandraContainer {
			c = &pod.Spec.Containers[i]
		}
	}
	if c == nil || c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil {
		k.Logf("node pods: pod %s/%s has no HTTP readiness probe on %s; it stays not ready", pod.Namespace, pod.Name, cassandraContainer)
		return
	}
	rp := c.ReadinessProbe
	period := time.Duration(rp.PeriodSeconds) * time.Second
	if k.ProbePeriod > 0 {
		period = k.ProbePeriod
	}
	timeout := time.Duration(max(rp.TimeoutSeconds, 1)) * time.Second
	hc := &http.Client{Timeout: timeout}
	get := func(probe *corev1.Probe) bool {
		url := fmt.Sprintf("http://%s%s", net.JoinHostPort(NodeIP(p.index), probe.HTTPGet.Port.String()), probe.HTTPGet.Path)
		resp, err := hc.Get(url)
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode >= 200 && resp.StatusCode < 400
	}
	// The liveness probe runs at the same period; failureThreshold failures in a row restart
	// the container, as the kubelet does.
	lp := c.LivenessProbe
	if lp != nil && lp.HTTPGet == nil {
		lp = nil
	}
	threshold := int32(3)
	if lp != nil && lp.FailureThreshold > 0 {
		threshold = lp.FailureThreshold
	}
	failures := int32(0)
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if lp != nil {
			if get(lp) {
				failures = 0
			} else if failures++; failures >= threshold {
				failures = 0
				k.restartContainer(ctx, pod, p)
				continue
			}
		}
		ready := get(rp)
		k.mu.Lock()
		changed := ready != p.ready && !p.stopping
		p.ready = ready
		k.mu.Unlock()
		if changed {
			k.Logf("node pods: pod %s/%s ready: %t", pod.Namespace, pod.Name, ready)
			k.patchStatus(ctx, pod, func(st *corev1.PodStatus) { *st = k.status(pod, p, ready) })
		}
	}
}

// stopPod stops the pod's containers: the preStop drain when graceful, then the node and the
// management API.
func (k *NodePods) stopPod(p *nodePod, graceful bool) {
	if p.node == nil {
		return
	}
	defer close(p.stopped)
	p.stop()
	if graceful && p.node.Running() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost,
			fmt.Sprintf("http://%s/api/v0/ops/node/drain", net.JoinHostPort(NodeIP(p.index), strconv.Itoa(mgmtAPIPort))), nil)
		if resp, err := http.DefaultClient.Do(req); err != nil {
			k.Logf("node pods: pod %s/%s: preStop drain: %v", p.namespace, p.name, err)
		} else {
			_ = resp.Body.Close()
		}
		cancel()
	}
	k.stopContainer(p)
	k.Logf("node pods: pod %s/%s: node %d stopped", p.namespace, p.name, p.index)
}

func (k *NodePods) stopAll() {
	k.mu.Lock()
	var all []*nodePod
	for _, p := range k.pods {
		if !p.stopping {
			p.stopping = true
			all = append(all, p)
		}
	}
	k.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range all {
		wg.Add(1)
		go func() { defer wg.Done(); k.stopPod(p, false) }()
	}
	wg.Wait()
}

// Pods lists the node pods running, by node.
func (k *NodePods) Pods() map[int]string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[int]string{}
	for _, p := range k.pods {
		if p.node != nil && !p.stopping {
			out[p.index] = p.namespace + "/" + p.name
		}
	}
	return out
}

func (k *NodePods) patchStatus(ctx context.Context, pod *corev1.Pod, mutate func(*corev1.PodStatus)) {
	(&PodRunner{Client: k.Client, Logf: k.Logf}).patchStatus(ctx, pod, mutate)
}

func closed() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
