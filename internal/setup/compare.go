package setup

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cassbench/cassbench/internal/workload"
)

// CreatedComment starts the comment of every table setup creates. A keyspace whose every
// table carries it holds nothing but what cassbench made, so a recreating run may drop it
// without the datacenter listing it (see mayDrop). The comment also names the table options
// the creating run set ("; set: compaction, ..."), so a later run that leaves one of them
// unset can tell that the table does not have the cluster's default.
const CreatedComment = "created by cassbench"

// markerComment is the comment of a table created with the given options set.
func markerComment(set []string) string {
	if len(set) == 0 {
		return CreatedComment
	}
	return CreatedComment + "; set: " + strings.Join(set, ", ")
}

// parseMarker tells whether a table comment is cassbench's and which options it records.
func parseMarker(comment string) (bool, map[string]bool) {
	if !strings.HasPrefix(comment, CreatedComment) {
		return false, nil
	}
	set := map[string]bool{}
	if _, list, ok := strings.Cut(comment, "; set: "); ok {
		for _, o := range strings.Split(list, ",") {
			set[strings.TrimSpace(o)] = true
		}
	}
	return true, set
}

// optionsSet lists the compared options a Want sets, in a stable order.
func optionsSet(w *workload.Want) []string {
	var out []string
	for _, o := range workload.ComparedOptions {
		if _, ok := w.MapOptions[o]; ok {
			out = append(out, o)
		} else if _, ok := w.ScalarOptions[o]; ok {
			out = append(out, o)
		}
	}
	return out
}

// fixedDefaults are options whose default does not depend on cassandra.yaml: a table without
// cassbench's marker that differs from them was set so by someone, and a run that leaves them
// unset expects the default. Compaction, compression and the bloom filter depend on the
// cluster's configuration and are compared only when a run set them.
var fixedDefaults = struct {
	maps    map[string]map[string]string
	scalars map[string]string
}{
	maps:    map[string]map[string]string{"caching": {"keys": "ALL", "rows_per_partition": "NONE"}},
	scalars: map[string]string{"default_time_to_live": "0", "gc_grace_seconds": "864000"},
}

// compareSchema lists how an existing keyspace differs from what the run asks, one sentence
// per difference; none when it can be reused as it is. A table that does not exist yet is no
// difference: setup creates it.
func compareSchema(w *workload.Want, have *existingKeyspace) []string {
	var diffs []string
	if !sameMap(w.Replication, have.Replication, true) {
		diffs = append(diffs, fmt.Sprintf("keyspace %s has replication %s, the run asks %s",
			have.Name, renderMap(have.Replication), renderMap(w.Replication)))
	}
	if w.DurableWrites != have.DurableWrites {
		diffs = append(diffs, fmt.Sprintf("keyspace %s has durable_writes %t, the run asks %t", have.Name, have.DurableWrites, w.DurableWrites))
	}
	t := have.Tables[w.Table]
	if t == nil {
		return diffs
	}
	name := have.Name + "." + t.Name
	diffs = append(diffs, compareColumns(name, w.Columns, t.Columns)...)
	diffs = append(diffs, compareIndexes(name, w.Indexes, t.Indexes)...)
	diffs = append(diffs, compareOptions(name, w, t)...)
	return diffs
}

func compareColumns(table string, want []workload.WantColumn, have map[string]existingColumn) []string {
	var diffs []string
	asked := map[string]bool{}
	for _, c := range want {
		asked[c.Name] = true
		h, ok := have[c.Name]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("table %s has no column %s %s", table, c.Name, c.Type))
		case normType(h.Type) != normType(c.Type):
			diffs = append(diffs, fmt.Sprintf("table %s has column %s of type %s, the run asks %s", table, c.Name, h.Type, c.Type))
		case h.Kind != c.Kind || (c.Position >= 0 && h.Position != c.Position):
			diffs = append(diffs, fmt.Sprintf("table %s has column %s as %s, the run asks %s", table, c.Name, describeKind(h.Kind, h.Position), describeKind(c.Kind, c.Position)))
		}
	}
	for _, n := range unasked(have, asked) {
		diffs = append(diffs, fmt.Sprintf("table %s has column %s %s, which the run does not ask", table, n, have[n].Type))
	}
	return diffs
}

// unasked lists, sorted, the names the table has and the run does not ask.
func unasked[V any](have map[string]V, asked map[string]bool) []string {
	var out []string
	for n := range have {
		if !asked[n] {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

func describeKind(kind string, pos int) string {
	switch kind {
	case "partition_key":
		return fmt.Sprintf("partition key column %d", pos+1)
	case "clustering":
		return fmt.Sprintf("clustering column %d", pos+1)
	}
	return kind + " column"
}

// normType folds what Cassandra stores differently from how a statement may write it.
func normType(t string) string {
	t = strings.ToLower(strings.ReplaceAll(t, " ", ""))
	// varchar is stored as text, inside collections too; a type name is delimited by <, >, ,.
	return typeWord.ReplaceAllString(t, "${1}text")
}

var typeWord = regexp.MustCompile(`(^|[<,])varchar\b`)

func compareIndexes(table string, want []workload.WantIndex, have map[string]existingIndex) []string {
	var diffs []string
	asked := map[string]bool{}
	for _, ix := range want {
		asked[ix.Name] = true
		h, ok := have[ix.Name]
		kind := "a secondary index"
		if ix.SAI {
			kind = "a storage-attached index"
		}
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("table %s has no index %s on %s", table, ix.Name, ix.Target))
		case unquote(h.Options["target"]) != unquote(ix.Target):
			diffs = append(diffs, fmt.Sprintf("table %s has index %s on %s, the run asks it on %s", table, ix.Name, h.Options["target"], ix.Target))
		case isSAI(h) != ix.SAI:
			diffs = append(diffs, fmt.Sprintf("table %s has index %s of kind %s, the run asks %s", table, ix.Name, h.Kind, kind))
		}
	}
	for _, n := range unasked(have, asked) {
		diffs = append(diffs, fmt.Sprintf("table %s has index %s on %s, which the run does not create (every write also updates it)", table, n, have[n].Options["target"]))
	}
	return diffs
}

func isSAI(h existingIndex) bool {
	return strings.HasSuffix(h.Options["class_name"], "StorageAttachedIndex")
}

func unquote(s string) string { return strings.ReplaceAll(s, `"`, "") }

func compareOptions(table string, w *workload.Want, t *existingTable) []string {
	var diffs []string
	marked, setBefore := parseMarker(t.Comment)
	for _, o := range workload.ComparedOptions {
		haveMap, isMap := t.MapOptions[o]
		wantMap, wantsMap := w.MapOptions[o]
		wantScalar, wantsScalar := w.ScalarOptions[o]
		switch {
		case wantsMap:
			if !sameMap(wantMap, haveMap, false) {
				diffs = append(diffs, fmt.Sprintf("table %s has %s %s, the run asks %s", table, o, renderMap(haveMap), renderMap(wantMap)))
			}
		case wantsScalar:
			if !sameValue(wantScalar, t.ScalarOptions[o]) {
				diffs = append(diffs, fmt.Sprintf("table %s has %s %s, the run asks %s", table, o, t.ScalarOptions[o], wantScalar))
			}
		case marked && setBefore[o]:
			have := t.ScalarOptions[o]
			if isMap {
				have = renderMap(haveMap)
			}
			diffs = append(diffs, fmt.Sprintf("table %s has %s %s, set by the run that created it; this run leaves %s at the cluster's default", table, o, have, o))
		default:
			if d, ok := fixedDefaults.maps[o]; ok && !sameMap(d, haveMap, false) {
				diffs = append(diffs, fmt.Sprintf("table %s has %s %s, the run leaves it at the default %s", table, o, renderMap(haveMap), renderMap(d)))
			}
			if d, ok := fixedDefaults.scalars[o]; ok && !sameValue(d, t.ScalarOptions[o]) {
				diffs = append(diffs, fmt.Sprintf("table %s has %s %s, the run leaves it at the default %s", table, o, t.ScalarOptions[o], d))
			}
		}
	}
	return diffs
}

// optionAliases are sub-option names Cassandra accepts and stores under another name.
var optionAliases = map[string]string{"chunk_length_kb": "chunk_length_in_kb", "sstable_compression": "class"}

// sameMap tells whether have holds every key of want with an equal value. A replication map
// must match whole (a factor in another datacenter is a difference); an option map may hold
// more keys than asked, since Cassandra adds the strategy's defaults.
func sameMap(want, have map[string]string, whole bool) bool {
	norm := map[string]string{}
	for k, v := range have {
		norm[strings.ToLower(k)] = v
	}
	for k, v := range want {
		k = strings.ToLower(k)
		if a, ok := optionAliases[k]; ok {
			k = a
		}
		h, ok := norm[k]
		if !ok {
			return false
		}
		if k == "class" {
			v, h = shortClass(v), shortClass(h)
		}
		if !sameValue(v, h) {
			return false
		}
	}
	return !whole || len(want) == len(have)
}

// sameValue compares option values as Cassandra may write them back: numbers as numbers
// ("0.010" is 0.01, "16" is 16.0), words whatever their case.
func sameValue(want, have string) bool {
	a, errA := strconv.ParseFloat(want, 64)
	b, errB := strconv.ParseFloat(have, 64)
	if errA == nil && errB == nil {
		return a == b
	}
	return strings.EqualFold(want, have)
}

// shortClass drops the package Cassandra adds to the classes it ships (replication,
// compaction, compressors).
func shortClass(c string) string {
	if strings.HasPrefix(c, "org.apache.cassandra.") {
		return c[strings.LastIndexByte(c, '.')+1:]
	}
	return c
}

// renderMap writes a map the way a user reads it, class first and without package names.
func renderMap(m map[string]string) string {
	if m == nil {
		return "{}"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "class" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var parts []string
	if c, ok := m["class"]; ok {
		parts = append(parts, "class: "+shortClass(c))
	}
	for _, k := range keys {
		parts = append(parts, k+": "+m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
