package writer_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/nodewatch"
	"github.com/cassbench/cassbench/internal/setup"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

// A node restarted with another heap, and routing its log to system_views.system_logs, is
// caught through the JVM arguments it logged at start, named with both sizes; on that node the
// collector is verified too, while the other node, which keeps no such log, leaves the
// collector unverified rather than passed. (This changes the shared cluster: the next test to
// start it replaces it.)
func TestSetupCatchesANodeStartedWithAnotherHeap(t *testing.T) {
	c := cluster(t)
	c.RestartNodeWith(t, 2, "768M", cassandra.SystemLogsConfig(t))
	tests := map[string]struct {
		jvm, jvm17 map[string]any
		err        string
		verified   []string
		unverified []string
	}{
		"heap": {
			jvm: map[string]any{"max_heap_size": "512M"},
			err: "node " + c.Hosts[1] + ": jvm-server-options.max_heap_size is 768M (JVM arguments), wanted 512M",
		},
		"collector": {
			jvm17:      map[string]any{"garbage_collector": "G1GC"},
			unverified: []string{"jvm17-server-options.garbage_collector on 1 of 2 nodes: readable only from the JVM arguments in system_views.system_logs, which this node does not keep"},
		},
		"another collector": {
			jvm17: map[string]any{"garbage_collector": "ZGC"},
			err:   "node " + c.Hosts[1] + ": jvm17-server-options.garbage_collector is -XX:+UseG1GC (JVM arguments), wanted -XX:+UseZGC",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := spec("it_setup_jvm_node", func(b *builders.BenchmarkRunBuilder) {
				if tc.jvm != nil {
					b.JvmOptions(tc.jvm)
				}
				if tc.jvm17 != nil {
					b.Jvm17Options(tc.jvm17)
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

	// The node's log lines are readable, and those of the other node are not.
	ss := session(t, c, 10*time.Second)
	for _, tg := range nodewatch.Targets(ss, "it_setup_jvm_node", "key_value") {
		logs := nodewatch.ReadLogs(context.Background(), ss, tg, time.Now().Add(-time.Hour), time.Now())
		t.Logf("node %s logs: %+v", tg.Node, logs)
		if want := tg.Node == c.Hosts[1]; logs.Available != want {
			t.Errorf("node %s: logs available %v, want %v", tg.Node, logs.Available, want)
		}
	}
}
