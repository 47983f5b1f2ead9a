package workload

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/workload/ddl"
)

// Schema is what setup executes, in order.
type Schema struct {
	// Keyspace and Table are the names as Cassandra stores them (unquoted names folded to
	// lower case), for looking them up in system_schema.
	Keyspace string
	Table    string
	// DropKeyspace is "DROP KEYSPACE IF EXISTS ks" when spec.schema.recreate, else "".
	DropKeyspace string
	// Statements create the keyspace, the table and its indexes, all idempotent and fully
	// qualified, without trailing semicolons.
	Statements []string
}

// BuildSchema renders the schema of a spec. datacenter is the Cassandra datacenter name that
// NetworkTopologyStrategy replicates to.
func BuildSchema(spec *cbv1.BenchmarkRunSpec, datacenter string) (*Schema, error) {
	r, err := resolve(spec)
	if err != nil {
		return nil, err
	}
	ksCQL, err := keyspaceCQL(r.keyspace, spec.Schema, datacenter)
	if err != nil {
		return nil, err
	}
	tableCQL, err := r.tableCQL(spec.Schema)
	if err != nil {
		return nil, err
	}
	s := &Schema{Keyspace: r.keyspace, Table: r.table.Name, Statements: []string{ksCQL, tableCQL}}
	if spec.Schema.Recreate {
		s.DropKeyspace = "DROP KEYSPACE IF EXISTS " + ddl.QuoteIdent(r.keyspace)
	}
	for _, ix := range r.indexes {
		s.Statements = append(s.Statements, r.indexCQL(ix))
	}
	return s, nil
}

func keyspaceCQL(ks string, s cbv1.SchemaSpec, datacenter string) (string, error) {
	factor := s.Replication.Factor
	var repl string
	switch s.Replication.Strategy {
	case cbv1.SimpleStrategy:
		repl = fmt.Sprintf("{'class': 'SimpleStrategy', 'replication_factor': %d}", factor)
	case cbv1.NetworkTopologyStrategy:
		fs, err := ntsFactors(s, datacenter)
		if err != nil {
			return "", err
		}
		repl = "{'class': 'NetworkTopologyStrategy', " + ntsCQL(fs) + "}"
	default:
		return "", fmt.Errorf("schema.replication.strategy %q is not SimpleStrategy or NetworkTopologyStrategy", s.Replication.Strategy)
	}
	if s.DurableWrites == nil {
		return "", fmt.Errorf("schema.durableWrites is unset, which the CRD defaults: the spec was not admitted")
	}
	return fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = %s AND durable_writes = %t",
		ddl.QuoteIdent(ks), repl, *s.DurableWrites), nil
}

func (r *resolved) tableCQL(s cbv1.SchemaSpec) (string, error) {
	t := r.table
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS " + r.qualified() + " (")
	for _, c := range t.Columns {
		b.WriteString(ddl.QuoteIdent(c.Name) + " " + c.Type.String())
		if c.Static {
			b.WriteString(" STATIC")
		}
		b.WriteString(", ")
	}
	b.WriteString("PRIMARY KEY (")
	part := names(t, t.PartitionKey)
	if len(t.PartitionKey) > 1 {
		part = "(" + part + ")"
	}
	b.WriteString(part)
	if len(t.ClusteringKey) > 0 {
		b.WriteString(", " + names(t, t.ClusteringKey))
	}
	b.WriteString("))")

	var opts []string
	if len(t.Options) > 0 {
		opts = append(opts, ddl.RenderTokens(t.Options))
	}
	given := ddl.OptionNames(t.Options)
	if c := s.Compaction; c != nil {
		if given["compaction"] {
			return "", fmt.Errorf("compaction is set both in schema.compaction and in the CREATE TABLE's WITH clause: keep one")
		}
		o, err := compactionCQL(c)
		if err != nil {
			return "", err
		}
		opts = append(opts, o)
	}
	if ttl := s.DefaultTTLSeconds; ttl != nil {
		if given["default_time_to_live"] {
			return "", fmt.Errorf("default_time_to_live is set both in schema.defaultTTLSeconds and in the CREATE TABLE's WITH clause: keep one")
		}
		opts = append(opts, "default_time_to_live = "+strconv.Itoa(int(*ttl)))
	}
	more, err := tableOptionsCQL(s.TableOptions, given)
	if err != nil {
		return "", err
	}
	opts = append(opts, more...)
	if len(opts) > 0 {
		b.WriteString(" WITH " + strings.Join(opts, " AND "))
	}
	return b.String(), nil
}

func names(t *ddl.Table, cols []int) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = ddl.QuoteIdent(t.Columns[c].Name)
	}
	return strings.Join(out, ", ")
}

func compactionCQL(c *cbv1.Compaction) (string, error) {
	class := string(c.Class)
	if class == "" || strings.ContainsFunc(class, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '.' && r != '_'
	}) {
		return "", fmt.Errorf("schema.compaction.class %q is not a compaction strategy class name", class)
	}
	parts := []string{"'class': " + ddl.QuoteString(class)}
	keys := make([]string, 0, len(c.Options))
	for k := range c.Options {
		if strings.EqualFold(k, "class") {
			return "", fmt.Errorf("schema.compaction.options must not set class: use schema.compaction.class")
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, ddl.QuoteString(k)+": "+ddl.QuoteString(c.Options[k]))
	}
	return "compaction = {" + strings.Join(parts, ", ") + "}", nil
}

// tableOptionsCQL renders schema.tableOptions, refusing an option the CREATE TABLE's own WITH
// clause already sets.
func tableOptionsCQL(o *cbv1.TableOptions, given map[string]bool) ([]string, error) {
	if o == nil {
		return nil, nil
	}
	var opts []string
	add := func(name, value string) error {
		if given[name] {
			return fmt.Errorf("%s is set both in schema.tableOptions and in the CREATE TABLE's WITH clause: keep one", name)
		}
		opts = append(opts, name+" = "+value)
		return nil
	}
	if len(o.Compression) > 0 {
		keys := make([]string, 0, len(o.Compression))
		for k := range o.Compression {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = ddl.QuoteString(k) + ": " + ddl.QuoteString(o.Compression[k])
		}
		if err := add("compression", "{"+strings.Join(parts, ", ")+"}"); err != nil {
			return nil, err
		}
	}
	if c := o.Caching; c != nil && (c.Keys != "" || c.RowsPerPartition != "") {
		var parts []string
		if c.Keys != "" {
			parts = append(parts, "'keys': "+ddl.QuoteString(c.Keys))
		}
		if c.RowsPerPartition != "" {
			parts = append(parts, "'rows_per_partition': "+ddl.QuoteString(c.RowsPerPartition))
		}
		if err := add("caching", "{"+strings.Join(parts, ", ")+"}"); err != nil {
			return nil, err
		}
	}
	if g := o.GCGraceSeconds; g != nil {
		if err := add("gc_grace_seconds", strconv.Itoa(int(*g))); err != nil {
			return nil, err
		}
	}
	if f := o.BloomFilterFPChance; f != "" {
		if _, err := strconv.ParseFloat(f, 64); err != nil {
			return nil, fmt.Errorf("schema.tableOptions.bloomFilterFPChance %q is not a decimal", f)
		}
		if err := add("bloom_filter_fp_chance", f); err != nil {
			return nil, err
		}
	}
	return opts, nil
}

func (r *resolved) indexCQL(ix index) string {
	if ix.sai {
		return fmt.Sprintf("CREATE CUSTOM INDEX IF NOT EXISTS %s ON %s (%s) USING 'StorageAttachedIndex'", ix.name, r.qualified(), ix.target)
	}
	return fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (%s)", ix.name, r.qualified(), ix.target)
}
