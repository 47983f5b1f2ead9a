package workload

import (
	"fmt"
	"strconv"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/workload/ddl"
)

// Want is the schema a spec asks for, in the terms system_schema describes a schema with, so
// that setup can tell whether a keyspace and table left by an earlier run are what this run
// asks before it reuses them.
type Want struct {
	Keyspace string
	Table    string
	// Replication is the keyspace's replication map: "class" (without its package) and the
	// factors, as system_schema.keyspaces stores them.
	Replication   map[string]string
	DurableWrites bool
	Columns       []WantColumn
	Indexes       []WantIndex
	// MapOptions and ScalarOptions are the table options the spec or the statement's WITH
	// clause set, by their system_schema.tables column name (compaction, compression, caching;
	// default_time_to_live, gc_grace_seconds, bloom_filter_fp_chance). Options left unset are
	// absent: their value is the cluster's default.
	MapOptions    map[string]map[string]string
	ScalarOptions map[string]string
	// Comment is true when the statement's WITH clause sets the table's comment itself.
	Comment bool
}

// WantColumn is one column as system_schema.columns describes it.
type WantColumn struct {
	Name string
	// Kind is partition_key, clustering, regular or static.
	Kind string
	// Position within the partition or clustering key; -1 for other columns.
	Position int
	Type     string
}

// WantIndex is one index as system_schema.indexes describes it.
type WantIndex struct {
	Name string
	// Target is the indexed column, or values(c) / full(c) for collections.
	Target string
	SAI    bool
}

// ComparedOptions are the table options whose values Want carries.
var ComparedOptions = []string{"compaction", "compression", "caching", "default_time_to_live", "gc_grace_seconds", "bloom_filter_fp_chance"}

// WantSchema describes what BuildSchema creates for a spec.
func WantSchema(spec *cbv1.BenchmarkRunSpec, datacenter string) (*Want, error) {
	r, err := resolve(spec)
	if err != nil {
		return nil, err
	}
	s := spec.Schema
	w := &Want{
		Keyspace: r.keyspace, Table: r.table.Name,
		MapOptions: map[string]map[string]string{}, ScalarOptions: map[string]string{},
	}
	factor := strconv.Itoa(int(s.Replication.Factor))
	switch s.Replication.Strategy {
	case cbv1.SimpleStrategy:
		w.Replication = map[string]string{"class": "SimpleStrategy", "replication_factor": factor}
	case cbv1.NetworkTopologyStrategy:
		fs, err := ntsFactors(s, datacenter)
		if err != nil {
			return nil, err
		}
		w.Replication = ntsWant(fs)
	default:
		return nil, fmt.Errorf("schema.replication.strategy %q is not SimpleStrategy or NetworkTopologyStrategy", s.Replication.Strategy)
	}
	w.DurableWrites = s.DurableWrites == nil || *s.DurableWrites

	t := r.table
	w.Columns = wantColumns(t)
	for _, ix := range r.indexes {
		w.Indexes = append(w.Indexes, WantIndex{Name: ix.name, Target: ix.target, SAI: ix.sai})
	}

	if err := w.statementOptions(t.Options); err != nil {
		return nil, err
	}
	if c := s.Compaction; c != nil {
		m := map[string]string{"class": string(c.Class)}
		for k, v := range c.Options {
			m[k] = v
		}
		w.MapOptions["compaction"] = m
	}
	if ttl := s.DefaultTTLSeconds; ttl != nil {
		w.ScalarOptions["default_time_to_live"] = strconv.Itoa(int(*ttl))
	}
	if o := s.TableOptions; o != nil {
		if len(o.Compression) > 0 {
			m := map[string]string{}
			for k, v := range o.Compression {
				m[k] = v
			}
			w.MapOptions["compression"] = m
		}
		if c := o.Caching; c != nil && (c.Keys != "" || c.RowsPerPartition != "") {
			m := map[string]string{}
			if c.Keys != "" {
				m["keys"] = c.Keys
			}
			if c.RowsPerPartition != "" {
				m["rows_per_partition"] = c.RowsPerPartition
			}
			w.MapOptions["caching"] = m
		}
		if g := o.GCGraceSeconds; g != nil {
			w.ScalarOptions["gc_grace_seconds"] = strconv.Itoa(int(*g))
		}
		if f := o.BloomFilterFPChance; f != "" {
			w.ScalarOptions["bloom_filter_fp_chance"] = f
		}
	}
	return w, nil
}

// wantColumns are the table's columns as system_schema.columns lists them: each one's kind
// and its position in the partition or clustering key.
func wantColumns(t *ddl.Table) []WantColumn {
	var out []WantColumn
	for i, c := range t.Columns {
		col := WantColumn{Name: c.Name, Kind: "regular", Position: -1, Type: c.Type.String()}
		if c.Static {
			col.Kind = "static"
		}
		for p, k := range t.PartitionKey {
			if k == i {
				col.Kind, col.Position = "partition_key", p
			}
		}
		for p, k := range t.ClusteringKey {
			if k == i {
				col.Kind, col.Position = "clustering", p
			}
		}
		out = append(out, col)
	}
	return out
}

// statementOptions reads the compared options a CREATE TABLE's WITH clause sets. A value it
// cannot read as a literal or a map of literals is an error: setup would otherwise reuse a
// table without knowing whether it has that option.
func (w *Want) statementOptions(toks []ddl.Token) error {
	compared := map[string]bool{}
	for _, o := range ComparedOptions {
		compared[o] = true
	}
	depth := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.Is("(") || t.Is("{") || t.Is("["):
			depth++
			continue
		case t.Is(")") || t.Is("}") || t.Is("]"):
			depth--
			continue
		}
		if depth != 0 || t.Kind != ddl.TokIdent || i+1 >= len(toks) || !toks[i+1].Is("=") {
			continue
		}
		if i > 0 && !toks[i-1].Is("AND") && !toks[i-1].Is("WITH") {
			continue
		}
		name := strings.ToLower(t.Text)
		if name == "comment" {
			w.Comment = true
		}
		if !compared[name] {
			continue
		}
		end := i + 2
		for d := 0; end < len(toks) && (d > 0 || !toks[end].Is("AND")); end++ {
			switch {
			case toks[end].Is("{"):
				d++
			case toks[end].Is("}"):
				d--
			}
		}
		value := toks[i+2 : end]
		if len(value) == 1 && value[0].Kind != ddl.TokPunct {
			w.ScalarOptions[name] = value[0].Text
		} else {
			m, err := literalMap(value)
			if err != nil {
				return fmt.Errorf("schema.table.cql: option %s: %w", name, err)
			}
			w.MapOptions[name] = m
		}
		i = end - 1
	}
	return nil
}

// literalMap reads {'k': 'v', ...} whose values are strings, numbers or booleans.
func literalMap(toks []ddl.Token) (map[string]string, error) {
	if len(toks) < 2 || !toks[0].Is("{") || !toks[len(toks)-1].Is("}") {
		return nil, fmt.Errorf("%s is not a single value or a map of values", ddl.RenderTokens(toks))
	}
	m := map[string]string{}
	inner := toks[1 : len(toks)-1]
	for len(inner) > 0 {
		if len(inner) < 3 || inner[0].Kind != ddl.TokString || !inner[1].Is(":") || inner[2].Kind == ddl.TokPunct {
			return nil, fmt.Errorf("%s is not a map of string keys to values", ddl.RenderTokens(toks))
		}
		m[inner[0].Text] = inner[2].Text
		inner = inner[3:]
		if len(inner) > 0 {
			if !inner[0].Is(",") {
				return nil, fmt.Errorf("%s is not a map of string keys to values", ddl.RenderTokens(toks))
			}
			inner = inner[1:]
		}
	}
	return m, nil
}

// WithOption adds "name = value" to a CREATE TABLE statement that BuildSchema rendered,
// after its WITH clause or as a new one.
func WithOption(stmt, name, value string) (string, error) {
	t, err := ddl.ParseCreateTable(stmt)
	if err != nil {
		return "", err
	}
	if len(t.Options) > 0 {
		return stmt + " AND " + name + " = " + value, nil
	}
	return stmt + " WITH " + name + " = " + value, nil
}
