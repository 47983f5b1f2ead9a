// Command manager runs the cassbench operator.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/controllers"
	"github.com/cassbench/cassbench/internal/version"
)

func main() {
	o := controllers.Options{ProgressInterval: controllers.DefaultProgressInterval, PodStartGrace: controllers.DefaultPodStartGrace}
	flag.StringVar(&o.MetricsAddr, "metrics-bind-address", ":8443", "address of the metrics endpoint; 0 disables it")
	flag.BoolVar(&o.SecureMetrics, "metrics-secure", true, "serve metrics over HTTPS, authenticated and authorized")
	flag.StringVar(&o.ProbeAddr, "health-probe-bind-address", ":8081", "address of the health and readiness probes")
	// On by default so that two replicas (a rolling update, or a second install by mistake)
	// never both act on one datacenter; `make run` and test/local, outside a cluster, pass
	// --leader-elect=false or a --leader-election-namespace.
	flag.BoolVar(&o.LeaderElect, "leader-elect", true, "elect a leader so that one manager acts at a time (--leader-elect=false outside a cluster, or give --leader-election-namespace)")
	flag.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader election lease (needed outside a cluster)")
	flag.StringVar(&o.Image, "writer-image", os.Getenv("CASSBENCH_IMAGE"), "image of setup and writer pods when a run names none (default $CASSBENCH_IMAGE)")
	flag.DurationVar(&o.ProgressInterval, "progress-interval", o.ProgressInterval, "how often a running run's progress is written to its status")
	flag.DurationVar(&o.PodStartGrace, "pod-start-grace", o.PodStartGrace,
		"how long a setup or writer pod may fail to start (image pull, missing Secret or ConfigMap) before its run fails")
	flag.Func("watch-namespaces", "comma-separated namespaces to watch (default all)", func(v string) error {
		for _, ns := range strings.Split(v, ",") {
			if ns = strings.TrimSpace(ns); ns != "" {
				o.WatchNamespaces = append(o.WatchNamespaces, ns)
			}
		}
		return nil
	})
	flag.Func("allowed-images", "comma-separated images runs may name in spec.writers.image besides --writer-image; a trailing * matches a prefix (default none: only --writer-image)", func(v string) error {
		for _, image := range strings.Split(v, ",") {
			if image = strings.TrimSpace(image); image == "" {
				continue
			}
			if err := allowedImage(image); err != nil {
				return err
			}
			o.AllowedImages = append(o.AllowedImages, image)
		}
		return nil
	})
	flag.Func("pricing-configmap", "namespace/name of a ConfigMap whose key "+controllers.PricingKey+" prices runs that give no spec.pricing (default none)", func(v string) error {
		ns, name, ok := strings.Cut(v, "/")
		if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
			return fmt.Errorf("want namespace/name, got %q", v)
		}
		o.PricingConfigMap = types.NamespacedName{Namespace: ns, Name: name}
		return nil
	})
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	if o.Image != "" && !cbv1.ImageReference(o.Image) {
		fmt.Fprintf(os.Stderr, "--writer-image (or $CASSBENCH_IMAGE) %q is not an image reference: [registry[:port]/]path[:tag][@digest], the path in lower case\n", o.Image)
		os.Exit(2)
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	log := ctrl.Log.WithName("manager")
	v := version.Get()
	log.Info("starting", "version", v.Version, "commit", v.Commit, "date", v.Date, "goVersion", v.GoVersion)

	mgr, err := controllers.NewManager(ctrl.GetConfigOrDie(), o)
	if err != nil {
		log.Error(err, "cannot start")
		os.Exit(1)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped")
		os.Exit(1)
	}
}

// allowedImage checks an --allowed-images entry by the grammar the CRD holds spec.writers.image
// to: an entry no run's image can ever match is a typo that would refuse every run naming it.
func allowedImage(entry string) error {
	if prefix, ok := strings.CutSuffix(entry, "*"); ok {
		if !cbv1.ImagePrefix(prefix) {
			return fmt.Errorf("%q: no image reference begins with %q ([registry[:port]/]path[:tag][@digest], the path in lower case)", entry, prefix)
		}
		return nil
	}
	if !cbv1.ImageReference(entry) {
		return fmt.Errorf("%q is not an image reference ([registry[:port]/]path[:tag][@digest], the path in lower case); end it with * to allow a prefix", entry)
	}
	return nil
}
