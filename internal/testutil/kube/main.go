package kube

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/cassbench/cassbench/internal/testutil/tier"
)

// Main runs a test package against a control plane of its own, as its TestMain: it sets
// controller-runtime's logger (errors only, everything with CASSBENCH_TEST_VERBOSE set),
// starts the Env and hands it to ready, which may install more and fails the package with its
// error, runs the tests, stops the Env and exits with the tests' code. A control plane that
// cannot start fails the package: tests never skip for want of one.
//
// Outside the integration tier (CASSBENCH_TEST_TIERS, see internal/testutil/tier) the package
// is skipped as a whole.
func Main(m *testing.M, ready func(*Env) error) {
	tier.Main(tier.Integration)
	level := zapcore.Level(2)
	if os.Getenv("CASSBENCH_TEST_VERBOSE") != "" {
		level = -2
	}
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.Level(level)))
	code, err := runPackage(m, ready)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(code)
}

func runPackage(m *testing.M, ready func(*Env) error) (int, error) {
	e, stop, err := StartEnv()
	if err != nil {
		return 0, err
	}
	defer stop()
	if err := ready(e); err != nil {
		return 0, err
	}
	return m.Run(), nil
}
