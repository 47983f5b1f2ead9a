package setup

import (
	"context"
	"fmt"
	"io"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/dataset"
	"github.com/cassbench/cassbench/internal/workload"
)

// prepareDataset readies the record of a run's dataset, once its keyspace and table exist: a
// run that loads clears the old record, which its writers write again when their shares are
// in; a run that measures on an earlier run's dataset is refused here, before any writer
// starts, unless the record matches its spec.
func prepareDataset(ctx context.Context, s *gocql.Session, spec *cbv1.BenchmarkRunSpec, schema *workload.Schema, log io.Writer) error {
	d := spec.Workload.Dataset
	if d == nil {
		return nil
	}
	// Marked as cassbench's, as every table setup creates: a keyspace holding a table without
	// the mark is not dropped by a recreating run.
	if err := s.Query(dataset.TableCQL(schema.Keyspace) + " WITH comment = " + quoteCQL(CreatedComment)).ExecContext(ctx); err != nil {
		return fmt.Errorf("creating the dataset record table: %w", err)
	}
	if err := agree(ctx, s); err != nil {
		return err
	}
	if d.Load {
		if err := dataset.Clear(ctx, s, schema.Keyspace, schema.Table); err != nil {
			return err
		}
		fmt.Fprintf(log, "setup: the writers load a dataset of %d rows into %s.%s first\n", d.Rows, schema.Keyspace, schema.Table)
		return nil
	}
	entries, err := dataset.Read(ctx, s, schema.Keyspace, schema.Table)
	if err != nil {
		return err
	}
	loaders, err := dataset.Check(dataset.WantOf(spec, schema.Keyspace, schema.Table), entries)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "setup: dataset of %d rows in %s.%s, loaded by %d writers, matches the spec\n", d.Rows, schema.Keyspace, schema.Table, loaders)
	return nil
}
