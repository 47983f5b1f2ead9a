package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cassbench/cassbench/internal/setup"
)

func TestSchemaFlags(t *testing.T) {
	f := schemaFlags{allowDrop: "bench, bench_*", clearSnapshots: "nodetool", nodetool: "nodetool -h {node} -p 7199"}
	var cfg setup.Config
	if err := f.apply(&cfg); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"bench", "bench_*"}, cfg.AllowDrop); diff != "" {
		t.Error(diff)
	}
	nt, ok := cfg.Snapshots.(setup.Nodetool)
	if !ok {
		t.Fatalf("clearer %T, want setup.Nodetool", cfg.Snapshots)
	}
	cmd, err := nt.Command("10.1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"nodetool", "-h", "10.1.2.3", "-p", "7199"}, cmd); diff != "" {
		t.Error(diff)
	}
	if !strings.Contains(cfg.AllowDropWhere, "-allow-drop-keyspaces") {
		t.Errorf("a refusal would point to %q", cfg.AllowDropWhere)
	}

	for _, bad := range []schemaFlags{{clearSnapshots: "rm"}, {allowDrop: "b?"}, {clearSnapshots: "nodetool", nodetool: " "}} {
		if err := bad.apply(&setup.Config{}); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if err := (&schemaFlags{clearSnapshots: "management-api"}).apply(&cfg); err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg.Snapshots.(setup.ManagementAPI); !ok {
		t.Errorf("clearer %T, want setup.ManagementAPI", cfg.Snapshots)
	}
}
