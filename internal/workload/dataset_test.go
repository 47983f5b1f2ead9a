package workload

import (
	"fmt"
	"math"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// loadedKeys are the primary keys the load stage of loaders writers writes for a dataset of
// rows rows, with the value of every column, keyed by the key columns.
func loadedKeys(t *testing.T, spec *cbv1.BenchmarkRunSpec, rows int64, loaders int32, key []int) map[string][]any {
	t.Helper()
	out := map[string][]any{}
	for i := range loaders {
		g := mustGenerator(spec, i, loaders)
		cells := newCells(g.InsertArity())
		share := rows / int64(loaders)
		if int64(i) < rows%int64(loaders) {
			share++
		}
		for r := range share {
			g.LoadCells(r, cells)
			out[cellsKey(cells, key)] = values(cells)
		}
	}
	return out
}

func newCells(n int) []*Cell {
	out := make([]*Cell, n)
	for i := range out {
		out[i] = &Cell{}
	}
	return out
}

func values(cells []*Cell) []any {
	out := make([]any, len(cells))
	for i, c := range cells {
		out[i] = c.Value()
	}
	return out
}

func cellsKey(cells []*Cell, key []int) string {
	var s string
	for _, i := range key {
		s += fmt.Sprintf("%v|", cells[i].Value())
	}
	return s
}

// Reads on a dataset find rows the load stage wrote, whatever the writer counts of the load
// and of the reading run, and cover the dataset; the row a read expects is the row loaded
// there, value and all.
func TestReadsOnDatasetFindLoadedRows(t *testing.T) {
	const rows = 1000
	for name, tc := range map[string]struct {
		spec    *cbv1.BenchmarkRunSpec
		key     []int // key columns in table order
		loaders int32
		skewed  bool // reads favour the first rows loaded instead of covering them all
	}{
		"zipf reads of a uniform load": {
			spec: specOf(mixOf(0, 1), readPath(cbv1.ReadRow), func(s *cbv1.BenchmarkRunSpec) {
				s.Workload.KeyDistribution, s.Workload.KeyZipfExponent = cbv1.DistributionZipf, "1.2"
			}),
			key: []int{0}, loaders: 4, skewed: true,
		},
		"key-value, 3 loaders": {spec: specOf(mixOf(0, 1), readPath(cbv1.ReadRow)), key: []int{0}, loaders: 3},
		"clustered, shared-out partitions": {
			spec: specOf(mixOf(1, 1), readPath(cbv1.ReadRow), partitions(40, cbv1.DistributionZipf), rowsPerPartition(10),
				table("CREATE TABLE t (p bigint, c bigint, v text, PRIMARY KEY (p, c))")),
			key: []int{0, 1}, loaders: 2,
		},
	} {
		t.Run(name, func(t *testing.T) {
			loaded := loadedKeys(t, tc.spec, rows, tc.loaders, tc.key)
			if len(loaded) != rows {
				t.Fatalf("the load stage wrote %d distinct rows, want %d", len(loaded), rows)
			}
			seen := map[string]int{}
			for reader := range int32(2) {
				g, err := mustGenerator(tc.spec, reader, 2).OnDataset(tc.spec, rows, tc.loaders)
				if err != nil {
					t.Fatal(err)
				}
				args := make([]any, g.ReadArity())
				expect := newCells(g.InsertArity())
				for seq := range int64(5000) {
					n := g.ReadArgs(seq, args)
					k := ""
					for _, a := range args[:n] {
						k += fmt.Sprintf("%v|", a)
					}
					row, ok := loaded[k]
					if !ok {
						t.Fatalf("reader %d read %d targets key %s, which the load did not write", reader, seq, k)
					}
					g.ReadRowCells(seq, expect)
					if fmt.Sprint(values(expect)) != fmt.Sprint(row) {
						t.Fatalf("read %d expects %v, the load wrote %v", seq, values(expect), row)
					}
					seen[k]++
				}
			}
			if tc.skewed {
				// Global row 0 is loader 0's first row, key 0: the hottest.
				if first := seen["0|"]; first < 10000/5 {
					t.Errorf("the first row loaded was read %d times of 10000, want the most by far", first)
				}
				return
			}
			if len(seen) < rows*9/10 {
				t.Errorf("10000 reads found %d of %d rows, want nearly all", len(seen), rows)
			}
		})
	}
}

// keyZipfExponent sets the skew of the keys: the hottest key's share is 1/H(n, s), and the
// k-th key is drawn k^s times less often than the first.
func TestKeyZipfExponent(t *testing.T) {
	const n, draws = 1000, 200_000
	for _, s := range []string{"0.8", "1.5"} {
		t.Run(s, func(t *testing.T) {
			spec := specOf(partitions(n, cbv1.DistributionZipf), func(sp *cbv1.BenchmarkRunSpec) { sp.Workload.KeyZipfExponent = s })
			g := mustGenerator(spec, 0, 1)
			row := make([]any, g.InsertArity())
			counts := make([]int, n)
			for r := range int64(draws) {
				g.RowAt(r, row)
				counts[row[0].(int64)]++
			}
			exp := parseFloat(t, s)
			var h float64
			for k := 1; k <= n; k++ {
				h += math.Pow(float64(k), -exp)
			}
			want := draws / h
			if got := float64(counts[0]); math.Abs(got-want)/want > 0.05 {
				t.Errorf("hottest key drawn %.0f times, want %.0f ± 5%%", got, want)
			}
			ratio := float64(counts[0]) / float64(counts[3])
			if wantRatio := math.Pow(4, exp); math.Abs(ratio-wantRatio)/wantRatio > 0.1 {
				t.Errorf("first key drawn %.2f times as often as the fourth, want 4^%s = %.2f ± 10%%", ratio, s, wantRatio)
			}
		})
	}
	if _, err := NewGenerator(specOf(partitions(n, cbv1.DistributionZipf), func(sp *cbv1.BenchmarkRunSpec) { sp.Workload.KeyZipfExponent = "0" }), 0, 1); err == nil {
		t.Error("a zipf exponent of 0 was taken")
	}
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	if _, err := fmt.Sscan(s, &f); err != nil {
		t.Fatal(err)
	}
	return f
}
