// Package verify checks the checks of make verify: each must fail on the tree it exists to
// refuse, shown on a scratch copy of the repository.
package verify_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// scratchCopy copies the files git would commit (tracked, and untracked but not ignored) into
// a temporary directory.
func scratchCopy(t *testing.T) string {
	t.Helper()
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("finding the repository: %v", err)
	}
	root := strings.TrimSpace(string(top))
	out, err := exec.Command("git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z").Output()
	if err != nil {
		t.Fatalf("listing files: %v", err)
	}
	dir := t.TempDir()
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, f))
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func verifyTidy(dir string) (string, error) {
	cmd := exec.Command("make", "-s", "--no-print-directory", "verify-tidy")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// make verify-tidy passes on the tree as it is and fails once go.mod is untidy: here a direct
// requirement marked // indirect, as every requirement was before go mod tidy first ran.
func TestVerifyTidyFailsOnAnUntidyGoMod(t *testing.T) {
	dir := scratchCopy(t)
	if out, err := verifyTidy(dir); err != nil {
		t.Fatalf("make verify-tidy fails on the tree as it is (run go mod tidy): %v\n%s", err, out)
	}
	gomod := filepath.Join(dir, "go.mod")
	data, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	const direct = "\tsigs.k8s.io/yaml v1.6.0\n"
	if !strings.Contains(string(data), direct) {
		t.Fatalf("go.mod has no line %q to make untidy", direct)
	}
	untidy := strings.Replace(string(data), direct, "\tsigs.k8s.io/yaml v1.6.0 // indirect\n", 1)
	if err := os.WriteFile(gomod, []byte(untidy), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := verifyTidy(dir)
	if err == nil {
		t.Fatalf("make verify-tidy passes on an untidy go.mod:\n%s", out)
	}
	if !strings.Contains(out, "go.mod and go.sum are not tidy") || !strings.Contains(out, "sigs.k8s.io/yaml") {
		t.Errorf("make verify-tidy fails without naming the change:\n%s", out)
	}
}
