package workload

import (
	"strings"
)

// resolveKeyspace returns the keyspace as Cassandra stores it: unquoted names are folded to
// lower case, and setup compares against system_schema with the folded name. Which names are
// allowed is the CRD's rule (admission); statements quote the name whatever it is.
func resolveKeyspace(ks string) string {
	return strings.ToLower(ks)
}

// indexName builds <table>_<column>_idx from the characters Cassandra allows in index names.
func indexName(table, column string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
				return r
			case r >= 'A' && r <= 'Z':
				return r + ('a' - 'A')
			}
			return '_'
		}, s)
	}
	return clean(table) + "_" + clean(column) + "_idx"
}
