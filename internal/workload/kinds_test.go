package workload

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func operations(ops ...cbv1.Operation) func(*cbv1.BenchmarkRunSpec) {
	return func(s *cbv1.BenchmarkRunSpec) { s.Workload.Operations = ops }
}

func op(k cbv1.OperationKind, weight int32) cbv1.Operation {
	return cbv1.Operation{Kind: k, Weight: weight}
}

// Every window of a cycle's length holds each kind exactly its weight, and no kind waits far
// longer than its share between two turns: the mix is spread, not run in blocks.
func TestMixSpreadsKindsByWeight(t *testing.T) {
	spec := specOf(mixOf(3, 2), operations(op(cbv1.OperationUpdate, 4), op(cbv1.OperationDelete, 1), op(cbv1.OperationScanPartition, 2)))
	g := mustGenerator(spec, 0, 1)
	weights := map[OpKind]int{OpInsert: 3, OpRead: 2, OpUpdate: 4, OpDelete: 1, OpScanPartition: 2}
	const cycle = 12
	for start := int64(0); start < 3*cycle; start += 5 {
		got := map[OpKind]int{}
		for s := start; s < start+cycle; s++ {
			got[g.Kind(s)]++
		}
		if diff := cmp.Diff(weights, got); diff != "" {
			t.Fatalf("kinds in [%d, %d) (-want +got):\n%s", start, start+cycle, diff)
		}
	}
	last := map[OpKind]int64{}
	for s := int64(0); s < 10*cycle; s++ {
		k := g.Kind(s)
		if prev, ok := last[k]; ok && s-prev > int64(2*cycle/weights[k]) {
			t.Errorf("%s at %d and %d: more than twice its share apart", k, prev, s)
		}
		last[k] = s
	}
	if diff := cmp.Diff([]OpKind{OpUpdate, OpDelete, OpScanPartition}, g.Kinds()); diff != "" {
		t.Errorf("Kinds (-want +got):\n%s", diff)
	}
}

// Row ordinals go to the kinds that write rows (inserts, lightweight transactions, counter
// increments) in operation order, and nothing else takes one: the rows the other kinds target
// are the ones written before them.
func TestRowsBeforeCountsRowMakingKinds(t *testing.T) {
	spec := specOf(mixOf(2, 1), operations(op(cbv1.OperationInsertIfNotExists, 3), op(cbv1.OperationDelete, 2)))
	g := mustGenerator(spec, 0, 1)
	var rows uint64
	for s := range uint64(200) {
		if got := g.writesBefore(s); got != rows {
			t.Fatalf("writesBefore(%d) = %d, want %d", s, got, rows)
		}
		if g.Kind(int64(s)).makesRow() {
			rows++
		}
	}
	if rows != 200*5/8 {
		t.Errorf("%d row-making operations of 200, want %d", rows, 200*5/8)
	}
}

// Without workload.operations the mix is writeRatio and readRatio as it always was.
func TestKindWithoutOperationsIsTheRatioMix(t *testing.T) {
	g := mustGenerator(specOf(mixOf(3, 1)), 0, 1)
	for s := range int64(100) {
		want := OpInsert
		if g.IsRead(s) {
			want = OpRead
		}
		if got := g.Kind(s); got != want {
			t.Fatalf("Kind(%d) = %s, want %s", s, got, want)
		}
	}
	if g.Kinds() != nil {
		t.Errorf("Kinds = %v, want none", g.Kinds())
	}
}

func TestOperationStatements(t *testing.T) {
	all := operations(op(cbv1.OperationUpdate, 1), op(cbv1.OperationDelete, 1), op(cbv1.OperationInsertIfNotExists, 1),
		op(cbv1.OperationScanPartition, 1), op(cbv1.OperationScanTokenRange, 1))
	cases := map[string]struct {
		spec *cbv1.BenchmarkRunSpec
		want map[OpKind]string
	}{
		"key-value": {
			spec: specOf(all),
			want: map[OpKind]string{
				OpUpdate:            `update cassbench.key_value set value = ? where key = ?`,
				OpDelete:            `delete from cassbench.key_value where key = ?`,
				OpInsertIfNotExists: `insert into cassbench.key_value (key, value) values (?, ?) if not exists`,
				OpScanPartition:     `select * from cassbench.key_value where key = ?`,
				OpScanTokenRange:    `select * from cassbench.key_value where token(key) > ? and token(key) <= ?`,
			},
		},
		"ip-by-city with a TTL and chosen columns": {
			spec: specOf(withProfile(cbv1.ProfileIPByCity), func(s *cbv1.BenchmarkRunSpec) { s.Workload.TTLSeconds = 60 },
				operations(cbv1.Operation{Kind: cbv1.OperationUpdate, Weight: 1, Columns: []string{"lati", "longi"}},
					op(cbv1.OperationDelete, 1), op(cbv1.OperationInsertIfNotExists, 1), op(cbv1.OperationScanTokenRange, 1))),
			want: map[OpKind]string{
				OpUpdate:            `update cassbench.hosts_by_city using ttl 60 set lati = ?, longi = ? where country = ? and region = ? and city = ? and ip = ?`,
				OpDelete:            `delete from cassbench.hosts_by_city where country = ? and region = ? and city = ? and ip = ?`,
				OpInsertIfNotExists: `insert into cassbench.hosts_by_city (country, region, city, ip, lati, longi, izp, timezone) values (?, ?, ?, ?, ?, ?, ?, ?) if not exists using ttl 60`,
				OpScanTokenRange:    `select * from cassbench.hosts_by_city where token(country, region, city) > ? and token(country, region, city) <= ?`,
			},
		},
		"counters": {
			spec: specOf(withProfile(cbv1.ProfileCounters), mixOf(0, 1), operations(op(cbv1.OperationCounterIncrement, 1), op(cbv1.OperationScanPartition, 1))),
			want: map[OpKind]string{
				OpCounterIncrement: `update cassbench.ip_counts set ips = ips + 1 where country = ? and region = ? and city = ?`,
				OpScanPartition:    `select * from cassbench.ip_counts where country = ? and region = ? and city = ?`,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := mustGenerator(tc.spec, 0, 1)
			got := map[OpKind]string{}
			for _, k := range g.Kinds() {
				got[k] = g.CQL(k)
				if n := strings.Count(got[k], "?"); n != g.Arity(k) {
					t.Errorf("%s: %d bind markers, Arity %d", k, n, g.Arity(k))
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("statements (-want +got):\n%s", diff)
			}
		})
	}
}

// An update sets new values on a row written before it; a lightweight transaction tries the
// row an insert in its place would write; a counter increment counts the row it takes.
func TestOperationArgs(t *testing.T) {
	spec := specOf(operations(op(cbv1.OperationUpdate, 1), op(cbv1.OperationInsertIfNotExists, 1)))
	g := mustGenerator(spec, 1, 3)
	written := map[int64][]byte{}
	row := make([]any, g.InsertArity())
	changed := 0
	for s := range int64(300) {
		switch g.Kind(s) {
		case OpInsert, OpInsertIfNotExists:
			dst := make([]any, g.Arity(OpInsertIfNotExists))
			if g.Kind(s) == OpInsert {
				g.Row(s, dst)
			} else {
				g.Args(OpInsertIfNotExists, s, dst)
				g.RowAt(int64(g.writesBefore(uint64(s))), row)
				if diff := cmp.Diff(row, dst); diff != "" {
					t.Fatalf("insertIfNotExists %d is not the row an insert would write (-want +got):\n%s", s, diff)
				}
			}
			written[dst[0].(int64)] = dst[1].([]byte)
		case OpUpdate:
			dst := make([]any, g.Arity(OpUpdate))
			g.Args(OpUpdate, s, dst)
			key := dst[1].(int64)
			old, ok := written[key]
			if !ok {
				t.Fatalf("update %d targets key %d, which no operation before it wrote", s, key)
			}
			if string(old) != string(dst[0].([]byte)) {
				changed++
			}
			written[key] = dst[0].([]byte)
		}
	}
	if changed < 95 {
		t.Errorf("%d of 100 updates changed the value; want nearly all", changed)
	}

	counters := mustGenerator(specOf(withProfile(cbv1.ProfileCounters), mixOf(0, 0),
		func(s *cbv1.BenchmarkRunSpec) { s.Workload.Partitions = 30 }, operations(op(cbv1.OperationCounterIncrement, 1))), 0, 1)
	cities := map[string]int{}
	for s := range int64(300) {
		dst := make([]any, counters.Arity(OpCounterIncrement))
		counters.Args(OpCounterIncrement, s, dst)
		cities[dst[2].(string)]++
	}
	if len(cities) > 30 || len(cities) < 25 {
		t.Errorf("300 increments over 30 partitions hit %d cities", len(cities))
	}
}

// The token ranges of splits scans cover the ring exactly once, in order, whichever writers
// take them.
func TestTokenRangesCoverTheRing(t *testing.T) {
	for _, writers := range []int32{1, 3} {
		spec := specOf(mixOf(0, 0), operations(cbv1.Operation{Kind: cbv1.OperationScanTokenRange, Weight: 1, Splits: 7}))
		bounds := map[int64]int64{}
		for i := range writers {
			g := mustGenerator(spec, i, writers)
			for s := range int64(7 / writers) {
				dst := make([]any, 2)
				g.Args(OpScanTokenRange, s, dst)
				bounds[dst[0].(int64)] = dst[1].(int64)
			}
		}
		if writers == 3 {
			// 7 splits over 3 writers: two scans each leave the seventh to a third round.
			g := mustGenerator(spec, 0, writers)
			dst := make([]any, 2)
			g.Args(OpScanTokenRange, 2, dst)
			bounds[dst[0].(int64)] = dst[1].(int64)
		}
		lo, n := int64(math.MinInt64), 0
		for lo != math.MaxInt64 {
			hi, ok := bounds[lo]
			if !ok || hi <= lo {
				t.Fatalf("%d writers: no range from %d (ranges %v)", writers, lo, bounds)
			}
			lo, n = hi, n+1
		}
		if n != 7 {
			t.Errorf("%d writers: %d ranges cover the ring, want 7", writers, n)
		}
	}
}

func TestOperationErrors(t *testing.T) {
	cases := map[string]struct {
		spec *cbv1.BenchmarkRunSpec
		want string
	}{
		"inserts into counters": {
			spec: specOf(withProfile(cbv1.ProfileCounters), operations(op(cbv1.OperationCounterIncrement, 1))),
			want: "table ip_counts has counter columns, which take no INSERT: set workload.writeRatio to 0",
		},
		"counters without operations": {
			spec: specOf(withProfile(cbv1.ProfileCounters), mixOf(0, 1)),
			want: "table ip_counts has counter columns, which take no INSERT",
		},
		"update of a counter table": {
			spec: specOf(table("CREATE TABLE c (k int PRIMARY KEY, n counter)"), mixOf(0, 0), operations(op(cbv1.OperationUpdate, 1))),
			want: "workload.operations update: table c has counter columns, which take counterIncrement, not update",
		},
		"increment without counters": {
			spec: specOf(operations(op(cbv1.OperationCounterIncrement, 1))),
			want: "workload.operations counterIncrement: table key_value has no counter column",
		},
		"update of an unknown column": {
			spec: specOf(operations(cbv1.Operation{Kind: cbv1.OperationUpdate, Weight: 1, Columns: []string{"valu"}})),
			want: `workload.operations update: columns names "valu", which table key_value does not have`,
		},
		"update of a key column": {
			spec: specOf(operations(cbv1.Operation{Kind: cbv1.OperationUpdate, Weight: 1, Columns: []string{"key"}})),
			want: `columns names "key", which is in the primary key and cannot be set`,
		},
		"increment of a column that is no counter": {
			spec: specOf(table("CREATE TABLE c (k int, b int, n counter, PRIMARY KEY (k, b))"), mixOf(0, 0),
				operations(cbv1.Operation{Kind: cbv1.OperationCounterIncrement, Weight: 1, Columns: []string{"b"}})),
			want: `columns names "b", which is in the primary key`,
		},
		"lightweight transactions in batches": {
			spec: specOf(func(s *cbv1.BenchmarkRunSpec) { s.Workload.BatchSize = 5 }, operations(op(cbv1.OperationInsertIfNotExists, 1))),
			want: "insertIfNotExists writes one row per operation: set workload.batchSize to 1",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := NewGenerator(tc.spec, 0, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
