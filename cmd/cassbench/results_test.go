package main

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report/reporttest"
	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// The golden files are internal/report's: a run and a sweep read back from a real apiserver
// must render exactly as the objects the controllers wrote.
var goldenDir = filepath.Join("..", "..", "internal", "report", "testdata")

func TestResultsFromTheCluster(t *testing.T) {
	env := kube.Start(t)
	ns := env.Namespace(t)
	ctx := context.Background()
	for _, obj := range []client.Object{reporttest.Run(ns), reporttest.Sweep(ns)} {
		createWithStatus(t, env.Client, obj)
	}
	// The kubeconfig's context names the namespace, as kubectl's does.
	kubeconfig := writeKubeconfig(t, env, ns)
	dir := t.TempDir()

	cases := map[string]struct {
		args   []string
		golden string
		code   int
		// stderr is a phrase the error output must hold.
		stderr string
		plot   string
	}{
		"run json":             {args: []string{"ip-by-city-8", "-o", "json"}, golden: "run.json"},
		"run csv":              {args: []string{"--kind", "run", "ip-by-city-8", "-o", "csv"}, golden: "run.csv"},
		"run table":            {args: []string{"ip-by-city-8"}, golden: "run.txt"},
		"sweep json":           {args: []string{"writers-by-key", "-o=json"}, golden: "sweep.json"},
		"sweep csv":            {args: []string{"writers-by-key", "--kind=sweep", "--output", "csv", "-n", ns}, golden: "sweep.csv"},
		"sweep table and plot": {args: []string{"writers-by-key", "--plot", filepath.Join(dir, "sweep.png")}, golden: "sweep.txt", plot: "sweep.png"},
		"run plot":             {args: []string{"ip-by-city-8", "-o", "csv", "--plot", filepath.Join(dir, "run.png")}, golden: "run.csv", plot: "run.png"},
		"svg plot":             {args: []string{"writers-by-key", "-o", "csv", "--plot", filepath.Join(dir, "sweep.svg")}, golden: "sweep.csv", plot: "sweep.svg"},
		"not found":            {args: []string{"nope"}, code: 1, stderr: "no BenchmarkRun or BenchmarkSweep named nope in namespace " + ns},
		"wrong kind":           {args: []string{"writers-by-key", "--kind", "run"}, code: 1, stderr: "no BenchmarkRun named writers-by-key"},
		"other namespace":      {args: []string{"ip-by-city-8", "-n", "default"}, code: 1, stderr: "in namespace default"},
		"bad output":           {args: []string{"ip-by-city-8", "-o", "yaml"}, code: 2, stderr: `unknown output format "yaml"`},
		"bad plot name":        {args: []string{"ip-by-city-8", "--plot", "x.jpg"}, code: 2, stderr: "name it .png or .svg"},
		"no name":              {args: []string{"-o", "json"}, code: 2, stderr: "give exactly one NAME"},
		// Files that -o json wrote render as the cluster's objects do, with no cluster at all.
		"run file table":  {args: []string{"-f", filepath.Join(goldenDir, "run.json")}, golden: "run.txt"},
		"run file csv":    {args: []string{"-f", filepath.Join(goldenDir, "run.json"), "-o", "csv"}, golden: "run.csv"},
		"sweep file json": {args: []string{"-o", "json", "-f", filepath.Join(goldenDir, "sweep.json")}, golden: "sweep.json"},
		"file and a name": {args: []string{"ip-by-city-8", "-f", "x.json"}, code: 2, stderr: "not both"},
		"missing file":    {args: []string{"-f", filepath.Join(dir, "none.json")}, code: 1, stderr: "opening results file"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"--kubeconfig", kubeconfig}, tc.args...)
			code := resultsMain(ctx, args, &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tc.stderr)
			}
			if tc.golden != "" {
				reporttest.Golden(t, filepath.Join(goldenDir, tc.golden), stdout.Bytes())
			}
			if tc.plot != "" {
				checkPlot(t, filepath.Join(dir, tc.plot))
			}
		})
	}
	t.Run("kubectl plugin", func(t *testing.T) { kubectlPlugin(t, kubeconfig, ns) })
	t.Run("raw reports", func(t *testing.T) { rawReports(t, env, kubeconfig, ns) })
	t.Run("raw reports in report and compare", func(t *testing.T) { rawReportsRead(t, env, kubeconfig, ns) })
}

func checkPlot(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(path) == ".svg" {
		if !bytes.Contains(data, []byte("<svg")) {
			t.Errorf("%s is not SVG: %.100s", path, data)
		}
		return
	}
	if n := len(data); n < 10_000 || n > 500_000 {
		t.Errorf("%s is %d bytes", path, n)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if s := img.Bounds().Size(); s.X < 600 || s.Y < 400 {
		t.Errorf("%s is %v", path, s)
	}
}

// createWithStatus creates obj and writes its status the way its controller would.
func createWithStatus(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	ctx := context.Background()
	var setStatus func()
	switch o := obj.(type) {
	case *cbv1.BenchmarkRun:
		status := o.Status
		setStatus = func() { o.Status = status }
	case *cbv1.BenchmarkSweep:
		status := o.Status
		setStatus = func() { o.Status = status }
	}
	if err := c.Create(ctx, obj); err != nil {
		t.Fatalf("creating %s: %v", obj.GetName(), err)
	}
	setStatus()
	if err := c.Status().Update(ctx, obj); err != nil {
		t.Fatalf("writing the status of %s: %v", obj.GetName(), err)
	}
}

// writeKubeconfig writes a kubeconfig for the test's apiserver whose context names namespace.
func writeKubeconfig(t *testing.T, env *kube.Env, namespace string) string {
	t.Helper()
	cfg := env.Config
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData,
		Token: cfg.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin", Namespace: namespace}
	kc.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}
