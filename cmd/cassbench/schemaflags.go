package main

import (
	"flag"
	"fmt"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cli"
	"github.com/cassbench/cassbench/internal/podenv"
	"github.com/cassbench/cassbench/internal/setup"
)

// schemaFlags are what setup may do to keyspaces beyond the spec: which existing keyspaces a
// recreating run may drop, and how the snapshots a drop leaves are cleared. The controller
// passes them through the environment (from the datacenter's annotation and its management
// API); `cassbench run` and `cassbench setup` users pass flags.
type schemaFlags struct {
	allowDrop      string
	clearSnapshots string
	nodetool       string
}

func (f *schemaFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.allowDrop, "allow-drop-keyspaces", cli.EnvOr(podenv.AllowDropKeyspaces, ""),
		"comma-separated keyspaces (names or patterns with *) that schema.recreate may drop although cassbench did not create them (env "+podenv.AllowDropKeyspaces+")")
	fs.StringVar(&f.clearSnapshots, "clear-snapshots", cli.EnvOr(podenv.ClearSnapshots, podenv.ClearSnapshotsNone),
		"how to clear the snapshots a recreating drop leaves: none (list them and say how), nodetool (see -nodetool) or management-api (port 8080 of each node) (env "+podenv.ClearSnapshots+")")
	fs.StringVar(&f.nodetool, "nodetool", "nodetool -h {node}",
		"nodetool command for -clear-snapshots nodetool; {node} is replaced by each node's address")
}

// apply sets the setup config from the flags.
func (f *schemaFlags) apply(cfg *setup.Config) error {
	allowed, err := setup.ParseKeyspacePatterns(f.allowDrop)
	if err != nil {
		return fmt.Errorf("-allow-drop-keyspaces (the datacenter's annotation %s for a setup Job): %w", cbv1.AllowDropKeyspacesAnnotation, err)
	}
	cfg.AllowDrop = allowed
	cfg.AllowDropWhere = "-allow-drop-keyspaces (the CassandraDatacenter's annotation cassbench.io/allow-drop-keyspaces when the controller runs it)"
	switch f.clearSnapshots {
	case podenv.ClearSnapshotsNone, "":
	case podenv.ClearSnapshotsManagementAPI:
		cfg.Snapshots = setup.ManagementAPI{}
	case podenv.ClearSnapshotsNodetool:
		words := strings.Fields(f.nodetool)
		if len(words) == 0 {
			return fmt.Errorf("-nodetool is empty")
		}
		cfg.Snapshots = setup.Nodetool{Command: func(node string) ([]string, error) {
			out := make([]string, len(words))
			for i, w := range words {
				out[i] = strings.ReplaceAll(w, "{node}", node)
			}
			return out, nil
		}}
	default:
		return fmt.Errorf("-clear-snapshots %q: use none, nodetool or management-api", f.clearSnapshots)
	}
	return nil
}
