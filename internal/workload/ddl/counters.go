package ddl

import (
	"fmt"
	"strings"
)

// Counters lists the table's counter columns.
func (t *Table) Counters() []int {
	var out []int
	for i, c := range t.Columns {
		if c.Type.Name == "counter" {
			out = append(out, i)
		}
	}
	return out
}

// checkCounters refuses what Cassandra refuses of counter columns, before setup runs: a
// counter in the primary key or a collection, or a counter table with other regular columns.
func (t *Table) checkCounters() error {
	counters := len(t.Counters()) > 0
	for _, c := range t.Columns {
		switch {
		case c.Type.Name != "counter" && strings.Contains(c.Type.String(), "counter"):
			return fmt.Errorf("column %q: counters cannot be inside a collection", c.Name)
		case c.Type.Name == "counter" && c.Kind != RegularColumn:
			return fmt.Errorf("column %q is a counter, which cannot be in the primary key", c.Name)
		case counters && c.Type.Name != "counter" && c.Kind == RegularColumn:
			return fmt.Errorf("column %q is not a counter, but a table with counter columns may have no other columns outside the primary key", c.Name)
		}
	}
	return nil
}
