package workload

import (
	"regexp"
	"strings"
)

// plainName matches names Cassandra stores exactly as written when they are not quoted.
var plainName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// reserved are the CQL keywords that cannot name anything unless quoted.
var reserved = map[string]bool{
	"add": true, "allow": true, "alter": true, "and": true, "apply": true, "asc": true,
	"authorize": true, "batch": true, "begin": true, "by": true, "columnfamily": true,
	"create": true, "delete": true, "desc": true, "describe": true, "drop": true,
	"entries": true, "execute": true, "from": true, "full": true, "grant": true, "if": true,
	"in": true, "index": true, "infinity": true, "insert": true, "into": true, "is": true,
	"keyspace": true, "limit": true, "modify": true, "nan": true, "norecursive": true,
	"not": true, "null": true, "of": true, "on": true, "or": true, "order": true,
	"primary": true, "rename": true, "replace": true, "revoke": true, "schema": true,
	"select": true, "set": true, "table": true, "to": true, "token": true, "truncate": true,
	"unlogged": true, "update": true, "use": true, "using": true, "view": true,
	"where": true, "with": true,
}

// quoteIdent renders a stored name so that Cassandra reads back exactly that name: plain
// names stay readable, anything else is quoted with its quotes doubled, so no name can close
// the quote and continue the statement.
func quoteIdent(name string) string {
	if plainName.MatchString(name) && !reserved[name] {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// quoteString renders a CQL string literal that cannot be escaped from.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

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
