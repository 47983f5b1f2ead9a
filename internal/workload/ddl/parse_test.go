package ddl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type parsed struct {
	Keyspace, Name        string
	Columns               []string
	Partition, Clustering []string
	Options               string
}

func summarize(t *Table) parsed {
	p := parsed{Keyspace: t.Keyspace, Name: t.Name, Options: RenderTokens(t.Options)}
	for _, c := range t.Columns {
		s := c.Name + " " + c.Type.String()
		if c.Static {
			s += " static"
		}
		p.Columns = append(p.Columns, s)
	}
	for _, i := range t.PartitionKey {
		p.Partition = append(p.Partition, t.Columns[i].Name)
	}
	for _, i := range t.ClusteringKey {
		p.Clustering = append(p.Clustering, t.Columns[i].Name)
	}
	return p
}

func TestParseCreateTable(t *testing.T) {
	cases := map[string]struct {
		cql  string
		want parsed
	}{
		"column primary key": {
			cql: "CREATE TABLE t (id uuid PRIMARY KEY, v text)",
			want: parsed{Name: "t", Columns: []string{"id uuid", "v text"},
				Partition: []string{"id"}},
		},
		"compound key, qualified": {
			cql: "CREATE TABLE KS.Events (a int, b text, c timestamp, PRIMARY KEY (a, b, c));",
			want: parsed{Keyspace: "ks", Name: "events", Columns: []string{"a int", "b text", "c timestamp"},
				Partition: []string{"a"}, Clustering: []string{"b", "c"}},
		},
		"composite partition key, quoted names, options and comments": {
			cql: `create table if not exists "Ks"."My Table" (
				"Col" int, -- a comment; with a semicolon
				b TEXT, /* block ; */ c int,
				primary key ((b, "Col"), c)
			) with clustering order by (c desc) and comment = 'it''s; fine' and gc_grace_seconds = 10;`,
			want: parsed{Keyspace: "Ks", Name: "My Table", Columns: []string{"Col int", "b text", "c int"},
				Partition: []string{"b", "Col"}, Clustering: []string{"c"},
				Options: "clustering order by (c desc) and comment = 'it''s; fine' and gc_grace_seconds = 10"},
		},
		"single partition column in parentheses": {
			cql: "CREATE TABLE t (country varchar, ip varchar, PRIMARY KEY ((country), ip))",
			want: parsed{Name: "t", Columns: []string{"country varchar", "ip varchar"},
				Partition: []string{"country"}, Clustering: []string{"ip"}},
		},
		"nested collections": {
			cql: `CREATE TABLE t (k frozen<map<text, frozen<list<int>>>>, m map<text, frozen<list<text>>>,
				s set<frozen<set<bigint>>>, PRIMARY KEY (k))`,
			want: parsed{Name: "t", Columns: []string{"k frozen<map<text, frozen<list<int>>>>",
				"m map<text, frozen<list<text>>>", "s set<frozen<set<bigint>>>"}, Partition: []string{"k"}},
		},
		"static column and dollar string": {
			cql: "CREATE TABLE t (p int, c int, s text STATIC, PRIMARY KEY (p, c)) WITH comment = $$a 'b'$$",
			want: parsed{Name: "t", Columns: []string{"p int", "c int", "s text static"},
				Partition: []string{"p"}, Clustering: []string{"c"}, Options: "comment = 'a ''b'''"},
		},
		"primary key clause first": {
			cql:  "CREATE TABLE t (PRIMARY KEY (a), a int, b blob)",
			want: parsed{Name: "t", Columns: []string{"a int", "b blob"}, Partition: []string{"a"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseCreateTable(tc.cql)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarize(got)); diff != "" {
				t.Errorf("parsed table (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseCreateTableErrors(t *testing.T) {
	cases := map[string]struct{ cql, want string }{
		"counter beside a value": {"CREATE TABLE t (k int PRIMARY KEY, c counter, v text)", `column "v" is not a counter, but a table with counter columns may have no other columns`},
		"counter in a list":      {"CREATE TABLE t (k int PRIMARY KEY, c list<counter>)", `column "c": counters cannot be inside a collection`},
		"duration":               {"CREATE TABLE t (k int PRIMARY KEY, d duration)", "type duration is not supported"},
		"vector":                 {"CREATE TABLE t (k int PRIMARY KEY, v vector<float, 3>)", "type vector is not supported"},
		"tuple":                  {"CREATE TABLE t (k int PRIMARY KEY, v tuple<int, text>)", "type tuple is not supported"},
		"udt":                    {"CREATE TABLE t (k int PRIMARY KEY, a address)", "type address is a user-defined type"},
		"frozen udt":             {"CREATE TABLE t (k int PRIMARY KEY, a frozen<address>)", "type address is a user-defined type"},
		"qualified udt":          {"CREATE TABLE t (k int PRIMARY KEY, a ks.address)", "type ks is a user-defined type"},
		"quoted udt":             {`CREATE TABLE t (k int PRIMARY KEY, a "Address")`, `type "Address" is a user-defined type`},
		"custom type":            {"CREATE TABLE t (k int PRIMARY KEY, a 'org.example.T')", `custom type "org.example.T" is not supported`},
		"no primary key":         {"CREATE TABLE t (a int, b text)", "table t has no primary key"},
		"unknown key column":     {"CREATE TABLE t (a int, b text, PRIMARY KEY (a, x))", `primary key names column "x", which the table does not have`},
		"key column twice":       {"CREATE TABLE t (a int, b text, PRIMARY KEY (a, a))", `primary key names column "a" twice`},
		"two column keys":        {"CREATE TABLE t (a int PRIMARY KEY, b text PRIMARY KEY)", `columns "a" and "b" are both declared PRIMARY KEY`},
		"key declared twice":     {"CREATE TABLE t (a int PRIMARY KEY, b text, PRIMARY KEY (b))", `column "a" is declared PRIMARY KEY and there is a PRIMARY KEY clause too`},
		"two key clauses":        {"CREATE TABLE t (a int, PRIMARY KEY (a), PRIMARY KEY (a))", "PRIMARY KEY is given twice"},
		"duplicate column":       {"CREATE TABLE t (a int PRIMARY KEY, b text, B int)", `column "b" is declared twice`},
		"unfrozen key":           {"CREATE TABLE t (a list<int> PRIMARY KEY)", `column "a" is in the primary key, so its type list<int> must be frozen`},
		"unfrozen nested":        {"CREATE TABLE t (a int PRIMARY KEY, l list<list<int>>)", "a collection inside a collection must be frozen"},
		"frozen scalar":          {"CREATE TABLE t (a int PRIMARY KEY, f frozen<text>)", "only collections can be frozen"},
		"decimal map key":        {"CREATE TABLE t (a int PRIMARY KEY, m map<decimal, int>)", "map keys of type decimal are not supported"},
		"static no clust":        {"CREATE TABLE t (a int PRIMARY KEY, s int STATIC)", `column "s" is STATIC but the table has no clustering columns`},
		"static key":             {"CREATE TABLE t (a int, b int STATIC, PRIMARY KEY (a, b))", `column "b" is in the primary key and cannot be STATIC`},
		"second statement":       {"CREATE TABLE t (a int PRIMARY KEY); DROP KEYSPACE x", `unexpected "DROP" at offset 36 after the statement: give a single CREATE TABLE`},
		"open string":            {"CREATE TABLE t (a int PRIMARY KEY) WITH comment = 'x", "string is not closed"},
		"open comment":           {"CREATE TABLE t (a int PRIMARY KEY) /* x", "comment at offset 35 is not closed"},
		"not a table":            {"CREATE KEYSPACE k", `expected TABLE at offset 7, found "KEYSPACE"`},
		"empty with":             {"CREATE TABLE t (a int PRIMARY KEY) WITH ;", "is followed by no options"},
		"bad character":          {"CREATE TABLE t (a int PRIMARY KEY) WITH x = @", `unexpected character '@'`},
		"missing paren":          {"CREATE TABLE t (a int PRIMARY KEY", "expected ) at offset 33, found end of statement"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseCreateTable(tc.cql)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestOptionNames(t *testing.T) {
	toks, err := Lex(`CLUSTERING ORDER BY (c DESC) AND compaction = {'class': 'X', 'a': 'b'} AND Default_Time_To_Live = 5 AND comment = 'x and y = 1'`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"clustering order": true, "compaction": true, "default_time_to_live": true, "comment": true}
	if diff := cmp.Diff(want, OptionNames(toks[:len(toks)-1])); diff != "" {
		t.Errorf("option names (-want +got):\n%s", diff)
	}
}
