// Package tier lets `make test-unit` and the other tier targets run a subset of the tests
// without editing them: tests that need a control plane or Cassandra reach it through
// internal/testutil/kube, internal/testutil/cassandra or test/local, and those ask here
// whether their tier runs.
//
// CASSBENCH_TEST_TIERS lists the tiers to run, comma-separated (unit, integration, cassandra,
// local). Unset, every tier runs: plain `go test ./...` and `make test` run everything, and a
// missing control plane or Java fails them instead of skipping. hack/test-tiers.sh lists the
// packages of each tier and checks that every test package is in one.
package tier

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// Tier is a set of tests with the same needs.
type Tier string

const (
	// Unit tests need Go alone.
	Unit Tier = "unit"
	// Integration tests need a control plane (envtest: kube-apiserver and etcd).
	Integration Tier = "integration"
	// Cassandra tests need a real Cassandra, started by internal/localcassandra (Java).
	Cassandra Tier = "cassandra"
	// Local tests run the end-to-end scenarios of test/local: control plane, manager, pods
	// as processes and Cassandra.
	Local Tier = "local"
)

// Variable names the environment variable that selects tiers.
const Variable = "CASSBENCH_TEST_TIERS"

// Enabled tells whether t runs.
func Enabled(t Tier) bool {
	v, ok := os.LookupEnv(Variable)
	if !ok {
		return true
	}
	for _, s := range strings.Split(v, ",") {
		if Tier(strings.TrimSpace(s)) == t {
			return true
		}
	}
	return false
}

// Require skips tb unless t runs.
func Require(tb testing.TB, t Tier) {
	tb.Helper()
	if !Enabled(t) {
		tb.Skipf("%s test: %s=%s leaves the %s tier out (make test-%s runs it)", t, Variable, os.Getenv(Variable), t, t)
	}
}

// Main is for a TestMain whose package needs t as a whole: unless t runs, it says so and
// exits 0 without running the package's tests.
func Main(t Tier) {
	if !Enabled(t) {
		fmt.Fprintf(os.Stdout, "skipped: every test of this package is in the %s tier (make test-%s)\n", t, t)
		os.Exit(0)
	}
}
