package controllers_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/cassbench/cassbench/controllers"
	"github.com/cassbench/cassbench/internal/testutil/kube"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// These tests run the real manager against a real kube-apiserver and etcd. Nothing runs pods
// there, so the tests play the Job controller and the kubelet (creating pods and writing their
// termination messages and the Jobs' status) and play cass-operator (writing the datacenter's
// status the way v1.31 does).

var (
	env *kube.Env
	// pl plays cass-operator, the Job controller and the kubelet.
	pl play.Player
)

func TestMain(m *testing.M) {
	kube.Main(m, func(e *kube.Env) error {
		env, pl = e, play.Player{C: e.Client}
		return nil
	})
}

const testImage = "cassbench:test"

// manager is a running manager that a test can stop and start again.
type manager struct {
	cancel context.CancelFunc
	done   chan error
}

// startManager runs the manager as a service account bound only to the generated role, so a
// permission the controller needs but the role lacks fails the test.
func startManager(t testing.TB, cfg *rest.Config) *manager {
	t.Helper()
	return startManagerWith(t, cfg, controllers.Options{MetricsAddr: "0"})
}

// startManagerWith is startManager with the test's metrics address (plain HTTP), pricing
// ConfigMap and nudge interval.
func startManagerWith(t testing.TB, cfg *rest.Config, o controllers.Options) *manager {
	t.Helper()
	mgr, err := controllers.NewManager(cfg, controllers.Options{
		MetricsAddr: o.MetricsAddr, ProbeAddr: "0", Image: testImage, ProgressInterval: 500 * time.Millisecond,
		SkipNameValidation: true, PricingConfigMap: o.PricingConfigMap, NudgeInterval: o.NudgeInterval,
	})
	if err != nil {
		t.Fatal(err)
	}
	return start(t, mgr)
}

// start runs a manager until the test ends or it is stopped.
func start(t testing.TB, mgr ctrl.Manager) *manager {
	ctx, cancel := context.WithCancel(context.Background())
	m := &manager{cancel: cancel, done: make(chan error, 1)}
	go func() { m.done <- mgr.Start(ctx) }()
	t.Cleanup(m.stop)
	return m
}

var stopOnce sync.Mutex

func (m *manager) stop() {
	stopOnce.Lock()
	defer stopOnce.Unlock()
	if m.cancel == nil {
		return
	}
	m.cancel()
	<-m.done
	m.cancel = nil
}

// managerConfig is a service-account config bound to config/rbac/role.yaml.
func managerConfig(t testing.TB, ns string) *rest.Config {
	return env.ServiceAccountConfig(t, ns, "cassbench-manager", "config/rbac/role.yaml")
}

var errNotYet = errors.New("not yet")
