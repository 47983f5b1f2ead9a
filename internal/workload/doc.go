// Package workload turns a BenchmarkRun spec into what Cassandra is asked to do: the schema
// statements `cassbench setup` executes and the operations each `cassbench writer` sends. It is
// pure (no driver, no I/O, no clock) so every choice it makes can be tested and repeated.
//
// Where things are: the CQL a user gives for a table is read by the subpackage ddl (lexer,
// CREATE TABLE parser, CQL types, quoting); here, resolve.go and schema.go turn the spec and
// that table into the schema statements, and want.go into the schema setup checks
// system_schema against; plan.go, preset.go and profiles.go decide each
// column's generator (kinds.go, what each column kind draws); generator.go, values.go,
// scalars.go, collections.go, tags.go, dist.go, zipf.go and hash.go make the values, and
// cell.go hands them to the writer without boxing; ops.go, keys.go,
// read.go and pool.go number the operations and rows a writer sends; dataset.go and csv.go
// hold a dataset to load or read. The load loop that sends them is internal/writer's.
//
// # Rows and keys
//
// A writer numbers the rows it writes 0, 1, 2, ... (row ordinals). Row r of writer i of n has
// the global id gid = r*n + i, which no other row of any writer shares. Key columns are
// filled from two numbers:
//
//   - the partition number: with workload.partitions = 0 it is (r/rowsPerPartition)*n + i, so
//     every writer fills partitions of its own; with partitions = P it is drawn by
//     workload.keyDistribution from the writer's own slice [i*P/n, (i+1)*P/n).
//   - the clustering number, which is gid: clustering rows never collide, so several rows of
//     one partition, or of writers sharing a partition, never overwrite each other.
//
// Partition-key columns spell the partition number and clustering columns the clustering
// number (mixed radix when there are several, so small types such as tinyint still count). A
// key column given a cardinality does not spell a number: it draws among that many values that
// all writers share. That is how ip-by-country gets a few hot partitions that every writer
// writes to, as in the experiment it reproduces, while the clustering column keeps rows apart.
//
// Consequences worth knowing: rowsPerPartition needs clustering columns (without them every
// row of a partition would be the same row, so it is ignored); workload.partitions and
// keyDistribution do nothing for a partition key made only of bounded columns (ip-by-country);
// and identity columns of small types hold only as many keys as the type has values, after
// which rows are overwritten.
//
// # Operations
//
// seq numbers a writer's operations, reads and writes together, from 0. IsRead(seq) spreads
// writeRatio:readRatio evenly over seq; a write operation of batch size B writes the rows
// Row(seq*B + b) for b < B, which map onto dense row ordinals so that partitions get exactly
// rowsPerPartition rows. ReadArgs(seq) picks a row among those written by operations before
// seq and recomputes its key or indexed value, so reads find data.
//
// Every value is a pure function of (spec, writer index, row): a counter-based hash
// (splitmix64) replaces a stateful random generator, so generators need no locking and two
// generators of the same writer produce the same rows.
package workload
