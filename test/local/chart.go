package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cassbench/cassbench/internal/testutil/kube"
	"github.com/cassbench/cassbench/internal/testutil/registry"
)

// The chart's release: its name gives the objects' names (cassbench-manager, ...), as in
// docs/install.md.
const (
	releaseName      = "cassbench"
	releaseNamespace = "cassbench-system"
)

// managerSelector selects the pod of the chart's Deployment (its selectorLabels).
var managerSelector = labels.SelectorFromSet(labels.Set{
	"app.kubernetes.io/name": "cassbench", "app.kubernetes.io/instance": releaseName, "app.kubernetes.io/component": "manager",
})

// helmBinary is the helm the Makefile caches (HELM, as `make test-local` passes it), else
// the one `make helm` builds.
func helmBinary(root string) (string, error) {
	if h := os.Getenv("HELM"); h != "" {
		return h, nil
	}
	out, err := kube.Run(root, "make", "-s", "--no-print-directory", "helm")
	if err != nil {
		return "", err
	}
	return kube.LastLine(out), nil
}

// chartValues are the values the environment installs the chart with. The pod runner maps
// the image to the locally built binaries. The played kubelet runs every pod in the host's
// network, where cass-operator's manager already serves :8443 and :8081, so the manager's
// ports move; the scenario of a pod that does not start waits podStartGrace, not 2m.
func chartValues(image string) string {
	repo, tag, _ := strings.Cut(image, ":")
	return fmt.Sprintf(`image: {repository: %q, tag: %q, pullPolicy: Never}
podStartGrace: %s
ports: {metrics: 18443, probes: 18081}
`, repo, tag, podStartGrace)
}

// registryBinary is the CNCF distribution registry the Makefile caches (DISTRIBUTION, as
// `make test` passes it), else the one `make release-tools` builds.
func registryBinary(root string) (string, error) {
	if r := os.Getenv("DISTRIBUTION"); r != "" {
		return r, nil
	}
	out, err := kube.Run(root, "make", "-s", "--no-print-directory", "release-tools")
	if err != nil {
		return "", err
	}
	lines := strings.Fields(out)
	if len(lines) < 5 {
		return "", fmt.Errorf("make release-tools printed %q, want five paths", out)
	}
	return lines[len(lines)-4], nil
}

// installChart installs cassbench as a user installs a release (docs/install.md): the chart
// is packaged and pushed to an OCI registry on 127.0.0.1, then `helm install
// oci://.../charts/cassbench --version V` puts its CRDs, ServiceAccount, RBAC and the manager's
// Deployment into cassbench-system. The Deployment's pod then runs through the pod runner
// under the chart's ServiceAccount. The registry is needed for the install only.
func (e *Env) installChart(ctx context.Context) error {
	registryBin, err := registryBinary(e.Root)
	if err != nil {
		return err
	}
	dir := filepath.Join(e.Dir, "helm")
	values := filepath.Join(dir, "values.yaml")
	if err := os.MkdirAll(filepath.Join(dir, "registry"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(values, []byte(chartValues(e.Image)), 0o644); err != nil {
		return err
	}
	reg, err := registry.Start(ctx, registryBin, filepath.Join(dir, "registry"))
	if err != nil {
		return err
	}
	defer reg.Stop()
	if _, err := e.helm(ctx, "package", filepath.Join(e.Root, "charts", "cassbench"), "--destination", dir); err != nil {
		return err
	}
	chart, err := filepath.Glob(filepath.Join(dir, "cassbench-*.tgz"))
	if err != nil {
		return fmt.Errorf("finding the packaged chart: %w", err)
	}
	if len(chart) != 1 {
		return fmt.Errorf("helm package wrote %v into %s, want one chart", chart, dir)
	}
	version := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(chart[0]), "cassbench-"), ".tgz")
	repo := "oci://" + reg.Addr + "/charts"
	if _, err := e.helm(ctx, "push", chart[0], repo, "--plain-http"); err != nil {
		return err
	}
	e.Logf("installing cassbench with helm install %s %s/cassbench --version %s --namespace %s", releaseName, repo, version, releaseNamespace)
	out, err := e.helm(ctx, "install", releaseName, repo+"/cassbench", "--version", version, "--plain-http",
		"--namespace", releaseNamespace, "--create-namespace", "--kubeconfig", e.AdminKubeconfig, "--values", values)
	if err != nil {
		return err
	}
	e.Logf("helm: %s", strings.TrimSpace(firstLines(out, 6)))
	return nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// managerPod is the manager's pod and the runner's process for it, when one runs.
func (e *Env) managerPod(ctx context.Context) (*corev1.Pod, *PodProcess, error) {
	var pods corev1.PodList
	if err := e.Client.List(ctx, &pods, client.InNamespace(releaseNamespace), client.MatchingLabelsSelector{Selector: managerSelector}); err != nil {
		return nil, nil, err
	}
	for i := range pods.Items {
		pod := &pods.Items[i]
		if pod.DeletionTimestamp != nil {
			continue
		}
		for _, p := range e.Manager.Processes() {
			if p.Namespace == pod.Namespace && p.Name == pod.Name && e.Manager.Running(p.Namespace, p.Name) {
				return pod, &p, nil
			}
		}
		return pod, nil, nil
	}
	return nil, nil, nil
}

// WaitManager waits until the manager's container (one other than pid notPID) runs its
// controllers: it logged "Starting workers", which it does once it leads.
func (e *Env) WaitManager(ctx context.Context, notPID int, timeout time.Duration) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		pod, p, err := e.managerPod(ctx)
		switch {
		case err != nil:
			last = err.Error()
		case pod == nil:
			last = "no manager pod"
		case p == nil || p.PID == notPID:
			last = fmt.Sprintf("pod %s has no running container (%s)", pod.Name, podState(pod))
		default:
			log, _ := os.ReadFile(p.Log)
			last = fmt.Sprintf("pod %s, pid %d, has not logged \"Starting workers\"", pod.Name, p.PID)
			return strings.Contains(string(log), "Starting workers"), nil
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the manager's controllers: %s: %w", last, err)
	}
	return nil
}

// KillManager kills the manager's container with SIGKILL, as a node failure or OOM kill
// would, and returns its pid. The played kubelet starts it again (restartPolicy Always).
func (e *Env) KillManager(ctx context.Context) (int, error) {
	pod, p, err := e.managerPod(ctx)
	if err != nil {
		return 0, err
	}
	if p == nil {
		return 0, errors.New("no manager container runs")
	}
	e.Logf("killing the manager's container (pod %s, pid %d)", pod.Name, p.PID)
	return p.PID, syscall.Kill(-p.PID, syscall.SIGKILL)
}

// ManagerLog is the path of the manager's current container log, or "".
func (e *Env) ManagerLog() string {
	if e.Manager == nil {
		return ""
	}
	var log string
	for _, p := range e.Manager.Processes() {
		log = p.Log // the newest pod's
	}
	return log
}

func podState(pod *corev1.Pod) string {
	for _, cs := range pod.Status.ContainerStatuses {
		switch {
		case cs.State.Waiting != nil:
			return "waiting: " + cs.State.Waiting.Reason
		case cs.State.Terminated != nil:
			return fmt.Sprintf("terminated with %d", cs.State.Terminated.ExitCode)
		case cs.State.Running != nil:
			return "running"
		}
	}
	return string(pod.Status.Phase)
}
