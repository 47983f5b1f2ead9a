package nodewatch

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// The compaction backlog has to be estimated from something that moves: with every
// compactor busy, CompactionManager queues nothing more, so CompactionExecutor's pending
// count stays near 0 however far compaction falls behind. Cassandra 5.0 has no virtual table
// of the strategy's estimate (nodetool compactionstats' "pending tasks" is a JMX gauge), so:
//   - for a node on the writer's machine, the benchmark table's SSTables are counted on disk,
//     in its directory under the node's data_file_directories (system_views.settings); with
//     compaction behind, flushes add SSTables faster than compaction merges them;
//   - for a cass-operator pod, the management API's metrics endpoint serves the table's
//     live SSTable count and the strategy's estimate of pending compactions
//     (org_apache_cassandra_metrics_table_live_ss_table_count and _pending_compactions).

// tableDirs finds the directories that hold a table's SSTables on a node: one per data
// directory, named <table>-<id without dashes> under the keyspace's.
func tableDirs(ctx context.Context, s *gocql.Session, t Target) []string {
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	var value string
	if err := s.Query("SELECT value FROM system_views.settings WHERE name = 'data_file_directories'").
		SetHostID(t.HostID).ScanContext(qctx, &value); err != nil {
		return nil
	}
	var id gocql.UUID
	if err := s.Query("SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", t.Keyspace, t.Table).
		SetHostID(t.HostID).ScanContext(qctx, &id); err != nil {
		return nil
	}
	name := t.Table + "-" + strings.ReplaceAll(id.String(), "-", "")
	var out []string
	for _, dir := range splitSetting(value) {
		out = append(out, filepath.Join(dir, t.Keyspace, name))
	}
	return out
}

// splitSetting reads a list setting as system_views.settings shows it: "[/a, /b]" or "/a,/b".
func splitSetting(v string) []string {
	var out []string
	for _, part := range strings.Split(strings.Trim(strings.TrimSpace(v), "[]"), ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// countSSTables counts the live SSTables in a table's directories: every Data.db component
// except the new ones of a transaction not yet committed (a compaction or flush writing its
// output, whose log names them in ADD records and has no COMMIT or ABORT record yet), which
// is how the node's own view counts them. ok is false when no directory could be read.
func countSSTables(dirs []string) (n int64, ok bool) {
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		ok = true
		pending := map[string]bool{}
		var data []string
		for _, e := range entries {
			name := e.Name()
			switch {
			case e.IsDir():
			case strings.HasSuffix(name, "-Data.db"):
				data = append(data, strings.TrimSuffix(name, "-Data.db"))
			case strings.Contains(name, "_txn_") && strings.HasSuffix(name, ".log"):
				for _, base := range uncommittedAdds(filepath.Join(dir, name)) {
					pending[filepath.Base(base)] = true
				}
			}
		}
		for _, base := range data {
			if !pending[base] {
				n++
			}
		}
	}
	return n, ok
}

// uncommittedAdds lists the SSTables a transaction log adds ("ADD:[/dir/nb-7-big,0,8][123]"),
// when the transaction has neither committed nor aborted.
func uncommittedAdds(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil // committed logs are deleted as they finish
	}
	defer func() { _ = f.Close() }()
	var adds []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "COMMIT:"), strings.HasPrefix(line, "ABORT:"):
			return nil
		case strings.HasPrefix(line, "ADD:["):
			rec := strings.TrimPrefix(line, "ADD:[")
			if i := strings.IndexByte(rec, ','); i > 0 {
				adds = append(adds, rec[:i])
			}
		}
	}
	return adds
}
