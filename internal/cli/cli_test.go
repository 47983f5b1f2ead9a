package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cassbench/cassbench/internal/admission"
	"github.com/cassbench/cassbench/internal/podenv"
)

func TestWriteTerminationLog(t *testing.T) {
	path := t.TempDir() + "/termination-log"
	if err := WriteTerminationLog(path, []byte(`{"v":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := WriteTerminationLog(path, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := WriteTerminationLog("", []byte(`{}`)); err != nil {
		t.Errorf("an empty path writes nothing, got %v", err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != `{}` {
		t.Errorf("termination log holds %q, want the last write only", b)
	}
}

// The writer binary reads back, unchanged, the spec admission produced: from the environment
// as the controller sets it, or from a manifest file as `cassbench validate -o json` prints it.
func TestAdmittedSpecReadsWhatAdmissionWrote(t *testing.T) {
	want, err := admission.RunSpec(t.Context(), []byte(`{"datacenterRef": {"name": "dc1"}, "writers": {"replicas": 3, "duration": "1m"}}`))
	if err != nil {
		t.Fatal(err)
	}
	specJSON, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(t.TempDir(), "run.json")
	data := `{"apiVersion": "cassbench.io/v1alpha1", "kind": "BenchmarkRun", "metadata": {"name": "r"}, "spec": ` + string(specJSON) + `, "status": {}}`
	if err := os.WriteFile(manifest, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(podenv.Spec, string(specJSON))
	for name, file := range map[string]string{"environment": "", "manifest file": manifest} {
		got, err := AdmittedSpec(file)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: spec differs from the admitted one (-want +got):\n%s", name, diff)
		}
	}
}

func TestAdmittedSpecRefusesWhatWasNotAdmitted(t *testing.T) {
	cases := map[string]struct{ env, file, want string }{
		"nothing":         {want: "no spec: pass -f FILE or set " + podenv.Spec},
		"YAML":            {env: "writers: {replicas: 1}", want: "`cassbench writer -f` reads YAML and admits it"},
		"unknown field":   {env: `{"writers": {"replicas": 1, "concurency": 4}}`, want: `unknown field "concurency"`},
		"other kind":      {env: `{"kind": "BenchmarkSweep", "spec": {}}`, want: `a manifest of kind "BenchmarkSweep"`},
		"missing file":    {file: "/nonexistent/spec.json", want: "reading spec: open /nonexistent/spec.json"},
		"names its place": {env: `{"writers": 1}`, want: "reading spec from " + podenv.Spec + ":"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv(podenv.Spec, c.env)
			spec, err := AdmittedSpec(c.file)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("AdmittedSpec = %v, %v; want an error containing %q", spec, err, c.want)
			}
		})
	}
}
