package validation_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestDumpBadSpecs(t *testing.T) {
	dir := "/tmp/i24-bad"
	_ = os.MkdirAll(dir, 0o755)
	var index []string
	for _, name := range sortedKeys(rejectedRuns) {
		run := validRun(t, "")
		run.SetGenerateName("")
		run.SetName("bad")
		unstructuredClean(run.Object)
		for _, m := range rejectedRuns[name].mutate {
			m(t, run.Object)
		}
		data, _ := yaml.Marshal(run.Object)
		file := strings.NewReplacer(" ", "-", "'", "", ",", "", "/", "-").Replace(name) + ".yaml"
		_ = os.WriteFile(filepath.Join(dir, file), data, 0o644)
		index = append(index, file+"\t"+rejectedRuns[name].field)
	}
	_ = os.WriteFile(filepath.Join(dir, "INDEX"), []byte(strings.Join(index, "\n")+"\n"), 0o644)
}

func unstructuredClean(obj map[string]any) {
	delete(obj, "status")
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
		delete(md, "namespace")
	}
}
