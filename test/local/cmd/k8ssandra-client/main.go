// Command k8ssandra-client is the server-config-init container of the images the kind
// workflow builds without a registry (hack/kind-cass-images.sh): `config build`, as
// k8ssandra-client's kubectl-k8ssandra runs it for cass-operator, rendered by
// test/local/configbuild from CONFIG_FILE_DATA and the pod's variables, the base config in
// /cassandra-base-config (copied there by server-config-init-base) and the output in /config.
// No other command of the real client is played.
package main

import (
	"fmt"
	"os"

	"github.com/cassbench/cassbench/test/local/configbuild"
)

const (
	baseDir = "/cassandra-base-config"
	outDir  = "/config"
)

func main() {
	if len(os.Args) != 3 || os.Args[1] != "config" || os.Args[2] != "build" {
		fmt.Fprintf(os.Stderr, "k8ssandra-client: only `config build` is played here (got %q)\n", os.Args[1:])
		os.Exit(2)
	}
	if err := build(); err != nil {
		fmt.Fprintf(os.Stderr, "k8ssandra-client: config build: %v\n", err)
		os.Exit(1)
	}
}

func build() error {
	in, err := configbuild.ParseInput(os.Getenv("CONFIG_FILE_DATA"))
	if err != nil {
		return err
	}
	node, err := configbuild.NodeFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	if err := configbuild.Build(baseDir, outDir, in, node); err != nil {
		return err
	}
	fmt.Printf("k8ssandra-client: rendered %s from %s for %s (rack %s)\n", outDir, baseDir, node.ListenIP, node.Rack)
	return nil
}
