// Command local-cluster starts cassbench's local end-to-end environment (see test/local) and
// leaves it running until Ctrl-C: a control plane with cass-operator and cassbench's chart, a
// one-node datacenter dc1 backed by real Cassandra, and pods that run as local processes. Run
// it with `make local-cluster`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/cassbench/cassbench/internal/testutil/kube"
	local "github.com/cassbench/cassbench/test/local"
)

func main() {
	local.RunShimIfRequested() // this binary also starts the pods' containers
	// The environment's steps are its own lines; envtest's log would only repeat them.
	ctrllog.SetLogger(logr.Discard())
	o := local.Options{Out: os.Stderr}
	flag.StringVar(&o.Namespace, "namespace", "default", "namespace of the datacenter")
	flag.StringVar(&o.Datacenter, "datacenter", "dc1", "name of the CassandraDatacenter")
	flag.StringVar(&o.Heap, "heap", "512M", "heap of each Cassandra node unless a run sets one")
	flag.IntVar(&o.MaxNodes, "max-nodes", 2, "largest size a run may give the datacenter (each node needs about 1.5 GiB)")
	kubeconfig := flag.String("write-kubeconfig", filepath.Join(kube.CacheDir(), "local", "kubeconfig"), "where to write the admin kubeconfig")
	keep := flag.Bool("keep", false, "keep the working directory (logs, pod files) after stopping")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env, err := local.Start(ctx, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "local-cluster: %v\n", err)
		os.Exit(1)
	}
	code := 0
	if err := writeKubeconfig(env.AdminKubeconfig, *kubeconfig); err != nil {
		fmt.Fprintf(os.Stderr, "local-cluster: %v\n", err)
		code = 1
	} else {
		fmt.Printf(`
The local cluster is running: CassandraDatacenter %s/%s (%d node, real Cassandra) run by the
real cass-operator, cassbench installed by its Helm chart (release cassbench in
cassbench-system), kube-controller-manager and kube-scheduler, and pods as local processes.

  export KUBECONFIG=%s
  kubectl apply -f config/samples/kind-demo.yaml
  kubectl get benchmarkruns -w

Logs: %s (kube-controller-manager.log, kube-scheduler.log, harness.log,
pods/*/container.log: the manager's and cass-operator's among them; the manager's is
%s)
Ctrl-C stops everything, Cassandra included.
`, o.Namespace, o.Datacenter, 1, *kubeconfig, env.Dir, env.ManagerLog())
		<-ctx.Done()
	}
	stop()
	fmt.Fprintln(os.Stderr, "local-cluster: stopping")
	env.Stop()
	if !*keep {
		_ = env.Remove()
	}
	os.Exit(code)
}

func writeKubeconfig(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o600)
}
