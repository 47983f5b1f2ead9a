package ddl

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

// QuoteIdent renders a stored name so that Cassandra reads back exactly that name: plain
// names stay readable, anything else is quoted with its quotes doubled, so no name can close
// the quote and continue the statement.
func QuoteIdent(name string) string {
	if plainName.MatchString(name) && !reserved[name] {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// QuoteString renders a CQL string literal that cannot be escaped from.
func QuoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
