package setup

import (
	"context"
	"fmt"
	"io"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/workload"
)

// defaultAllowDropWhere is where a run's datacenter lists the keyspaces runs may drop.
const defaultAllowDropWhere = "the CassandraDatacenter's annotation " + cbv1.AllowDropKeyspacesAnnotation

// checkExisting reads the benchmark keyspace if it exists and decides whether the run may go
// on: a recreating run only drops a keyspace it may (mayDrop); a run that keeps the keyspace
// only reuses one that is what it asks (compareSchema), since CREATE ... IF NOT EXISTS would
// silently keep an earlier run's replication, columns and table options. Nothing is changed
// here: a refusal comes before any statement runs.
func checkExisting(ctx context.Context, s *gocql.Session, cfg Config, want *workload.Want) (*existingKeyspace, error) {
	have, err := readKeyspace(ctx, s, want.Keyspace)
	if err != nil || have == nil {
		return have, err
	}
	if cfg.Spec.Schema.Recreate {
		where := cfg.AllowDropWhere
		if where == "" {
			where = defaultAllowDropWhere
		}
		return have, mayDrop(have, cfg.AllowDrop, where)
	}
	if diffs := compareSchema(want, have); len(diffs) > 0 {
		return have, fmt.Errorf("the existing schema is not what the run asks: %s: set schema.recreate: true to drop and create it, or change the spec",
			strings.Join(diffs, "; "))
	}
	return have, nil
}

// markStatements gives the tables setup creates cassbench's comment: the benchmark table
// (unless its own statement sets a comment) and the start barrier. They are created only if
// absent, so an existing table keeps its comment.
func markStatements(schema *workload.Schema, want *workload.Want, barrier string) ([]string, error) {
	stmts := append([]string{}, schema.Statements...)
	if !want.Comment && len(stmts) > 1 {
		marked, err := workload.WithOption(stmts[1], "comment", quoteCQL(markerComment(optionsSet(want))))
		if err != nil {
			return nil, err
		}
		stmts[1] = marked
	}
	return append(stmts, barrier+" WITH comment = "+quoteCQL(CreatedComment)), nil
}

func quoteCQL(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// clearDropped clears, node by node, the snapshots that dropping the keyspace left (those not
// there before the drop). Snapshots a user took, or earlier drops left, stay.
func clearDropped(ctx context.Context, clearer SnapshotClearer, log io.Writer, ks string, before, after []KeyspaceSnapshots) error {
	old := map[string]map[string]bool{}
	for _, b := range before {
		old[b.Node] = map[string]bool{}
		for _, n := range b.Names {
			old[b.Node][n] = true
		}
	}
	for _, a := range after {
		var fresh []string
		for _, n := range a.Names {
			if !old[a.Node][n] {
				fresh = append(fresh, n)
			}
		}
		if len(fresh) > 0 {
			if err := clearer.ClearSnapshots(ctx, a.Node, ks, fresh); err != nil {
				return fmt.Errorf("clearing the snapshots that dropping keyspace %s left (set schema.keepSnapshots: true to keep them): %w", ks, err)
			}
			fmt.Fprintf(log, "setup: node %s: cleared %d snapshot(s) of keyspace %s that the drop left\n", a.Node, len(fresh), ks)
		}
	}
	return nil
}
