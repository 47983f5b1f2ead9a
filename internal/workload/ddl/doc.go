// Package ddl reads the CQL a user gives for a table: a lexer that knows strings, quoted names
// and comments, a parser of one CREATE TABLE statement into a Table (columns, CQL types, the
// primary key, the WITH clause left as tokens), the checks Cassandra would make of it before
// setup runs (types, static and key columns, counters), and the quoting that renders names and
// strings back so that no value can close a quote and continue a statement.
//
// It knows nothing of BenchmarkRuns or of values: internal/workload builds the schema
// statements and the column generators from what it returns.
package ddl
