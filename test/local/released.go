package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// Release is cassbench as built from one commit: its chart (with its CRDs) and its binaries,
// known to the pod runners under an image of its own, so that the environment can run that
// version's manager and the current one in turn.
type Release struct {
	Commit string
	// Chart is the commit's charts/cassbench; its crds/ are the commit's CRDs.
	Chart string
	Image string
}

// image returns the named image and, when it is unknown, the names the runner knows.
func (r *PodRunner) image(name string) (Image, []string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	image, ok := r.Images[name]
	if !ok {
		return Image{}, sortedKeys(r.Images), false
	}
	return image, nil, true
}

// AddImage makes an image known to the runner while it runs.
func (r *PodRunner) AddImage(name string, image Image) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Images[name] = image
}

// releasedCache holds each built commit: its source as `git archive` wrote it (no worktree is
// registered in the repository) and the binaries hack/build.sh built from it.
func releasedCache() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".cache", "cassbench", "released"), nil
}

// BuildRelease builds cassbench at commit with that commit's hack/build.sh, once per commit,
// and makes its binaries known to the pod runners as the image cassbench:<commit>. The
// binaries are copied into the environment's directory, which pods' users can reach.
func (e *Env) BuildRelease(ctx context.Context, commit string) (*Release, error) {
	sha, err := kube.Run(e.Root, "git", "rev-parse", "--verify", commit+"^{commit}")
	if err != nil {
		return nil, err
	}
	sha = kube.LastLine(sha)
	cache, err := releasedCache()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cache, sha)
	if _, err := os.Stat(filepath.Join(dir, "bin", "manager")); err != nil {
		if err := buildCommit(ctx, e.Root, sha, dir); err != nil {
			return nil, fmt.Errorf("building cassbench at %s: %w", sha, err)
		}
	}
	bin := filepath.Join(e.Dir, "released", sha)
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, err
	}
	for _, b := range []string{"manager", "cassbench", "cassbench-writer"} {
		if err := copyFile(filepath.Join(dir, "bin", b), filepath.Join(bin, b)); err != nil {
			return nil, err
		}
	}
	rel := &Release{Commit: sha, Chart: filepath.Join(dir, "src", "charts", "cassbench"), Image: "cassbench:" + sha[:12]}
	e.Manager.AddImage(rel.Image, Image{Commands: map[string]string{"/manager": filepath.Join(bin, "manager")}})
	e.Runner.AddImage(rel.Image, Image{Commands: map[string]string{
		"/cassbench":        filepath.Join(bin, "cassbench"),
		"/cassbench-writer": filepath.Join(bin, "cassbench-writer"),
	}})
	return rel, nil
}

// buildCommit writes the commit's tree into dir/src and builds it into dir/bin; a partial build
// leaves no dir/bin behind.
func buildCommit(ctx context.Context, root, sha, dir string) error {
	src := filepath.Join(dir, "src")
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	archive := exec.CommandContext(ctx, "sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", root, sha, src)
	if out, err := archive.CombinedOutput(); err != nil {
		return fmt.Errorf("git archive %s: %w\n%s", sha, err, out)
	}
	date, err := kube.Run(root, "git", "log", "-1", "--format=%cI", sha)
	if err != nil {
		return err
	}
	build := exec.CommandContext(ctx, filepath.Join(src, "hack", "build.sh"), filepath.Join(dir, "bin.tmp"))
	build.Dir = src
	// The tree has no .git: the commit and its date come from here, as the Dockerfile passes them.
	build.Env = append(os.Environ(), "COMMIT="+sha, "DATE="+kube.LastLine(date))
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("hack/build.sh: %w\n%s", err, out)
	}
	return os.Rename(filepath.Join(dir, "bin.tmp"), filepath.Join(dir, "bin"))
}

// ReplaceCRDs puts the CRDs of a chart's crds/ in place as whole objects (kube.ReplaceCRDs).
func (e *Env) ReplaceCRDs(ctx context.Context, chart string) error {
	return kube.ReplaceCRDs(ctx, e.Client, filepath.Join(chart, "crds"))
}

// ApplyCRDs applies a chart's crds/ as `kubectl apply --server-side` does (kube.ApplyCRDs).
func (e *Env) ApplyCRDs(ctx context.Context, chart string) error {
	return kube.ApplyCRDs(ctx, e.Client, filepath.Join(chart, "crds"))
}

// HelmUpgrade is `helm upgrade` of the release to the chart in dir with the manager's image
// set to image, then a wait until that image's manager runs its controllers and no other
// manager pod is left.
func (e *Env) HelmUpgrade(ctx context.Context, chart, image string) error {
	values := filepath.Join(e.Dir, "helm", "values-"+strings.ReplaceAll(image, ":", "-")+".yaml")
	if err := os.WriteFile(values, []byte(chartValues(image)), 0o644); err != nil {
		return err
	}
	e.Logf("helm upgrade %s %s with image %s", releaseName, chart, image)
	if _, err := e.helm(ctx, "upgrade", releaseName, chart, "--namespace", releaseNamespace,
		"--kubeconfig", e.AdminKubeconfig, "--values", values); err != nil {
		return err
	}
	return e.waitManagerImage(ctx, image, 3*time.Minute)
}

// waitManagerImage waits until the only manager pod runs image and its container logged
// "Starting workers" (it leads).
func (e *Env) waitManagerImage(ctx context.Context, image string, timeout time.Duration) error {
	last := ""
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		pods, err := e.managerPods(ctx)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if len(pods) != 1 || pods[0].Spec.Containers[0].Image != image {
			last = fmt.Sprintf("%d manager pods", len(pods))
			return false, nil
		}
		pod, p, err := e.managerPod(ctx)
		if err != nil || pod == nil || p == nil {
			last = fmt.Sprintf("pod %s has no running container", pods[0].Name)
			return false, nil
		}
		log, _ := os.ReadFile(p.Log)
		last = fmt.Sprintf("pod %s (%s) has not logged \"Starting workers\"", pod.Name, image)
		return strings.Contains(string(log), "Starting workers"), nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the manager of image %s: %s: %w", image, last, err)
	}
	return nil
}

// helm runs the cached helm with its cache, configuration and data in the environment's
// directory.
func (e *Env) helm(ctx context.Context, args ...string) (string, error) {
	helm, err := helmBinary(e.Root)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(e.Dir, "helm")
	c := exec.CommandContext(ctx, helm, args...)
	c.Dir = e.Root
	c.Env = append(withoutEnv(os.Environ(), "KUBECONFIG"), "HELM_CACHE_HOME="+filepath.Join(dir, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(dir, "config"), "HELM_DATA_HOME="+filepath.Join(dir, "data"))
	out, err := c.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// managerPods are the manager's pods not being deleted.
func (e *Env) managerPods(ctx context.Context) ([]corev1.Pod, error) {
	var pods corev1.PodList
	if err := e.Client.List(ctx, &pods, client.InNamespace(releaseNamespace), client.MatchingLabelsSelector{Selector: managerSelector}); err != nil {
		return nil, err
	}
	var live []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			live = append(live, p)
		}
	}
	return live, nil
}
