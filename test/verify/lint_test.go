package verify_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// makeIn runs make's target with vars in dir and returns its output.
func makeIn(dir, target string, vars ...string) (string, error) {
	cmd := exec.Command("make", append([]string{"-s", "--no-print-directory", target}, vars...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// appendFile adds text to the end of a file of the scratch copy.
func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// make lint-api passes on api/ as it is and fails on a field that breaks the conventions it
// enforces: a godoc that does not start with the JSON name, and an unbounded string.
func TestLintAPIFailsOnAFieldAgainstTheConventions(t *testing.T) {
	dir := scratchCopy(t)
	if out, err := makeIn(dir, "lint-api"); err != nil {
		t.Fatalf("make lint-api fails on the tree as it is: %v\n%s", err, out)
	}
	appendFile(t, filepath.Join(dir, "api/v1alpha1/writers_types.go"), `
// Extra is a type that breaks the conventions.
type Extra struct {
	// Note about it.
	Note string `+"`json:\"note\"`"+`
}
`)
	out, err := makeIn(dir, "lint-api")
	if err == nil {
		t.Fatalf("make lint-api passes on a field against the conventions:\n%s", out)
	}
	for _, rule := range []string{"commentstart", "maxlength"} {
		if !strings.Contains(out, rule+": ") || !strings.Contains(out, "Extra.Note") {
			t.Errorf("make lint-api does not report %s on Extra.Note:\n%s", rule, out)
		}
	}
}

// The size rules (.golangci.yml): make lint passes on a package as it is and fails on a
// function whose body is 81 lines and on a file of 451.
func TestLintFailsOnAFunctionOrAFileOverTheLimit(t *testing.T) {
	dir := scratchCopy(t)
	pkg := "LINT_PACKAGES=./internal/numfmt/"
	if out, err := makeIn(dir, "lint", pkg); err != nil {
		t.Fatalf("make lint fails on internal/numfmt as it is: %v\n%s", err, out)
	}
	// A body of 81 lines between its braces, as funlen counts a function's length.
	body := "\tn := 0\n" + strings.Repeat("\tn++\n", 79) + "\treturn n\n"
	if got := strings.Count(body, "\n"); got != 81 {
		t.Fatalf("the long function's body has %d lines, want 81", got)
	}
	long := "\nfunc longFunction() int {\n" + body + "}\n"
	if err := os.WriteFile(filepath.Join(dir, "internal/numfmt/long.go"),
		[]byte("package numfmt\n\nvar _ = longFunction\n"+long), 0o644); err != nil {
		t.Fatal(err)
	}
	// 451 lines in all.
	var big strings.Builder
	big.WriteString("package numfmt\n\n// BigFile is over the file-length limit.\nvar BigFile = []int{\n")
	for big.Len() == 0 || strings.Count(big.String(), "\n") < 450 {
		big.WriteString("\t1,\n")
	}
	big.WriteString("}\n")
	if got := strings.Count(big.String(), "\n"); got != 451 {
		t.Fatalf("the big file has %d lines, want 451", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "internal/numfmt/big.go"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := makeIn(dir, "lint", pkg)
	if err == nil {
		t.Fatalf("make lint passes on a function of 81 lines and a file of 451:\n%s", out)
	}
	if !strings.Contains(out, "long.go") || !strings.Contains(out, "(81 > 80) (funlen)") {
		t.Errorf("make lint does not report the 81-line function:\n%s", out)
	}
	if !strings.Contains(out, "big.go") || !strings.Contains(out, "file-length-limit") {
		t.Errorf("make lint does not report the 451-line file:\n%s", out)
	}
}
