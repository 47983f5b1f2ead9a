package ddl

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzLex: token positions lie within the statement and increase, so messages that quote an
// offset point into what the user wrote.
func FuzzLex(f *testing.F) {
	for _, s := range cqlSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		toks, err := Lex(src)
		if err != nil {
			return
		}
		last := -1
		for _, tk := range toks {
			if tk.Kind == TokEOF {
				continue
			}
			if tk.Pos <= last || tk.Pos >= len(src) {
				t.Fatalf("token %q at %d after %d, in %d bytes", tk.Text, tk.Pos, last, len(src))
			}
			if (tk.Kind == TokIdent || tk.Kind == TokNumber || tk.Kind == TokPunct) && !strings.HasPrefix(src[tk.Pos:], tk.Text) {
				t.Fatalf("token %q is not the text at its offset %d", tk.Text, tk.Pos)
			}
			last = tk.Pos
		}
	})
}

// FuzzParseCreateTable: what parses has a key made of its own distinct columns, and written
// back as CQL (every name quoted) parses to the same table.
func FuzzParseCreateTable(f *testing.F) {
	for _, s := range cqlSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		td, err := ParseCreateTable(src)
		if err != nil {
			return
		}
		if len(td.PartitionKey) == 0 {
			t.Fatal("a table without a partition key parsed")
		}
		seen := map[int]bool{}
		for _, i := range append(append([]int(nil), td.PartitionKey...), td.ClusteringKey...) {
			if i < 0 || i >= len(td.Columns) || seen[i] {
				t.Fatalf("key column %d of %d columns, or twice", i, len(td.Columns))
			}
			seen[i] = true
		}
		back, err := ParseCreateTable(renderTable(td))
		if err != nil {
			t.Fatalf("re-parsing %s: %v", renderTable(td), err)
		}
		want, got := summarize(td), summarize(back)
		want.Options, got.Options = "", ""
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

func quoteName(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// renderTable writes a parsed table back as one CREATE TABLE, without its options.
func renderTable(td *Table) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	if td.Keyspace != "" {
		b.WriteString(quoteName(td.Keyspace) + ".")
	}
	b.WriteString(quoteName(td.Name) + " (")
	for _, c := range td.Columns {
		b.WriteString(quoteName(c.Name) + " " + c.Type.String())
		if c.Static {
			b.WriteString(" STATIC")
		}
		b.WriteString(", ")
	}
	names := func(idx []int) string {
		var out []string
		for _, i := range idx {
			out = append(out, quoteName(td.Columns[i].Name))
		}
		return strings.Join(out, ", ")
	}
	b.WriteString("PRIMARY KEY ((" + names(td.PartitionKey) + ")")
	if len(td.ClusteringKey) > 0 {
		b.WriteString(", " + names(td.ClusteringKey))
	}
	b.WriteString("))")
	return b.String()
}

// cqlSeeds are the statements of the parser's tests and of the samples' schema.table.cql.
func cqlSeeds(tb testing.TB) []string {
	tb.Helper()
	seeds := []string{
		"CREATE TABLE t (id uuid PRIMARY KEY, v text)",
		"CREATE TABLE KS.Events (a int, b text, c timestamp, PRIMARY KEY (a, b, c));",
		"create table if not exists \"Ks\".\"My Table\" (\n\"Col\" int, -- a comment; with a semicolon\nb TEXT, /* block ; */ c int,\nprimary key ((b, \"Col\"), c)\n) with clustering order by (c desc) and comment = 'it''s; fine' and gc_grace_seconds = 10;",
		"CREATE TABLE t (k int, c int, s text static, m frozen<map<text, list<int>>>, PRIMARY KEY (k, c)) WITH comment = $$x;y$$",
	}
	files, _ := filepath.Glob("../../../config/samples/*.yaml")
	if len(files) == 0 {
		tb.Fatal("no samples under config/samples to seed the parser with")
	}
	for _, name := range files {
		b, _ := os.ReadFile(name)
		// The statement is the block under "cql: |", indented deeper than that line.
		for _, part := range bytes.Split(b, []byte("cql: |\n"))[1:] {
			var stmt []string
			for _, line := range strings.Split(string(part), "\n") {
				if !strings.HasPrefix(line, "        ") {
					break
				}
				stmt = append(stmt, strings.TrimSpace(line))
			}
			seeds = append(seeds, strings.Join(stmt, "\n"))
		}
	}
	return seeds
}
