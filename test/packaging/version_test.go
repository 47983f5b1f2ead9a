package packaging_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// Every binary hack/build.sh makes says which release and commit it is: the chart's
// appVersion (also the image's tag, and so what a user installed), the clone's commit and that
// commit's date. The manager says it when it starts, before it needs a cluster.
func TestBinariesReportTheChartsVersionAndTheCommit(t *testing.T) {
	out := t.TempDir()
	if _, err := run(env.Root, nil, filepath.Join(env.Root, "hack", "build.sh"), out); err != nil {
		t.Fatalf("hack/build.sh: %v", err)
	}
	chart := chartMetadata(t)
	commit := gitOutput(t, "rev-parse", "HEAD")
	if status := gitOutput(t, "status", "--porcelain", "--untracked-files=no"); status != "" {
		commit += "-dirty"
	}
	want := map[string]string{"version": chart.AppVersion, "commit": commit, "date": gitOutput(t, "log", "-1", "--format=%cI")}

	got := map[string]string{}
	text, err := run(env.Root, nil, filepath.Join(out, "cassbench"), "version", "-o", "json")
	if err != nil {
		t.Fatalf("cassbench version: %v", err)
	}
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("cassbench version -o json: %v: %q", err, text)
	}
	delete(got, "goVersion")
	delete(got, "platform")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cassbench version (-want +got):\n%s", diff)
	}

	// Outside a cluster the manager stops at once, having said what it is.
	cmd := exec.Command(filepath.Join(out, "manager"), "--leader-elect=false")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(t.TempDir(), "none"), "KUBERNETES_SERVICE_HOST=")
	logged, _ := cmd.CombinedOutput()
	line := regexp.MustCompile(`(?m)^.*"msg":"starting".*$`).Find(logged)
	if line == nil {
		t.Fatalf("the manager logged no start line:\n%s", logged)
	}
	var start map[string]any
	if err := json.Unmarshal(line, &start); err != nil {
		t.Fatalf("the manager's start line %q: %v", line, err)
	}
	for key, w := range want {
		if start[key] != w {
			t.Errorf("the manager's start line has %s %v, want %q: %s", key, start[key], w, line)
		}
	}
}

// chartMeta is what the tests read of charts/cassbench/Chart.yaml.
type chartMeta struct {
	Version    string `json:"version"`
	AppVersion string `json:"appVersion"`
}

func chartMetadata(t *testing.T) chartMeta {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.Root, "charts", "cassbench", "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c chartMeta
	if err := yaml.Unmarshal(b, &c); err != nil || c.AppVersion == "" || c.Version == "" {
		t.Fatalf("Chart.yaml: version %q, appVersion %q (%v)", c.Version, c.AppVersion, err)
	}
	return c
}

func gitOutput(t *testing.T, args ...string) string {
	t.Helper()
	out, err := run(env.Root, nil, "git", args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(out)
}
