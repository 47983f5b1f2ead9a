package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// podSide are the packages that run in writer pods only: reading the nodes over CQL and
// from their processes. The manager merges and judges what they report and links none of
// them (nor the CQL driver they need).
var podSide = []string{
	"github.com/cassbench/cassbench/internal/nodewatch",
	"github.com/cassbench/cassbench/internal/nodeproc",
	"github.com/apache/cassandra-gocql-driver/v2",
}

// linked lists the pod-side packages that pkg links, as the go tool resolves its imports.
func linked(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	deps := strings.Fields(string(out))
	var found []string
	for _, p := range podSide {
		if slices.Contains(deps, p) {
			found = append(found, p)
		}
	}
	return found
}

func TestManagerLinksNoPodSideCode(t *testing.T) {
	if found := linked(t, "."); len(found) > 0 {
		t.Errorf("the manager links pod-side packages: %s", strings.Join(found, ", "))
	}
	// The same check finds them where they belong: the cassbench binary runs the writers.
	if found := linked(t, "../cassbench"); len(found) != len(podSide) {
		t.Errorf("cmd/cassbench links %v of the pod-side packages, want all of %v", found, podSide)
	}
}
