// Package dataset records in the benchmark keyspace what a load stage loaded, and checks a
// later run's spec against that record, so that a run measuring on loaded rows verifies them
// instead of trusting its spec. The record lives in a table of its own next to the benchmark
// table: one row per loader, written when that loader has written every row of its share.
package dataset

import (
	"context"
	"fmt"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/workload"
)

// Table is the record's table in the benchmark keyspace.
const Table = "cassbench_dataset"

// TableCQL creates the record's table: a partition per benchmark table, a row per loader.
func TableCQL(keyspace string) string {
	return fmt.Sprintf(`create table if not exists %q.%s (
  tbl text, writer int, writers int, rows bigint, fields map<text, text>, loaded_at timestamp,
  primary key (tbl, writer))`, keyspace, Table)
}

// Entry is one loader's record.
type Entry struct {
	Writer, Writers int32
	Rows            int64
	Fields          map[string]string
	LoadedAt        time.Time
}

// Want is what a run expects of the dataset in its keyspace.
type Want struct {
	Keyspace, Table string
	Rows            int64
	Fields          []workload.DatasetField
}

// WantOf is the dataset a spec measures on.
func WantOf(spec *cbv1.BenchmarkRunSpec, keyspace, table string) Want {
	w := Want{Keyspace: keyspace, Table: table, Fields: workload.DatasetFields(spec)}
	if d := spec.Workload.Dataset; d != nil {
		w.Rows = d.Rows
	}
	return w
}

// Clear removes the record of a table, so that a load that does not finish leaves no record
// a later run could trust.
func Clear(ctx context.Context, s *gocql.Session, keyspace, table string) error {
	q := fmt.Sprintf("delete from %q.%s where tbl = ?", keyspace, Table)
	if err := s.Query(q, table).Consistency(gocql.Quorum).ExecContext(ctx); err != nil {
		return fmt.Errorf("clearing the dataset record of %s.%s: %w", keyspace, table, err)
	}
	return nil
}

// Record writes one loader's entry.
func Record(ctx context.Context, s *gocql.Session, keyspace, table string, e Entry) error {
	q := fmt.Sprintf("insert into %q.%s (tbl, writer, writers, rows, fields, loaded_at) values (?, ?, ?, ?, ?, ?)", keyspace, Table)
	if err := s.Query(q, table, e.Writer, e.Writers, e.Rows, e.Fields, e.LoadedAt).Consistency(gocql.Quorum).ExecContext(ctx); err != nil {
		return fmt.Errorf("recording the dataset of %s.%s: %w", keyspace, table, err)
	}
	return nil
}

// Read returns the entries recorded for a table, none when there is no record (or no
// record table).
func Read(ctx context.Context, s *gocql.Session, keyspace, table string) ([]Entry, error) {
	q := fmt.Sprintf("select writer, writers, rows, fields, loaded_at from %q.%s where tbl = ?", keyspace, Table)
	iter := s.Query(q, table).Consistency(gocql.Quorum).IterContext(ctx)
	var out []Entry
	var e Entry
	for iter.Scan(&e.Writer, &e.Writers, &e.Rows, &e.Fields, &e.LoadedAt) {
		out = append(out, e)
		e = Entry{}
	}
	if err := iter.Close(); err != nil {
		if strings.Contains(err.Error(), "unconfigured table") {
			return nil, nil
		}
		return nil, fmt.Errorf("reading the dataset record of %s.%s: %w", keyspace, table, err)
	}
	return out, nil
}

// Check compares the record with what a run wants and returns how many writers loaded the
// dataset. Its errors name every difference and say what to do about it.
func Check(want Want, entries []Entry) (int32, error) {
	where := fmt.Sprintf("keyspace %s", want.Keyspace)
	if len(entries) == 0 {
		return 0, fmt.Errorf("%s holds no dataset of table %s: load it first with a run that sets workload.dataset.load: true (schema.recreate: false keeps it for later runs)", where, want.Table)
	}
	loaders := entries[0].Writers
	var rows int64
	done := map[int32]bool{}
	for _, e := range entries {
		if e.Writers != loaders {
			return 0, fmt.Errorf("%s holds a dataset of table %s whose record is inconsistent (loaded by %d and by %d writers): load it again (workload.dataset.load: true)", where, want.Table, loaders, e.Writers)
		}
		done[e.Writer] = true
		rows += e.Rows
	}
	if int32(len(done)) != loaders {
		return 0, fmt.Errorf("%s holds a dataset of table %s that %d of its %d loading writers finished: load it again (workload.dataset.load: true)", where, want.Table, len(done), loaders)
	}
	var diffs []string
	if rows != want.Rows {
		diffs = append(diffs, fmt.Sprintf("%d rows where workload.dataset.rows is %d", rows, want.Rows))
	}
	recorded := entries[0].Fields
	for _, f := range want.Fields {
		if got, ok := recorded[f.Name]; !ok || got != f.Value {
			diffs = append(diffs, fmt.Sprintf("%s %s where this run has %s", f.Name, quote(got, ok), quote(f.Value, true)))
		}
	}
	if len(diffs) > 0 {
		return 0, fmt.Errorf("%s holds a dataset of table %s loaded with %s: its reads would look for rows that are not there; measure with the spec it was loaded with, or load it again (workload.dataset.load: true)", where, want.Table, strings.Join(diffs, "; "))
	}
	return loaders, nil
}

// FieldMap is fields as the record stores them.
func FieldMap(fields []workload.DatasetField) map[string]string {
	m := make(map[string]string, len(fields))
	for _, f := range fields {
		m[f.Name] = f.Value
	}
	return m
}

func quote(v string, ok bool) string {
	if !ok {
		return "(not recorded)"
	}
	if v == "" {
		return `""`
	}
	if len(v) > 120 {
		v = v[:117] + "..."
	}
	return v
}
