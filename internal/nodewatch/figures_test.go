package nodewatch

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cassbench/cassbench/internal/nodeproc"
	"github.com/cassbench/cassbench/internal/summary"
)

func TestLatencyUnit(t *testing.T) {
	tests := map[string]struct {
		version    string
		micros     float64
		resolution int64
		ok         bool
	}{
		// 4.1's and 5.0's table timers count microseconds and the table still scales by 1e-6.
		"5.0.9 holds seconds":       {"5.0.9", 1e6, 1000, true},
		"5.0 beta holds seconds":    {"5.0-beta1", 1e6, 1000, true},
		"4.1 holds seconds":         {"4.1.10", 1e6, 1000, true},
		"4.0 holds milliseconds":    {"4.0.19", 1e3, 1, true},
		"5.1 holds milliseconds":    {"5.1-SNAPSHOT", 1e3, 1, true},
		"unreadable version":        {"", 0, 0, false},
		"version without a minor":   {"5", 0, 0, false},
		"version of no digits at 0": {"x.0.1", 0, 0, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			micros, resolution, ok := LatencyUnit(tc.version)
			if micros != tc.micros || resolution != tc.resolution || ok != tc.ok {
				t.Errorf("LatencyUnit(%q) = %v, %d, %v; want %v, %d, %v", tc.version, micros, resolution, ok, tc.micros, tc.resolution, tc.ok)
			}
		})
	}
}

// snapshots of one node around a window: 10,000 writes applied to the table, of which the
// MutationStage counted only 9,000 (the rest ran inline), 2 flushes, 40 tasks newly blocked in
// the SEP Native-Transport stage (which cannot happen, and must not count) and 3 in a
// non-SEP stage.
func window(version string, p99 float64) (before, after *Snapshot) {
	before = &Snapshot{Node: "127.0.0.1", Version: version, Pools: map[string]Pool{
		"MutationStage":             {Completed: 500},
		"MemtableFlushWriter":       {Completed: 7},
		"Native-Transport-Requests": {BlockedAllTime: 10},
		"HintsDispatcher":           {BlockedAllTime: 1},
	}, LocalWrite: Latency{Count: 100}, LocalRead: Latency{Count: 5}, Expired: 4}
	after = &Snapshot{Node: "127.0.0.1", Datacenter: "dc1", Version: version, Pools: map[string]Pool{
		"MutationStage":             {Completed: 9500},
		"MemtableFlushWriter":       {Completed: 9},
		"Native-Transport-Requests": {BlockedAllTime: 50, Blocked: 7},
		"HintsDispatcher":           {BlockedAllTime: 4, Blocked: 2},
	}, LocalWrite: Latency{Count: 10100}, LocalRead: Latency{Count: 5}, Expired: 10, Overloaded: 1,
		CoordWrite: Latency{P99: p99}, CoordRead: Latency{P99: p99 * 2}}
	return before, after
}

func TestFigures(t *testing.T) {
	tests := map[string]struct {
		version string
		p99     float64
		logs    Logs
		local   *Local
		want    summary.ServerNode
	}{
		"5.0 node: p99 in seconds at 1 ms": {
			version: "5.0.9", p99: 0.002,
			want: summary.ServerNode{Node: "127.0.0.1", Datacenter: "dc1", Mutations: 10000, Flushes: 2, Blocked: 3, BlockedPeak: 2, Dropped: 7,
				CoordWriteP99Micros: 2000, CoordReadP99Micros: 4000, CoordResolution: 1000, Missing: []string{summary.MissingCPURemote, summary.MissingGCRemote}},
		},
		"4.0 node: p99 in milliseconds": {
			version: "4.0.19", p99: 2.125,
			want: summary.ServerNode{Node: "127.0.0.1", Datacenter: "dc1", Mutations: 10000, Flushes: 2, Blocked: 3, BlockedPeak: 2, Dropped: 7,
				CoordWriteP99Micros: 2125, CoordReadP99Micros: 4250, CoordResolution: 1, Missing: []string{summary.MissingCPURemote, summary.MissingGCRemote}},
		},
		"unknown version: no coordinator figure": {
			version: "", p99: 0.002,
			want: summary.ServerNode{Node: "127.0.0.1", Datacenter: "dc1", Mutations: 10000, Flushes: 2, Blocked: 3, BlockedPeak: 2, Dropped: 7, Missing: []string{summary.MissingCPURemote, summary.MissingGCRemote}},
		},
		"logged drops add only the node's own": {
			version: "5.0.9", p99: 0.002,
			logs: Logs{Available: true, DroppedInternal: 5},
			want: summary.ServerNode{Node: "127.0.0.1", Datacenter: "dc1", Mutations: 10000, Flushes: 2, Blocked: 3, BlockedPeak: 2, Dropped: 12,
				CoordWriteP99Micros: 2000, CoordReadP99Micros: 4000, CoordResolution: 1000, Logs: true, GCSource: summary.GCFromSystemLogs,
				// The logs give GC, so only CPU is missing.
				Missing: []string{summary.MissingCPURemote}},
		},
		"a node on this machine: its CPU and every GC pause, not GCInspector's": {
			version: "5.0.9", p99: 0.002,
			logs:  Logs{Available: true, GCPauses: 1, GCTotalMillis: 250, GCMaxMillis: 250},
			local: &Local{CPU: 3 * time.Second, Wall: 2 * time.Second, Cores: 2, GC: &nodeproc.GCPauses{Count: 3, TotalMicros: 262400, MaxMicros: 250300}},
			want: summary.ServerNode{Node: "127.0.0.1", Datacenter: "dc1", Mutations: 10000, Flushes: 2, Blocked: 3, BlockedPeak: 2, Dropped: 7,
				CoordWriteP99Micros: 2000, CoordReadP99Micros: 4000, CoordResolution: 1000, Logs: true,
				CPUMillicores: 1500, CPUCores: 2, GCSource: summary.GCFromLog, GCPauses: 3, GCTotalMillis: 262, GCMaxMillis: 250},
		},
		// A p99 under the table's millisecond reads 0 there: kept with its resolution, so
		// that every output says "< 1 ms" rather than 0.
		"5.0 node, p99 under its resolution": {
			version: "5.0.9", p99: 0,
			local: &Local{CPU: time.Second, Wall: 2 * time.Second, Cores: 2, GC: perfPauses(nodeproc.PerfGC{Count: 4, Total: time.Millisecond},
				nodeproc.PerfGC{Count: 9, Total: 31400 * time.Microsecond}), GCSource: summary.GCFromPerfData},
			want: summary.ServerNode{Node: "127.0.0.1", Datacenter: "dc1", Mutations: 10000, Flushes: 2, Blocked: 3, BlockedPeak: 2, Dropped: 7,
				CoordResolution: 1000, CPUMillicores: 500, CPUCores: 2, GCSource: summary.GCFromPerfData, GCPauses: 5, GCTotalMillis: 30},
		},
		"a local JVM with no gc log and no counters says why": {
			version: "5.0.9", p99: 0.002,
			local: &Local{CPU: time.Second, Wall: 2 * time.Second, Cores: 2, Missing: []string{summary.MissingGCPerfOff}},
			want: summary.ServerNode{Node: "127.0.0.1", Datacenter: "dc1", Mutations: 10000, Flushes: 2, Blocked: 3, BlockedPeak: 2, Dropped: 7,
				CoordWriteP99Micros: 2000, CoordReadP99Micros: 4000, CoordResolution: 1000, CPUMillicores: 500, CPUCores: 2,
				Missing: []string{summary.MissingGCPerfOff}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			before, after := window(tc.version, tc.p99)
			if diff := cmp.Diff(tc.want, Figures(before, after, Peaks{}, tc.logs, tc.local)); diff != "" {
				t.Errorf("Figures (-want +got):\n%s", diff)
			}
		})
	}
}
