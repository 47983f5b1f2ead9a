package workload

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func TestDeterminism(t *testing.T) {
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			spec := specOf(withProfile(p), mixOf(3, 1), indexes("userid"))
			if p != cbv1.ProfileUserWide {
				spec.Schema.Indexes = nil
			}
			a, b := mustGenerator(spec, 2, 5), mustGenerator(spec, 2, 5)
			other := mustGenerator(spec, 3, 5)
			rowA, rowB, rowO := make([]any, a.InsertArity()), make([]any, b.InsertArity()), make([]any, other.InsertArity())
			readA, readB := make([]any, a.ReadArity()), make([]any, b.ReadArity())
			for seq := range int64(300) {
				if a.IsRead(seq) != b.IsRead(seq) {
					t.Fatalf("seq %d: IsRead differs", seq)
				}
				bytesA, bytesB := a.Row(seq, rowA), b.Row(seq, rowB)
				if diff := cmp.Diff(rowA, rowB); diff != "" || bytesA != bytesB {
					t.Fatalf("seq %d: rows differ (%d vs %d bytes):\n%s", seq, bytesA, bytesB, diff)
				}
				a.ReadArgs(seq, readA)
				b.ReadArgs(seq, readB)
				if diff := cmp.Diff(readA, readB); diff != "" {
					t.Fatalf("seq %d: read arguments differ:\n%s", seq, diff)
				}
				other.Row(seq, rowO)
				if keyOf(a, rowA) == keyOf(other, rowO) {
					t.Fatalf("seq %d: writers 2 and 3 wrote the same key %s", seq, keyOf(a, rowA))
				}
			}
			// A different seed makes different data.
			reseeded := *spec
			reseeded.Workload.Seed = 7
			c := mustGenerator(&reseeded, 2, 5)
			rowC := make([]any, c.InsertArity())
			c.Row(0, rowC)
			a.Row(0, rowA)
			if cmp.Equal(rowA, rowC) {
				t.Errorf("seed 7 generated the same first row as seed 0")
			}
		})
	}
}

// TestConcurrentGenerators builds and runs generators the way the writer does, one per load
// goroutine at once, and checks they agree; run with -race it also checks the shared caches.
func TestConcurrentGenerators(t *testing.T) {
	spec := specOf(withProfile(cbv1.ProfileUserWide), func(s *cbv1.BenchmarkRunSpec) { s.Workload.Seed = 99 })
	want := make([]any, mustGenerator(spec, 0, 1).InsertArity())
	mustGenerator(spec, 0, 1).Row(41, want)
	got := make(chan []any)
	for range 8 {
		go func() {
			g := mustGenerator(spec, 0, 1)
			row := make([]any, g.InsertArity())
			for seq := range int64(42) {
				g.Row(seq, row)
			}
			got <- row
		}()
	}
	for range 8 {
		if diff := cmp.Diff(want, <-got); diff != "" {
			t.Fatalf("concurrent generators disagree (-want +got):\n%s", diff)
		}
	}
}

func TestWritersNeverCollide(t *testing.T) {
	const writers, rows = 4, 3000
	type keyCase struct {
		partitions int64
		dist       cbv1.Distribution
		perPart    int32
	}
	keyCases := []keyCase{
		{0, "", 1}, {0, "", 7},
		{1000, cbv1.DistributionSequence, 1}, {1000, cbv1.DistributionUniform, 1},
		{1000, cbv1.DistributionZipf, 1}, {1000, cbv1.DistributionNormal, 1},
		{5, cbv1.DistributionUniform, 3},
	}
	cqlTables := map[string]string{
		"small clustering types": "CREATE TABLE t (p tinyint, q boolean, c smallint, d tinyint, v text, PRIMARY KEY ((p, q), c, d))",
		"uuid and timeuuid key":  "CREATE TABLE t (id uuid, at timeuuid, v blob, PRIMARY KEY (id, at))",
		"frozen collection key":  "CREATE TABLE t (k frozen<list<int>> PRIMARY KEY, v int)",
	}
	specs := map[string]*cbv1.BenchmarkRunSpec{}
	for _, p := range allProfiles {
		for _, kc := range keyCases {
			name := fmt.Sprintf("%s/P=%d,%s,R=%d", p, kc.partitions, kc.dist, kc.perPart)
			specs[name] = specOf(withProfile(p), partitions(kc.partitions, kc.dist), rowsPerPartition(kc.perPart))
		}
	}
	for name, cql := range cqlTables {
		specs[name] = specOf(table(cql), rowsPerPartition(3))
		specs[name+"/P=100"] = specOf(table(cql), partitions(100, cbv1.DistributionZipf))
	}
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			owner := map[string]int32{}
			for w := range int32(writers) {
				g := mustGenerator(spec, w, writers)
				row := make([]any, g.InsertArity())
				distinct := map[string]bool{}
				for r := range int64(rows) {
					g.RowAt(r, row)
					k := keyOf(g, row)
					if o, ok := owner[k]; ok && o != w {
						t.Fatalf("writers %d and %d both write key %s", o, w, k)
					}
					owner[k] = w
					distinct[k] = true
				}
				if got := g.Rows(rows); got != int64(len(distinct)) {
					t.Errorf("writer %d: Rows(%d) = %d, %d distinct keys written", w, rows, got, len(distinct))
				}
			}
		})
	}
}

func TestRowsAccounting(t *testing.T) {
	cases := map[string]struct {
		spec *cbv1.BenchmarkRunSpec
		want int64
	}{
		"new partition per write":                       {specOf(), 1000},
		"clustering rows are new":                       {specOf(withProfile(cbv1.ProfileRevisions), partitions(10, cbv1.DistributionZipf)), 1000},
		"shared-out partitions":                         {specOf(partitions(40, cbv1.DistributionSequence)), 10}, // 40 partitions over 4 writers
		"shared hot partitions":                         {specOf(withProfile(cbv1.ProfileIPByCountry), partitions(3, "")), 1000},
		"bounded key, no clustering":                    {specOf(columns(cbv1.ColumnGenerator{Name: "key", Cardinality: 5, Distribution: cbv1.DistributionSequence})), 5},
		"rows per partition ignored without clustering": {specOf(rowsPerPartition(10)), 1000},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := mustGenerator(tc.spec, 1, 4).Rows(1000); got != tc.want {
				t.Errorf("Rows(1000) = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestRowsPerPartition(t *testing.T) {
	g := mustGenerator(specOf(withProfile(cbv1.ProfileRevisions), rowsPerPartition(5), mixOf(1, 1)), 0, 3)
	row := make([]any, g.InsertArity())
	perTitle := map[any]int{}
	writes := 0
	for seq := int64(0); writes < 500; seq++ {
		if g.IsRead(seq) {
			continue
		}
		g.Row(seq, row)
		perTitle[row[0]]++
		writes++
	}
	for title, n := range perTitle {
		if n != 5 {
			t.Errorf("title %v has %d revisions, want 5", title, n)
		}
	}
	if len(perTitle) != 100 {
		t.Errorf("%d titles, want 100", len(perTitle))
	}
}

func TestOperationMix(t *testing.T) {
	cases := map[string]struct{ writes, reads int32 }{
		"writes only": {1, 0}, "reads only": {0, 1}, "3:1": {3, 1}, "1:1": {1, 1},
		"1:3": {1, 3}, "7:3": {7, 3}, "1000:1": {1000, 1}, "unset": {0, 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := mustGenerator(specOf(mixOf(tc.writes, tc.reads)), 0, 1)
			const n = 100_000
			reads := 0
			for seq := range int64(n) {
				if g.IsRead(seq) {
					reads++
				}
			}
			want := 0.0
			if tc.reads > 0 {
				want = float64(tc.reads) / float64(tc.writes+tc.reads)
			}
			if got := float64(reads) / n; got < want-0.01 || got > want+0.01 {
				t.Errorf("read share %.4f, want %.4f ± 0.01", got, want)
			}
			// Reads are spread evenly, not bunched: every window of writes+reads operations
			// holds exactly the ratio.
			if tc.writes+tc.reads > 0 {
				window := int64(tc.writes + tc.reads)
				for _, start := range []int64{0, 1, 17, 99_989} {
					inWindow := int32(0)
					for seq := start; seq < start+window; seq++ {
						if g.IsRead(seq) {
							inWindow++
						}
					}
					if inWindow != tc.reads {
						t.Errorf("operations %d..%d hold %d reads, want %d", start, start+window-1, inWindow, tc.reads)
					}
				}
			}
		})
	}
}

func TestArity(t *testing.T) {
	for _, p := range allProfiles {
		for _, path := range []cbv1.ReadPath{cbv1.ReadPartition, cbv1.ReadRow, cbv1.ReadIndex} {
			t.Run(string(p)+"/"+string(path), func(t *testing.T) {
				spec := specOf(withProfile(p), mixOf(1, 1), readPath(path))
				if path == cbv1.ReadIndex {
					spec.Schema.Indexes = []cbv1.Index{{Column: map[cbv1.TableProfile]string{
						"key-value": "value", "ip-by-country": "city", "ip-by-city": "ip", "revisions": "author",
						"user-profile": "segments", "user-wide": "userid"}[p]}}
				}
				g := mustGenerator(spec, 0, 2)
				if got := strings.Count(g.InsertCQL(), "?"); got != g.InsertArity() {
					t.Errorf("%d markers in %q, InsertArity %d", got, g.InsertCQL(), g.InsertArity())
				}
				if got := strings.Count(g.ReadCQL(), "?"); got != g.ReadArity() {
					t.Errorf("%d markers in %q, ReadArity %d", got, g.ReadCQL(), g.ReadArity())
				}
				dst := make([]any, g.ReadArity())
				if n := g.ReadArgs(9, dst); n != g.ReadArity() {
					t.Errorf("ReadArgs set %d values, ReadArity %d", n, g.ReadArity())
				}
				for i, v := range dst {
					if v == nil {
						t.Errorf("read argument %d is nil", i)
					}
				}
			})
		}
	}
}

func TestStatements(t *testing.T) {
	cases := map[string]struct {
		spec         *cbv1.BenchmarkRunSpec
		insert, read string
	}{
		"key-value with TTL": {
			spec:   specOf(func(s *cbv1.BenchmarkRunSpec) { s.Workload.TTLSeconds = 3600 }),
			insert: "insert into cassbench.key_value (key, value) values (?, ?) using ttl 3600",
			read:   "select * from cassbench.key_value where key = ?",
		},
		"row path": {
			spec:   specOf(withProfile(cbv1.ProfileIPByCity), readPath(cbv1.ReadRow)),
			insert: "insert into cassbench.hosts_by_city (country, region, city, ip, lati, longi, izp, timezone) values (?, ?, ?, ?, ?, ?, ?, ?)",
			read:   "select * from cassbench.hosts_by_city where country = ? and region = ? and city = ? and ip = ?",
		},
		"index path on a collection": {
			spec:   specOf(table(`CREATE TABLE "T" (id int PRIMARY KEY, "Tags" set<text>)`), readPath(cbv1.ReadIndex), indexes("Tags")),
			insert: `insert into cassbench."T" (id, "Tags") values (?, ?)`,
			read:   `select * from cassbench."T" where "Tags" contains ?`,
		},
		"newest rows of a partition": {
			spec:   specOf(table("CREATE TABLE events (source int, at timestamp, body text, PRIMARY KEY (source, at)) WITH CLUSTERING ORDER BY (at DESC)"), readLimit(10)),
			insert: "insert into cassbench.events (source, at, body) values (?, ?, ?)",
			read:   "select * from cassbench.events where source = ? limit 10",
		},
		"index path with a limit": {
			spec:   specOf(table(`CREATE TABLE "T" (id int PRIMARY KEY, "Tags" set<text>)`), readPath(cbv1.ReadIndex), indexes("Tags"), readLimit(1)),
			insert: `insert into cassbench."T" (id, "Tags") values (?, ?)`,
			read:   `select * from cassbench."T" where "Tags" contains ? limit 1`,
		},
		"index path without an index, no reads": {
			spec:   specOf(readPath(cbv1.ReadIndex)),
			insert: "insert into cassbench.key_value (key, value) values (?, ?)",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := mustGenerator(tc.spec, 0, 1)
			if diff := cmp.Diff([]string{tc.insert, tc.read}, []string{g.InsertCQL(), g.ReadCQL()}); diff != "" {
				t.Errorf("statements (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadsFindWrittenRows replays operations in order and checks that every read asks for a
// key (or indexed value) that an earlier write of the same writer wrote.
func TestReadsFindWrittenRows(t *testing.T) {
	cases := map[string]*cbv1.BenchmarkRunSpec{
		"partition, uniform":        specOf(mixOf(1, 1)),
		"partition, sequence":       specOf(mixOf(1, 3), partitions(0, cbv1.DistributionSequence)),
		"partition, zipf recency":   specOf(mixOf(2, 1), partitions(0, cbv1.DistributionZipf)),
		"partition, normal":         specOf(mixOf(2, 1), partitions(0, cbv1.DistributionNormal)),
		"row, shared-out":           specOf(withProfile(cbv1.ProfileRevisions), mixOf(1, 1), readPath(cbv1.ReadRow), partitions(50, cbv1.DistributionZipf)),
		"row, batches":              specOf(withProfile(cbv1.ProfileIPByCity), mixOf(1, 1), readPath(cbv1.ReadRow), func(s *cbv1.BenchmarkRunSpec) { s.Workload.BatchSize = 4 }),
		"index, user-wide":          specOf(withProfile(cbv1.ProfileUserWide), mixOf(1, 1), readPath(cbv1.ReadIndex), indexes("userid", "email")),
		"index, map values":         specOf(withProfile(cbv1.ProfileUserWide), mixOf(1, 1), readPath(cbv1.ReadIndex), indexes("profilevisibility")),
		"index, set elements":       specOf(withProfile(cbv1.ProfileUserProfile), mixOf(1, 1), readPath(cbv1.ReadIndex), indexes("segments:sai")),
		"partition, hot partitions": specOf(withProfile(cbv1.ProfileIPByCountry), mixOf(1, 1)),
	}
	for name, spec := range cases {
		t.Run(name, func(t *testing.T) {
			g := mustGenerator(spec, 1, 3)
			batch := int64(max(spec.Workload.BatchSize, 1))
			readCols := g.read
			written := map[string]bool{}
			row := make([]any, g.InsertArity())
			args := make([]any, g.ReadArity())
			reads := 0
			for seq := range int64(4000) {
				if !g.IsRead(seq) {
					for b := range batch {
						g.Row(seq*batch+b, row)
						for _, v := range readValues(g, readCols, row) {
							written[v] = true
						}
					}
					continue
				}
				if seq == 0 {
					continue
				}
				g.ReadArgs(seq, args)
				if k := fmt.Sprint(args...); !written[k] {
					t.Fatalf("seq %d reads %s, which no earlier write wrote", seq, k)
				}
				reads++
			}
			if reads < 1000 {
				t.Errorf("only %d reads checked", reads)
			}
		})
	}
}

// readValues are the values a read by readCols could ask for in row: the key columns, or every
// element of an indexed collection.
func readValues(g *Generator, readCols []readCol, row []any) []string {
	idx := func(c *colGen) int {
		for i, cc := range g.cols {
			if cc == c {
				return i
			}
		}
		panic("column not found")
	}
	if len(readCols) == 1 && readCols[0].contains {
		var out []string
		switch v := row[idx(readCols[0].col)].(type) {
		case []int32:
			for _, e := range v {
				out = append(out, fmt.Sprint(e))
			}
		case map[string]string:
			for _, e := range v {
				out = append(out, e)
			}
		default:
			panic(fmt.Sprintf("no elements in %T", v))
		}
		return out
	}
	vals := make([]any, len(readCols))
	for i, rc := range readCols {
		vals[i] = row[idx(rc.col)]
	}
	return []string{fmt.Sprint(vals...)}
}

func TestReadOnly(t *testing.T) {
	g := mustGenerator(specOf(mixOf(0, 1), readPath(cbv1.ReadRow)), 0, 2)
	args := make([]any, g.ReadArity())
	keys := map[int64]bool{}
	for seq := range int64(1000) {
		if !g.IsRead(seq) {
			t.Fatalf("seq %d is a write in a read-only workload", seq)
		}
		g.ReadArgs(seq, args)
		keys[args[0].(int64)] = true
	}
	if len(keys) < 300 {
		t.Errorf("1000 reads asked for %d keys, want them spread over the rows a write run would have written", len(keys))
	}
}

func TestNewGeneratorErrors(t *testing.T) {
	cases := map[string]struct {
		spec           *cbv1.BenchmarkRunSpec
		index, writers int32
		want           string
	}{
		"index out of range": {specOf(), 3, 3, "writer index 3 is not in [0, 3)"},
		"fewer partitions than writers": {
			specOf(partitions(2, "")), 0, 3,
			"workload.partitions 2 is fewer than writers.replicas 3",
		},
		"index reads without an index": {
			specOf(mixOf(1, 1), readPath(cbv1.ReadIndex)), 0, 1,
			"workload.readPath is index but schema.indexes is empty",
		},
		"unknown read path":        {specOf(readPath("scan")), 0, 1, `workload.readPath "scan" is not partition, row or index`},
		"unknown key distribution": {specOf(partitions(10, "pareto")), 0, 1, `unknown distribution "pareto"`},
		"unknown column": {
			specOf(columns(cbv1.ColumnGenerator{Name: "nope", Cardinality: 3})), 0, 1,
			`schema.columns names column "nope", which table key_value does not have`,
		},
		"distribution without cardinality": {
			specOf(columns(cbv1.ColumnGenerator{Name: "value", Distribution: cbv1.DistributionZipf})), 0, 1,
			`schema.columns "value": distribution zipf needs a cardinality`,
		},
		"bad zipf exponent": {
			specOf(columns(cbv1.ColumnGenerator{Name: "value", Cardinality: 9, Distribution: cbv1.DistributionZipf, ZipfExponent: "0"})), 0, 1,
			`column "value": zipf exponent 0 must be greater than 0`,
		},
		"sizes reversed": {
			specOf(columns(cbv1.ColumnGenerator{Name: "value", MinSize: ptr(int32(10)), MaxSize: ptr(int32(5))})), 0, 1,
			`schema.columns "value": minSize 10 exceeds maxSize 5`,
		},
		"value size reversed": {
			specOf(func(s *cbv1.BenchmarkRunSpec) {
				s.Workload.ValueSize = &cbv1.SizeRange{Min: ptr(int32(10)), Max: ptr(int32(5))}
			}), 0, 1,
			"workload.valueSize.min 10 exceeds max 5",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := NewGenerator(tc.spec, tc.index, tc.writers)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
