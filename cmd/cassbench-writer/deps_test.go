package main

import (
	"os/exec"
	"strings"
	"testing"
)

// Writer pods run this binary for its small memory: a package of offline admission in its
// dependencies puts their state back into every writer. What `go list` says is what links.
func TestWriterLinksNoAdmission(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 {
		t.Fatalf("go list -deps listed %d packages; want the writer's whole graph", len(deps))
	}
	banned := []string{"k8s.io/apiextensions-apiserver", "github.com/google/cel-go", "k8s.io/apiserver",
		"github.com/cassbench/cassbench/internal/admission"}
	var linked []string
	for _, dep := range deps {
		for _, b := range banned {
			if dep == b || strings.HasPrefix(dep, b+"/") {
				linked = append(linked, dep)
			}
		}
	}
	if len(linked) > 0 {
		t.Errorf("cassbench-writer links %d packages of offline admission, which writer pods must not pay for: %s (which import brings them: go list -deps -f '{{.ImportPath}}: {{.Imports}}' ./cmd/cassbench-writer)",
			len(linked), strings.Join(linked, " "))
	}
}
