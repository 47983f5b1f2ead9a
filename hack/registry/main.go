// Command registry is the CNCF distribution registry with the filesystem storage driver only:
// the tests and the local environment push charts and images to it on 127.0.0.1. The
// distribution module's own cmd/registry links every cloud storage driver (S3, Azure, GCS and
// their SDKs, gRPC and Envoy's control plane with them), which took most of a cold build here
// and none of which a registry on loopback uses. A module of its own, so that cassbench's
// go.mod does not carry the registry's dependencies.
package main

import (
	"os"

	"github.com/distribution/distribution/v3/registry"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
)

func main() {
	if err := registry.RootCmd.Execute(); err != nil {
		// RootCmd has said what went wrong.
		os.Exit(1)
	}
}
