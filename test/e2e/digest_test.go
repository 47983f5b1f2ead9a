//go:build e2e

package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// image is what kind-deploy built and pushed (IMG, REPOSITORY:TAG), hack/kind-e2e.sh passes it.
var image = envOr("E2E_IMAGE", "cassbench:dev")

// cassbench's image pulled by digest from the kind cluster's own registry (hack/kind-registry.sh,
// made by kind-up where no image registry is reachable): the manager's pod names the image by
// digest, the digest is the one the registry serves for the tag kind-deploy pushed (asked of
// its /v2/ API here, not taken from what kind-deploy recorded), the kubelet pulled it rather
// than finding it present, and the writers of a run ran the same digest (the chart passes the
// manager's image on to setup and writer pods). The other images stay loaded into the nodes.
// It reads the Deployment's first pod (go test runs this file before manager_test.go, whose
// scenario replaces it: the new pod may find the image on its node, rightly "already present").
// A cluster made from published images has no such registry: the test then skips.
func TestCassbenchImagePulledByDigestFromTheClusterRegistry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout+5*time.Minute)
	defer cancel()
	k := connect(t)
	host := k.localRegistry(ctx, t)
	repository, tag, ok := strings.Cut(image, ":")
	if !ok {
		t.Fatalf("E2E_IMAGE %q: want REPOSITORY:TAG", image)
	}
	digest := manifestDigest(ctx, t, host, repository, tag)
	want := host + "/" + repository + "@" + digest
	t.Logf("the registry %s serves %s:%s as %s", host, repository, tag, digest)

	pod := k.managerPod(ctx, t)
	if got := pod.Spec.Containers[0].Image; got != want {
		t.Errorf("the manager's pod names the image %q, want %q", got, want)
	}
	checkRanDigest(t, pod, digest)
	k.checkPulled(ctx, t, pod, want)

	// A short run: what is checked is the image its writers ran, not what they measured.
	run := k.sampleRun(t, func(r *cbv1.BenchmarkRun) {
		r.Spec.Writers.Warmup = &metav1.Duration{Duration: time.Second}
		r.Spec.Writers.Duration = &metav1.Duration{Duration: 5 * time.Second}
	})
	before := k.start(ctx, t, run)
	done := k.waitFinished(ctx, t, run, nil)
	succeeded(t, done)
	k.checkRestored(ctx, t, done, before)
	var pods corev1.PodList
	if err := k.c.List(ctx, &pods, client.InNamespace(run.Namespace),
		client.MatchingLabels{cbv1.RunLabel: run.Name, cbv1.ComponentLabel: "writer"}); err != nil {
		t.Fatalf("listing the run's writer pods: %v", err)
	}
	if len(pods.Items) == 0 {
		t.Fatalf("no writer pods of run %s are left to read", run.Name)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if got := p.Spec.Containers[0].Image; got != want {
			t.Errorf("writer pod %s names the image %q, want %q", p.Name, got, want)
		}
		checkRanDigest(t, p, digest)
		if len(p.Status.ContainerStatuses) > 0 {
			t.Logf("writer pod %s on %s ran %s", p.Name, p.Spec.NodeName, p.Status.ContainerStatuses[0].ImageID)
		}
	}
}

// localRegistry reads where the cluster's registry is from the local-registry-hosting
// ConfigMap (KEP-1755) kind-up publishes, and skips the test when there is none.
func (k *cluster) localRegistry(ctx context.Context, t *testing.T) string {
	t.Helper()
	cm := &corev1.ConfigMap{}
	err := k.c.Get(ctx, client.ObjectKey{Namespace: "kube-public", Name: "local-registry-hosting"}, cm)
	if apierrors.IsNotFound(err) {
		t.Skip("the cluster has no local registry (kind-up made it from published images): cassbench's image is loaded, not pulled")
	}
	if err != nil {
		t.Fatalf("reading kube-public/local-registry-hosting: %v", err)
	}
	var hosting struct {
		Host string `json:"host"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data["localRegistryHosting.v1"]), &hosting); err != nil || hosting.Host == "" {
		t.Fatalf("kube-public/local-registry-hosting names no host (%v): %v", err, cm.Data)
	}
	return hosting.Host
}

// manifestDigest asks the registry for the manifest of repository:tag and returns the sha256
// of its bytes, checked against the digest the registry says it has.
func manifestDigest(ctx context.Context, t *testing.T, host, repository, tag string) string {
	t.Helper()
	url := fmt.Sprintf("http://%s/v2/%s/manifests/%s", host, repository, tag)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", strings.Join([]string{
		"application/vnd.oci.image.index.v1+json", "application/vnd.oci.image.manifest.v1+json",
		"application/vnd.docker.distribution.manifest.list.v2+json", "application/vnd.docker.distribution.manifest.v2+json",
	}, ", "))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v\n%s", url, resp.Status, err, body)
	}
	sum := sha256.Sum256(body)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	if said := resp.Header.Get("Docker-Content-Digest"); said != digest {
		t.Fatalf("the registry says %s is %s, its bytes are %s", url, said, digest)
	}
	return digest
}

// checkRanDigest: the container runtime reports that the pod's container ran the image of
// that digest (containerStatuses[].imageID, the repository digest the runtime resolved).
func checkRanDigest(t *testing.T, pod *corev1.Pod, digest string) {
	t.Helper()
	if len(pod.Status.ContainerStatuses) == 0 {
		t.Errorf("pod %s has no container status", pod.Name)
		return
	}
	for _, s := range pod.Status.ContainerStatuses {
		if !strings.HasSuffix(s.ImageID, "@"+digest) {
			t.Errorf("pod %s's container %s ran imageID %q, want one of digest %s", pod.Name, s.Name, s.ImageID, digest)
		}
	}
}

// checkPulled: the kubelet's events for the pod say it pulled the image, not that it was
// already present on the node (as for an image loaded with kind load).
func (k *cluster) checkPulled(ctx context.Context, t *testing.T, pod *corev1.Pod, ref string) {
	t.Helper()
	events, err := k.cs.CoreV1().Events(pod.Namespace).List(ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.kind=Pod,involvedObject.name=" + pod.Name})
	if err != nil {
		t.Fatalf("listing the events of pod %s: %v", pod.Name, err)
	}
	pulled := false
	for _, e := range events.Items {
		if e.Reason != "Pulled" {
			continue
		}
		t.Logf("pod %s: %s: %s", pod.Name, e.Reason, e.Message)
		switch {
		case strings.Contains(e.Message, "already present"):
			t.Errorf("the kubelet found %s already present on the node: %s", ref, e.Message)
		case strings.Contains(e.Message, "Successfully pulled image") && strings.Contains(e.Message, ref):
			pulled = true
		}
	}
	if !pulled {
		t.Errorf("no event of pod %s says the kubelet pulled %s (events last an hour: after that, make kind-deploy with a new build)", pod.Name, ref)
	}
}
