package controllers_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// kubectlAsAdmin returns a function that runs kubectl against the test control plane as its
// admin; the function may be called from any goroutine.
func kubectlAsAdmin(t *testing.T) func(args ...string) (string, error) {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is needed to test what users type: %v", err)
	}
	cfg := env.Config
	c := clientcmdapi.NewConfig()
	c.Clusters["env"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData, CertificateAuthority: cfg.CAFile,
		InsecureSkipTLSVerify: cfg.Insecure}
	c.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData,
		ClientCertificate: cfg.CertFile, ClientKey: cfg.KeyFile, Token: cfg.BearerToken}
	c.Contexts["env"] = &clientcmdapi.Context{Cluster: "env", AuthInfo: "admin"}
	c.CurrentContext = "env"
	file := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*c, file); err != nil {
		t.Fatal(err)
	}
	return func(args ...string) (string, error) {
		out, err := exec.Command(path, append([]string{"--kubeconfig", file}, args...)...).CombinedOutput()
		return string(out), err
	}
}

// What docs/datacenter-lifecycle.md tells GitOps users to type works: waiting for Ready
// returns once a run succeeded; waiting for Reconciling=False returns as soon as a run is
// finished either way, and a failed run is Stalled, not Ready.
func TestKubectlWaitOnRunConditions(t *testing.T) {
	ns := env.Namespace(t)
	readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))
	kubectl := kubectlAsAdmin(t)
	ok := builders.MakeBenchmarkRun("waited", ns).Datacenter("dc1").Writers(1).Duration(time.Second).Obj()
	pl.Create(t, ok)
	done := make(chan error, 1)
	var out string
	go func() {
		var err error
		out, err = kubectl("wait", "-n", ns, "--for=condition=Ready", "benchmarkrun/waited", "--timeout=60s")
		done <- err
	}()
	completeRun(t, ns, "waited", 1)
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out, "condition met") {
			t.Fatalf("kubectl wait --for=condition=Ready: %v\n%s", err, out)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("kubectl wait did not return")
	}

	failed := builders.MakeBenchmarkRun("refused", ns).Datacenter("dc1").Image("elsewhere.example/x:1").Writers(1).Duration(time.Second).Obj()
	pl.Create(t, failed)
	start := time.Now()
	if out, err := kubectl("wait", "-n", ns, "--for=condition=Reconciling=False", "benchmarkrun/refused", "--timeout=30s"); err != nil {
		t.Fatalf("kubectl wait --for=condition=Reconciling=False: %v\n%s", err, out)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("a refused run took %s to finish", took)
	}
	if out, err := kubectl("wait", "-n", ns, "--for=condition=Stalled", "benchmarkrun/refused", "--timeout=5s"); err != nil {
		t.Errorf("a failed run is not Stalled: %v\n%s", err, out)
	}
	if c := findCond(pl.Run(t, failed), cbv1.ConditionReady); c.Status != metav1.ConditionFalse || c.Reason != cbv1.ReasonImageNotAllowed {
		t.Errorf("Ready %s/%s on a failed run", c.Status, c.Reason)
	}
}
