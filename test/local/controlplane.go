package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// controlPlane is etcd and kube-apiserver (envtest) plus kube-controller-manager and
// kube-scheduler as processes, and the one Node the played kubelets run the pods of.
type controlPlane struct {
	env       *envtest.Environment
	kcm       *Process
	scheduler *Process
	config    *rest.Config
	client    client.Client
}

// kcmControllers are what Jobs with pods need: the Job controller creates and tracks pods, the
// garbage collector deletes a run's Jobs and their pods with the run, and the service account
// controller creates the "default" account the ServiceAccount admission plugin wants.
var kcmControllers = []string{"job-controller", "garbage-collector-controller", "serviceaccount-controller"}

// operatorControllers are what cass-operator relies on: StatefulSets make its node pods and
// their claims, the Deployment its own pod, the binder binds claims to the played
// provisioner's volumes (the protection controllers let claims and volumes go once unused),
// and the disruption controller keeps the status of its PodDisruptionBudget. The endpoint
// controllers do not run: the played pods' addresses are loopback ones, which the apiserver
// refuses in Endpoints and EndpointSlices (DNS and the webhook's route are played from pods).
var operatorControllers = []string{
	"statefulset-controller", "deployment-controller", "replicaset-controller",
	"persistentvolume-binder-controller", "persistentvolumeclaim-protection-controller", "persistentvolume-protection-controller",
	"disruption-controller",
}

func startControlPlane(ctx context.Context, root, dir string, nodes int, scheme *runtime.Scheme, logf func(string, ...any)) (*controlPlane, error) {
	assets, err := kube.ControlPlaneAssets(root, "kube-controller-manager", "kube-scheduler")
	if err != nil {
		return nil, err
	}
	crds, err := kube.CassOperatorCRDs(root)
	if err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		// cassbench's own CRDs come with its chart (installChart).
		CRDDirectoryPaths:     []string{crds},
		ErrorIfCRDPathMissing: true,
		Scheme:                scheme,
	}
	// envtest turns the ServiceAccount admission plugin off because it runs no controllers;
	// this control plane does, so pods are admitted as in a cluster.
	env.ControlPlane.GetAPIServer().Configure().Disable("disable-admission-plugins")
	logf("starting etcd and kube-apiserver from %s", assets)
	cfg, err := env.Start()
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("starting etcd and kube-apiserver: %w", err)
	}
	cp := &controlPlane{env: env, config: cfg}
	if cp.client, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		cp.stop()
		return nil, fmt.Errorf("creating the admin client: %w", err)
	}
	kubeconfig, err := cp.writeKubeconfig(filepath.Join(dir, "kube-controller-manager.kubeconfig"),
		envtest.User{Name: "local-kube-controller-manager", Groups: []string{"system:masters"}})
	if err != nil {
		cp.stop()
		return nil, err
	}
	cp.kcm = &Process{
		Name: "kube-controller-manager",
		Path: filepath.Join(assets, "kube-controller-manager"),
		Args: []string{
			"--kubeconfig=" + kubeconfig,
			"--controllers=" + strings.Join(append(append([]string{}, kcmControllers...), operatorControllers...), ","),
			"--leader-elect=false",
			"--use-service-account-credentials=false",
			"--secure-port=0",
			"--concurrent-job-syncs=5",
			"--v=2",
		},
		Env: os.Environ(),
		Log: filepath.Join(dir, "kube-controller-manager.log"),
	}
	logf("starting kube-controller-manager (%s)", strings.Join(append(append([]string{}, kcmControllers...), operatorControllers...), ", "))
	if err := cp.kcm.Start(); err != nil {
		cp.stop()
		return nil, err
	}
	if err := cp.waitForControllers(ctx); err != nil {
		cp.stop()
		return nil, err
	}
	if err := cp.createNodes(ctx, nodes); err != nil {
		cp.stop()
		return nil, err
	}
	schedulerKubeconfig, err := cp.writeKubeconfig(filepath.Join(dir, "kube-scheduler.kubeconfig"),
		envtest.User{Name: "local-kube-scheduler", Groups: []string{"system:masters"}})
	if err != nil {
		cp.stop()
		return nil, err
	}
	cp.scheduler = &Process{
		Name: "kube-scheduler",
		Path: filepath.Join(assets, "kube-scheduler"),
		Args: []string{
			"--kubeconfig=" + schedulerKubeconfig,
			"--authentication-kubeconfig=" + schedulerKubeconfig,
			"--authorization-kubeconfig=" + schedulerKubeconfig,
			"--leader-elect=false",
			"--secure-port=0",
			"--v=2",
		},
		Env: os.Environ(),
		Log: filepath.Join(dir, "kube-scheduler.log"),
	}
	logf("starting kube-scheduler")
	if err := cp.scheduler.Start(); err != nil {
		cp.stop()
		return nil, err
	}
	if err := cp.scheduler.WaitForLog("Starting Kubernetes Scheduler", 2*time.Minute); err != nil {
		cp.stop()
		return nil, err
	}
	return cp, nil
}

// nodePrefix names the Nodes of the control plane, cassbench-local-1 to -N: the scheduler
// places pods on them, and the played kubelets (PodRunner, NodePods) run the pods bound to
// any of them. There are as many as the datacenter may have nodes, since cass-operator keeps
// one Cassandra pod per worker (pod anti-affinity) unless told otherwise.
const nodePrefix = "cassbench-local-"

// onLocalNode tells whether a pod is bound to one of the control plane's Nodes.
func onLocalNode(pod *corev1.Pod) bool { return strings.HasPrefix(pod.Spec.NodeName, nodePrefix) }

// createNodes registers the Nodes the played kubelets stand for, Ready, each with room for
// every pod the tests start. No node lifecycle controller runs, so the not-ready taint the
// TaintNodesByCondition admission plugin puts on a new Node is taken off here, as that
// controller does once the node reports Ready.
func (cp *controlPlane) createNodes(ctx context.Context, n int) error {
	for i := 1; i <= n; i++ {
		if err := cp.createNode(ctx, fmt.Sprintf("%s%d", nodePrefix, i)); err != nil {
			return err
		}
	}
	return nil
}

func (cp *controlPlane) createNode(ctx context.Context, name string) error {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		corev1.LabelHostname: name, corev1.LabelOSStable: "linux", corev1.LabelArchStable: "amd64",
	}}}
	if err := cp.client.Create(ctx, node); err != nil {
		return fmt.Errorf("creating Node %s: %w", name, err)
	}
	node.Spec.Taints = nil
	if err := cp.client.Update(ctx, node); err != nil {
		return fmt.Errorf("removing the taints of Node %s: %w", name, err)
	}
	room := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods: resource.MustParse("250"), corev1.ResourceEphemeralStorage: resource.MustParse("1Ti"),
	}
	now := metav1.Now()
	node.Status = corev1.NodeStatus{
		Capacity: room, Allocatable: room,
		Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			Message: "the pods of this node are played by test/local", LastHeartbeatTime: now, LastTransitionTime: now,
		}},
		Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}, {Type: corev1.NodeHostName, Address: name}},
	}
	if err := cp.client.Status().Update(ctx, node); err != nil {
		return fmt.Errorf("reporting Node %s ready: %w", name, err)
	}
	return nil
}

// waitForControllers waits until kube-controller-manager has started every controller asked
// for, and fails on any error it logged while starting.
func (cp *controlPlane) waitForControllers(ctx context.Context) error {
	for _, c := range kcmControllers {
		if err := cp.kcm.WaitForLog(`"Controller starting..." controller="`+c+`"`, 2*time.Minute); err != nil {
			return err
		}
	}
	// The informers of the started controllers sync right after; errors then are startup errors.
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(2 * time.Second):
	}
	lines, err := cp.kcm.linesSinceStart()
	if err != nil {
		return fmt.Errorf("reading the kube-controller-manager log: %w", err)
	}
	var errs []string
	for _, l := range lines {
		if klogError.MatchString(l) {
			errs = append(errs, l)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("kube-controller-manager logged errors while starting:\n%s", strings.Join(errs, "\n"))
	}
	return nil
}

// klogError matches a klog line of severity E or F.
var klogError = regexp.MustCompile(`^[EF]\d{4} `)

// writeKubeconfig provisions a client-certificate user and writes its kubeconfig.
func (cp *controlPlane) writeKubeconfig(path string, user envtest.User) (string, error) {
	u, err := cp.env.AddUser(user, nil)
	if err != nil {
		return "", fmt.Errorf("adding user %s: %w", user.Name, err)
	}
	data, err := u.KubeConfig()
	if err != nil {
		return "", fmt.Errorf("writing the kubeconfig of %s: %w", user.Name, err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}

func (cp *controlPlane) stop() {
	if cp.scheduler != nil {
		cp.scheduler.Stop(10 * time.Second)
	}
	if cp.kcm != nil {
		cp.kcm.Stop(10 * time.Second)
	}
	if err := cp.env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "local: stopping etcd and kube-apiserver: %v\n", err)
	}
}
