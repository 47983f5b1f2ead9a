package workload

import (
	"fmt"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/workload/ddl"
)

// resolved is the table a spec describes. BuildSchema and NewGenerator both start from it, so
// setup and the writers cannot disagree about names, columns or indexes.
type resolved struct {
	keyspace string
	table    *ddl.Table
	presets  map[string]preset // by column name; empty for a table given as CQL
	profile  bool
	indexes  []index
}

type index struct {
	column int
	name   string
	sai    bool
	// target is what the index covers: the column, values(column) for collections, or
	// full(column) for frozen collections, which are indexed whole.
	target   string
	contains bool // queried with CONTAINS rather than =
}

func resolve(spec *cbv1.BenchmarkRunSpec) (*resolved, error) {
	ks := resolveKeyspace(spec.Schema.Keyspace)
	r := &resolved{keyspace: ks}
	tbl := spec.Schema.Table
	var err error
	switch {
	case tbl.CQL != "":
		if r.table, err = ddl.ParseCreateTable(tbl.CQL); err != nil {
			return nil, fmt.Errorf("schema.table.cql: %w", err)
		}
		if r.table.Keyspace != "" && r.table.Keyspace != ks {
			return nil, fmt.Errorf("schema.table.cql creates the table in keyspace %q but schema.keyspace is %q: leave the table unqualified", r.table.Keyspace, ks)
		}
	default:
		name := tbl.Profile
		p, ok := profiles[name]
		if !ok {
			return nil, fmt.Errorf("schema.table.profile %q is not a built-in profile", name)
		}
		if r.table, err = ddl.ParseCreateTable(p.cql); err != nil {
			return nil, fmt.Errorf("profile %s: %w", name, err)
		}
		r.presets, r.profile = p.presets, true
	}
	r.table.Keyspace = ks
	if r.indexes, err = resolveIndexes(r.table, spec.Schema.Indexes); err != nil {
		return nil, err
	}
	return r, nil
}

func resolveIndexes(t *ddl.Table, specs []cbv1.Index) ([]index, error) {
	var out []index
	seen := map[int]bool{}
	for _, s := range specs {
		i := t.Column(s.Column)
		if i < 0 {
			return nil, fmt.Errorf("schema.indexes names column %q, which table %s does not have", s.Column, t.Name)
		}
		c := t.Columns[i]
		if seen[i] {
			return nil, fmt.Errorf("schema.indexes names column %q twice", s.Column)
		}
		seen[i] = true
		if c.Kind == ddl.PartitionKeyColumn && len(t.PartitionKey) == 1 {
			return nil, fmt.Errorf("schema.indexes: column %q is the whole partition key, which needs no index", c.Name)
		}
		ix := index{column: i, name: indexName(t.Name, c.Name), target: ddl.QuoteIdent(c.Name)}
		switch strings.ToLower(s.Kind) {
		case "", "secondary":
		case "sai":
			ix.sai = true
		default:
			return nil, fmt.Errorf("schema.indexes: kind %q of column %q is not secondary or sai", s.Kind, c.Name)
		}
		switch {
		case c.Type.Name == "frozen":
			ix.target = "full(" + ix.target + ")"
		case c.Type.IsCollection():
			ix.target = "values(" + ix.target + ")"
			ix.contains = true
		}
		out = append(out, ix)
	}
	return out, nil
}

// qualified is the table as statements name it.
func (r *resolved) qualified() string {
	return ddl.QuoteIdent(r.keyspace) + "." + ddl.QuoteIdent(r.table.Name)
}
