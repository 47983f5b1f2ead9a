package setup

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// KeyspaceSnapshots is what one node keeps of a keyspace in snapshots: with auto_snapshot on
// (Cassandra's default), every DROP KEYSPACE of a recreating run leaves one, and over a sweep
// they fill the disks.
type KeyspaceSnapshots struct {
	Node  string
	Names []string
	Bytes int64
}

// listSnapshots reads system_views.snapshots (Cassandra 5.0) on every node for keyspace ks.
// Clearing them needs nodetool (JMX) or the management API: CQL cannot.
func listSnapshots(ctx context.Context, s *gocql.Session, up []node, ks string) ([]KeyspaceSnapshots, error) {
	var out []KeyspaceSnapshots
	for _, n := range up {
		iter := s.Query("SELECT name, keyspace_name, size_on_disk FROM system_views.snapshots").
			SetHostID(n.HostID).IterContext(ctx)
		names := map[string]bool{}
		var total int64
		var name, keyspace string
		var size int64
		for iter.Scan(&name, &keyspace, &size) {
			if keyspace == ks {
				names[name] = true
				total += size
			}
		}
		if err := iter.Close(); err != nil {
			return nil, fmt.Errorf("node %s: reading system_views.snapshots (a table of Cassandra 5.0 and later; on 4.x, nodetool listsnapshots shows them): %w", n.Addr, err)
		}
		if len(names) == 0 {
			continue
		}
		ks := KeyspaceSnapshots{Node: n.Addr, Bytes: total}
		for nm := range names {
			ks.Names = append(ks.Names, nm)
		}
		sort.Strings(ks.Names)
		out = append(out, ks)
	}
	return out, nil
}

// warnSnapshots says, after a recreating drop, what the nodes keep of the keyspace and how
// to stop it.
func warnSnapshots(log io.Writer, ks string, snaps []KeyspaceSnapshots) {
	for _, sn := range snaps {
		names := sn.Names
		if len(names) > 4 { // a sweep makes hundreds; the newest say enough
			names = append(slices.Clone(names[len(names)-4:]), fmt.Sprintf("and %d older", len(sn.Names)-4))
		}
		fmt.Fprintf(log, "setup: warning: node %s keeps %d snapshot(s) of keyspace %s (%d MiB on disk: %s): auto_snapshot snapshots every dropped keyspace; clear them with `nodetool clearsnapshot --all -- %s`, or set cassandra-yaml auto_snapshot: false or auto_snapshot_ttl\n",
			sn.Node, len(sn.Names), ks, sn.Bytes>>20, strings.Join(names, ", "), ks)
	}
}
