// Package oracle gives tests the Python oracles they compare cassbench against (Apache Otava,
// an HdrHistogram implementation): hack/oracle-venv.sh installs them from PyPI at pinned
// versions into a cached virtual environment and prints its directory.
package oracle

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Venv is the virtual environment's directory (its programs are in bin/). A test whose oracle
// pip could not install is skipped, and says loudly that it did not pass; what names the oracle
// in that message.
func Venv(t testing.TB, what string) string {
	t.Helper()
	script, err := venvScript()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(script).Output()
	if err != nil {
		msg := err.Error()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			msg += ": " + string(ee.Stderr)
		}
		t.Skipf("SKIPPED, NOT PASSED: pip could not install %s, the oracle of this test: %s", what, msg)
	}
	return strings.TrimSpace(string(out))
}

// venvScript is hack/oracle-venv.sh in the repository above the working directory.
func venvScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		script := filepath.Join(dir, "hack", "oracle-venv.sh")
		if _, err := os.Stat(script); err == nil {
			return script, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no hack/oracle-venv.sh above the working directory")
		}
		dir = parent
	}
}
