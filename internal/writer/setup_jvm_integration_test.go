package writer_test

import (
	"context"
	"slices"
	"testing"

	"github.com/cassbench/cassbench/internal/setup"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// The heap is checked on every node before load: the test cluster's nodes run with 512M, so a
// spec asking for 768M fails naming the node and both sizes, and the collector, which these
// nodes do not log to system_views.system_logs, is reported as not verified rather than
// passed.
func TestSetupVerifiesHeap(t *testing.T) {
	c := cluster(t)
	tests := map[string]struct {
		jvm        map[string]any
		jvm17      map[string]any
		yaml       map[string]any
		err        string
		verified   []string
		unverified []string
	}{
		"heap as the nodes run": {
			jvm:      map[string]any{"max_heap_size": "512M"},
			verified: []string{"jvm-server-options.max_heap_size"},
		},
		"another heap": {
			jvm: map[string]any{"max_heap_size": "768M"},
			err: "node " + c.Hosts[0] + ": jvm-server-options.max_heap_size is 512M (4 × memtable_heap_space and memtable_offheap_space in system_views.settings), wanted 768M",
		},
		"memtable space set by the run": {
			jvm:      map[string]any{"max_heap_size": "512m"},
			yaml:     map[string]any{"memtable_heap_space": "128MiB"},
			verified: []string{"memtable_heap_space", "jvm-server-options.max_heap_size"},
		},
		"collector not readable": {
			jvm:        map[string]any{"max_heap_size": "512M"},
			jvm17:      map[string]any{"garbage_collector": "G1GC"},
			verified:   []string{"jvm-server-options.max_heap_size"},
			unverified: []string{"jvm17-server-options.garbage_collector on 2 of 2 nodes: readable only from the JVM arguments in system_views.system_logs, which this node does not keep"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := spec("it_setup_jvm", func(b *builders.BenchmarkRunBuilder) {
				b.JvmOptions(tc.jvm)
				if tc.jvm17 != nil {
					b.Jvm17Options(tc.jvm17)
				}
				if tc.yaml != nil {
					b.CassandraYaml(tc.yaml)
				}
			})
			report, err := setup.Run(context.Background(), setup.Config{Spec: s, AllowDrop: testKeyspaces, Conn: connOptions(c), ExpectNodes: 2})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.err {
				t.Fatalf("setup error %q, want %q", got, tc.err)
			}
			if tc.err != "" {
				return
			}
			if !slices.Equal(report.SettingsVerified, tc.verified) {
				t.Errorf("verified %q, want %q", report.SettingsVerified, tc.verified)
			}
			if !slices.Equal(report.Unverified, tc.unverified) {
				t.Errorf("unverified %q, want %q", report.Unverified, tc.unverified)
			}
		})
	}
}
