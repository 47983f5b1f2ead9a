package controllers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/opmetrics"
)

// Options configure the manager; the command and the integration tests build it the same way.
type Options struct {
	MetricsAddr   string
	SecureMetrics bool
	ProbeAddr     string
	LeaderElect   bool
	// LeaderElectionNamespace is needed when running outside a cluster with leader election.
	LeaderElectionNamespace string
	Image                   string
	// AllowedImages are the images besides Image that runs may name in spec.writers.image; a
	// trailing * matches a prefix. Their pods receive Cassandra credentials.
	AllowedImages    []string
	ProgressInterval time.Duration
	// PodStartGrace is how long a pod of a run's Job may fail to start before the run fails.
	PodStartGrace time.Duration
	// NudgeInterval is BenchmarkRunReconciler.NudgeInterval.
	NudgeInterval time.Duration
	// PricingConfigMap holds the prices (PricingKey) of runs that give none; empty: none.
	PricingConfigMap types.NamespacedName
	Clock            clock.PassiveClock
	// SkipNameValidation lets one process build the manager more than once (tests restart it).
	SkipNameValidation bool
	// WatchNamespaces limits the cache, and so everything the manager sees, to these
	// namespaces; empty watches all. The Helm chart then grants its role there only.
	WatchNamespaces []string
	// WrapClient, when set, wraps the client the BenchmarkRun reconciler writes through, and
	// WrapSweepClient the BenchmarkSweep reconciler's (tests inject faults with them).
	WrapClient, WrapSweepClient func(client.Client) client.Client
}

// Scheme holds every type the manager reads or writes.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, cbv1.AddToScheme, cassdcapi.AddToScheme} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("building scheme: %w", err)
		}
	}
	return s, nil
}

// cacheSynced is ready once the informers have listed what they watch: before that, a
// manager acts on a partial view (a run that seems to hold no datacenter, Jobs that seem
// missing).
func cacheSynced(c cache.Cache) healthz.Checker {
	return func(*http.Request) error {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if !c.WaitForCacheSync(ctx) {
			return errors.New("informer caches are not synced yet")
		}
		return nil
	}
}

// NewManager builds the manager with the BenchmarkRun and BenchmarkSweep controllers registered. Its cache holds
// only the Jobs and pods cassbench made, so memory does not grow with the cluster.
func NewManager(cfg *rest.Config, o Options) (ctrl.Manager, error) {
	scheme, err := Scheme()
	if err != nil {
		return nil, err
	}
	ours := labels.SelectorFromSet(labels.Set{"app.kubernetes.io/managed-by": "cassbench"})
	metrics := metricsserver.Options{BindAddress: o.MetricsAddr, SecureServing: o.SecureMetrics}
	if o.SecureMetrics {
		metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metrics,
		HealthProbeBindAddress:  o.ProbeAddr,
		LeaderElection:          o.LeaderElect,
		LeaderElectionID:        "cassbench-manager.cassbench.io",
		LeaderElectionNamespace: o.LeaderElectionNamespace,
		// A manager that stops (a rollout) hands the lease on at once instead of leaving the
		// next one waiting out its duration; it exits right after, so nothing acts twice.
		LeaderElectionReleaseOnCancel: true,
		Controller:                    config.Controller{SkipNameValidation: ptr.To(o.SkipNameValidation)},
		Cache: cache.Options{
			DefaultNamespaces: watchNamespaces(o.WatchNamespaces),
			ByObject: map[client.Object]cache.ByObject{
				&batchv1.Job{}: {Label: ours},
				&corev1.Pod{}:  {Label: ours},
				// Only the runs' report ConfigMaps, never the cluster's others.
				&corev1.ConfigMap{}: {Label: ours},
			},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("creating manager: %w", err)
	}
	if o.ProbeAddr != "" && o.ProbeAddr != "0" {
		if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
			return nil, fmt.Errorf("adding health check: %w", err)
		}
		if err := mgr.AddReadyzCheck("readyz", cacheSynced(mgr.GetCache())); err != nil {
			return nil, fmt.Errorf("adding readiness check: %w", err)
		}
	}
	c := mgr.GetClient()
	if o.WrapClient != nil {
		c = o.WrapClient(c)
	}
	r := &BenchmarkRunReconciler{
		Client:           c,
		APIReader:        mgr.GetAPIReader(),
		Recorder:         mgr.GetEventRecorder("cassbench"),
		Clock:            o.Clock,
		Image:            o.Image,
		AllowedImages:    o.AllowedImages,
		WatchNamespaces:  o.WatchNamespaces,
		ProgressInterval: o.ProgressInterval,
		PodStartGrace:    o.PodStartGrace,
		NudgeInterval:    o.NudgeInterval,
		PricingConfigMap: o.PricingConfigMap,
	}
	if err := r.SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("registering the BenchmarkRun controller: %w", err)
	}
	if err := mgr.Add(operatorMetrics.Runnable(mgr.GetCache(), o.Clock)); err != nil {
		return nil, fmt.Errorf("adding the operator's metrics: %w", err)
	}
	sc := mgr.GetClient()
	if o.WrapSweepClient != nil {
		sc = o.WrapSweepClient(sc)
	}
	sweeps := &BenchmarkSweepReconciler{Client: sc, APIReader: mgr.GetAPIReader(), Recorder: mgr.GetEventRecorder("cassbench"), Clock: o.Clock}
	if err := sweeps.SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("registering the BenchmarkSweep controller: %w", err)
	}
	return mgr, nil
}

// operatorMetrics is registered once per process on controller-runtime's registry, which the
// manager's metrics endpoint serves; each manager points it at its cache while it runs.
var operatorMetrics = func() *opmetrics.Collector {
	c := opmetrics.New(clock.RealClock{})
	ctrlmetrics.Registry.MustRegister(c)
	return c
}()

// watchNamespaces is the cache's DefaultNamespaces: nil (all namespaces) for an empty list.
func watchNamespaces(namespaces []string) map[string]cache.Config {
	if len(namespaces) == 0 {
		return nil
	}
	m := make(map[string]cache.Config, len(namespaces))
	for _, ns := range namespaces {
		m[ns] = cache.Config{}
	}
	return m
}
