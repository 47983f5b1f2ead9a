// Package nodewatch runs in the writer pods and reads what the Cassandra nodes did during a
// run: per-node snapshots of their CQL virtual tables (so it works on cass-operator pods and
// local nodes alike, with no JMX or agent) before and after the measured window and samples
// in between, a node process on the writer's machine (internal/nodeproc), and a management
// API's metrics endpoint where one answers. It turns them into the per-node figures of a
// writer's summary; internal/results merges them and internal/verdict judges them in the
// manager, which links none of this. docs/server.md says why each figure is there.
package nodewatch

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Pool is one row of system_views.thread_pools.
type Pool struct {
	Active, Pending, Blocked, BlockedAllTime, Completed int64
}

// Latency is one table's row of a *_latency virtual table as Cassandra reports it: the
// percentiles of its exponentially decaying reservoir (the last few minutes, weighted
// to the most recent, not the run's window), in the unit LatencyUnit gives for the node's
// version, and a cumulative count of every operation the timer saw.
type Latency struct {
	Count         int64
	P50, P99, Max float64
}

// Snapshot is what one node showed at one moment.
type Snapshot struct {
	Node string
	// Datacenter is the node's (Target.Datacenter).
	Datacenter string
	At         time.Time
	// Version is the node's release_version (system.local): the unit of its latency tables
	// depends on it (LatencyUnit).
	Version string
	// Pools by stage name (MutationStage, ReadStage, Native-Transport-Requests,
	// CompactionExecutor, MemtableFlushWriter, ...).
	Pools map[string]Pool
	// Compacted is the compactions the node recorded in system.compaction_history since the
	// target's CompactedSince, where CompactedRead: the difference of two snapshots is the
	// compactions that finished between them. CompactionExecutor's completed tasks are no
	// count of compactions: every flush submits a background task that finds nothing to do.
	Compacted     int64
	CompactedRead bool
	// Compactions in flight (system_views.sstable_tasks, kind compaction) and the bytes they
	// still have to read.
	Compactions, CompactionBytesLeft int64
	// SSTables of the benchmark table and the strategy's estimate of its pending
	// compactions, where a source gives them (sstables.go); -1 when none does.
	SSTables, PendingCompactions int64
	// SSTableSource says where SSTables came from (summary.SSTablesFrom*).
	SSTableSource string
	// TableMiB and AllMiB are the benchmark table's and all tables' live disk space
	// (system_views.disk_usage, whole MiB).
	TableMiB, AllMiB int64
	// Latencies of the benchmark table as this node saw them as coordinator and as replica.
	CoordWrite, CoordRead, LocalWrite, LocalRead Latency
	// HintFiles pending for other nodes (system_views.pending_hints).
	HintFiles int64
	// HintsStored and HintsDelivered count the hints this node wrote for replicas it could
	// not reach and those it delivered since a moment its source chose (the node's start for
	// the metrics endpoint, the sampler's start for a hints directory: hints.go), so only
	// their differences mean anything; HintsRead says they were read.
	HintsStored, HintsDelivered int64
	HintsRead                   bool
	// Internode messages given up (expired before being sent or processed, refused for
	// overload, or failed) over all peers, in and out: the dropped messages of a 5.0 node.
	Expired, Overloaded, Errors int64
	// Missing names the tables this node could not answer (older versions, access).
	Missing []string
}

// queryTimeout bounds one virtual-table read: they are in memory and answer in milliseconds.
const queryTimeout = 10 * time.Second

// Target is one node to read and the table the run loads.
type Target struct {
	Node, HostID string
	// Datacenter is the node's Cassandra datacenter, as the driver learnt it from the ring.
	Datacenter      string
	Port            int
	Keyspace, Table string
	// CompactedSince is where the count of system.compaction_history rows starts (the
	// sampler sets it a minute before the window, whatever the node's clock says); zero: not
	// counted.
	CompactedSince time.Time
}

// Targets lists the nodes the session knows, sorted by address.
func Targets(s *gocql.Session, keyspace, table string) []Target {
	var out []Target
	for _, h := range s.GetHosts() {
		out = append(out, Target{Node: h.ConnectAddress().String(), HostID: h.HostID(), Datacenter: h.DataCenter(), Port: h.Port(), Keyspace: keyspace, Table: table})
	}
	sortTargets(out)
	return out
}

// Read takes one node's snapshot. A table the node cannot answer is named in Missing; only a
// node that answers nothing is an error.
func Read(ctx context.Context, s *gocql.Session, t Target, now time.Time) (*Snapshot, error) {
	snap := &Snapshot{Node: t.Node, Datacenter: t.Datacenter, At: now, Pools: map[string]Pool{}, SSTables: -1, PendingCompactions: -1}
	// scan runs one query on the node and calls row after each row is scanned into dest.
	scan := func(table, stmt string, values []any, row func(), dest ...any) {
		qctx, cancel := context.WithTimeout(ctx, queryTimeout)
		defer cancel()
		iter := s.Query(stmt, values...).SetHostID(t.HostID).IterContext(qctx)
		for iter.Scan(dest...) {
			row()
		}
		if err := iter.Close(); err != nil {
			snap.Missing = append(snap.Missing, table)
		}
	}

	var name string
	var p Pool
	scan("thread_pools", "SELECT name, active_tasks, pending_tasks, blocked_tasks, blocked_tasks_all_time, completed_tasks FROM system_views.thread_pools", nil,
		func() { snap.Pools[name] = p }, &name, &p.Active, &p.Pending, &p.Blocked, &p.BlockedAllTime, &p.Completed)
	if len(snap.Pools) == 0 {
		return nil, fmt.Errorf("node %s: reading system_views.thread_pools failed", t.Node)
	}

	// The table's write and read counts next (thread_pools tells a node that answers
	// nothing at once): they are the window's exact differences, and load goes on while the
	// other tables are read.
	for _, l := range []struct {
		table string
		into  *Latency
	}{
		{"local_write_latency", &snap.LocalWrite},
		{"local_read_latency", &snap.LocalRead},
		{"coordinator_write_latency", &snap.CoordWrite},
		{"coordinator_read_latency", &snap.CoordRead},
	} {
		var row Latency
		scan(l.table, "SELECT count, p50th_ms, p99th_ms, max_ms FROM system_views."+l.table+" WHERE keyspace_name = ? AND table_name = ?",
			[]any{t.Keyspace, t.Table}, func() { *l.into = row }, &row.Count, &row.P50, &row.P99, &row.Max)
	}

	scan("local", "SELECT release_version FROM system.local", nil, func() {}, &snap.Version)

	var kind, unit string
	var progress, total int64
	scan("sstable_tasks", "SELECT kind, progress, total, unit FROM system_views.sstable_tasks", nil, func() {
		if strings.EqualFold(kind, "compaction") {
			snap.Compactions++
			if strings.EqualFold(unit, "bytes") && total > progress {
				snap.CompactionBytesLeft += total - progress
			}
		}
	}, &kind, &progress, &total, &unit)

	var ks, tbl string
	var mib int64
	scan("disk_usage", "SELECT keyspace_name, table_name, mebibytes FROM system_views.disk_usage", nil, func() {
		snap.AllMiB += mib
		if ks == t.Keyspace && tbl == t.Table {
			snap.TableMiB = mib
		}
	}, &ks, &tbl, &mib)

	if !t.CompactedSince.IsZero() {
		var id gocql.UUID
		n := int64(0)
		before := len(snap.Missing)
		scan("compaction_history", "SELECT id FROM system.compaction_history WHERE compacted_at > ? ALLOW FILTERING",
			[]any{t.CompactedSince}, func() { n++ }, &id)
		if len(snap.Missing) == before {
			snap.Compacted, snap.CompactedRead = n, true
		}
	}

	var files int64
	scan("pending_hints", "SELECT files FROM system_views.pending_hints", nil, func() { snap.HintFiles += files }, &files)

	var expired, errs, overloaded int64
	scan("internode_inbound", "SELECT expired_count, error_count FROM system_views.internode_inbound", nil, func() {
		snap.Expired += expired
		snap.Errors += errs
	}, &expired, &errs)
	scan("internode_outbound", "SELECT expired_count, overload_count, error_count FROM system_views.internode_outbound", nil, func() {
		snap.Expired += expired
		snap.Overloaded += overloaded
		snap.Errors += errs
	}, &expired, &overloaded, &errs)
	return snap, nil
}

func sortTargets(ts []Target) {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Node < ts[j].Node })
}
