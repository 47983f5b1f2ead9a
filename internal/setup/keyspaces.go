package setup

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// ParseKeyspacePatterns reads a comma-separated list of keyspace names and patterns with *
// ("bench,bench_*"), as the datacenter's AllowDropKeyspacesAnnotation and the
// --allow-drop-keyspaces flag take it.
func ParseKeyspacePatterns(s string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if _, err := path.Match(p, ""); err != nil || strings.ContainsAny(p, "?[]\\/") {
			return nil, fmt.Errorf("keyspace pattern %q: only names and * are allowed", p)
		}
		out = append(out, p)
	}
	return out, nil
}

// matchKeyspace tells whether a pattern names keyspace ks; names are compared as Cassandra
// folds unquoted ones, whatever their case.
func matchKeyspace(patterns []string, ks string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(strings.ToLower(p), strings.ToLower(ks)); ok {
			return true
		}
	}
	return false
}

// mayDrop decides whether a recreating run may drop an existing keyspace: when the allowed
// patterns name it, or when it holds nothing but tables cassbench created (every one carries
// CreatedComment, and there is at least one). A user's keyspace, or a cassbench keyspace to
// which someone added a table, is refused with what to do. where says how the allowance is
// given (the datacenter's annotation, or a flag).
func mayDrop(ks *existingKeyspace, allowed []string, where string) error {
	if matchKeyspace(allowed, ks.Name) {
		return nil
	}
	var foreign []string
	for name, t := range ks.Tables {
		if ok, _ := parseMarker(t.Comment); !ok {
			foreign = append(foreign, name)
		}
	}
	foreign = append(foreign, ks.Views...)
	slices.Sort(foreign)
	if len(foreign) == 0 && len(ks.Tables) > 0 {
		return nil
	}
	why := "it holds no table"
	if len(foreign) > 0 {
		why = fmt.Sprintf("%s %s not created by cassbench", plural(len(foreign), "table or view", "tables or views"), strings.Join(foreign, ", "))
		if len(foreign) == 1 {
			why += " (its comment does not start with \"" + CreatedComment + "\")"
		}
	}
	return fmt.Errorf("schema.recreate would drop keyspace %s, which cassbench did not create (%s): nothing was dropped; "+
		"to let runs drop and create it, list it in %s (e.g. %q), or choose a keyspace of the run's own", ks.Name, why, where, ks.Name)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "its " + one
	}
	return fmt.Sprintf("its %d %s", n, many)
}
