package workload

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRowCellsMatchRow(t *testing.T) {
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			g := mustGenerator(specOf(withProfile(p), mixOf(3, 1)), 2, 5)
			row := make([]any, g.InsertArity())
			cells := make([]*Cell, g.InsertArity())
			for i := range cells {
				cells[i] = &Cell{}
			}
			for seq := range int64(500) {
				want := g.Row(seq, row)
				got := g.RowCells(seq, cells)
				if got != want {
					t.Fatalf("op %d: %d payload bytes, Row says %d", seq, got, want)
				}
				for i, c := range cells {
					if diff := cmp.Diff(row[i], c.Value()); diff != "" {
						t.Fatalf("op %d, column %d (-Row +RowCells):\n%s", seq, i, diff)
					}
				}
			}
		})
	}
}

func TestRowCellsKeyValueDoesNotAllocate(t *testing.T) {
	g := mustGenerator(specOf(), 0, 1)
	cells := []*Cell{{}, {}}
	seq := int64(1 << 20)
	if n := testing.AllocsPerRun(1000, func() { g.RowCells(seq, cells); seq++ }); n != 0 {
		t.Errorf("%.1f allocations per key-value row", n)
	}
}
