// Command local-cluster starts cassbench's local end-to-end environment (see test/local) and
// leaves it running until Ctrl-C: a control plane with the manager, a one-node datacenter dc1
// backed by real Cassandra, and pods that run as local processes. Run it with
// `make local-cluster`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/cassbench/cassbench/internal/testutil/kube"
	local "github.com/cassbench/cassbench/test/local"
)

func main() {
	local.RunShimIfRequested() // this binary also starts the pods' containers
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
The local cluster is running: CassandraDatacenter %s/%s (%d node, real Cassandra), the
cassbench manager, kube-controller-manager, and pods as local processes.

  export KUBECONFIG=%s
  kubectl apply -f config/samples/kind-demo.yaml
  kubectl get benchmarkruns -w

Logs: %s (manager.log, kube-controller-manager.log, harness.log, pods/*/container.log)
Ctrl-C stops everything, Cassandra included.
`, o.Namespace, o.Datacenter, 1, *kubeconfig, env.Dir)
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
