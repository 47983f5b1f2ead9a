package workload

import (
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/go-cmp/cmp"
	"gopkg.in/inf.v0"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/workload/ddl"
)

// everyType has a column of each supported type, keys included, so the test below sees each
// type generated as an identity (keys), a payload (regular columns) and a bounded value.
const everyType = `CREATE TABLE every (
	k_text text, k_int int, k_uuid uuid, c_timeuuid timeuuid, c_date date, c_tiny tinyint,
	a ascii, v varchar, t text, b blob, bi bigint, vi varint, i int, si smallint, ti tinyint,
	bo boolean, f float, d double, de decimal, u uuid, tu timeuuid, ts timestamp, dt date,
	tm time, ip inet, l list<text>, li list<int>, s set<bigint>, sb set<blob>,
	m map<text, text>, mi map<int, frozen<list<text>>>, mb map<blob, inet>,
	fl frozen<list<double>>, fm frozen<map<uuid, timestamp>>,
	PRIMARY KEY ((k_text, k_int, k_uuid), c_timeuuid, c_date, c_tiny))`

func TestValueTypes(t *testing.T) {
	bounded := columns(
		cbv1.ColumnGenerator{Name: "i", Cardinality: 7},
		cbv1.ColumnGenerator{Name: "ip", Cardinality: 5000, Distribution: cbv1.DistributionZipf},
		cbv1.ColumnGenerator{Name: "l", Cardinality: 3},
		cbv1.ColumnGenerator{Name: "mb", Cardinality: 3},
		cbv1.ColumnGenerator{Name: "tu", Distribution: cbv1.DistributionSequence},
	)
	g := mustGenerator(specOf(table(everyType), bounded, rowsPerPartition(3)), 1, 2)
	want := map[string]reflect.Type{
		"k_text": reflect.TypeFor[string](), "k_int": reflect.TypeFor[int32](), "k_uuid": reflect.TypeFor[[16]byte](),
		"c_timeuuid": reflect.TypeFor[[16]byte](), "c_date": reflect.TypeFor[time.Time](), "c_tiny": reflect.TypeFor[int8](),
		"a": reflect.TypeFor[string](), "v": reflect.TypeFor[string](), "t": reflect.TypeFor[string](),
		"b": reflect.TypeFor[[]byte](), "bi": reflect.TypeFor[int64](), "vi": reflect.TypeFor[int64](),
		"i": reflect.TypeFor[int32](), "si": reflect.TypeFor[int16](), "ti": reflect.TypeFor[int8](),
		"bo": reflect.TypeFor[bool](), "f": reflect.TypeFor[float32](), "d": reflect.TypeFor[float64](),
		"de": reflect.TypeFor[inf.Dec](), "u": reflect.TypeFor[[16]byte](), "tu": reflect.TypeFor[[16]byte](),
		"ts": reflect.TypeFor[time.Time](), "dt": reflect.TypeFor[time.Time](), "tm": reflect.TypeFor[time.Duration](),
		"ip": reflect.TypeFor[net.IP](), "l": reflect.TypeFor[[]string](), "li": reflect.TypeFor[[]int32](),
		"s": reflect.TypeFor[[]int64](), "sb": reflect.TypeFor[[][]byte](), "m": reflect.TypeFor[map[string]string](),
		"mi": reflect.TypeFor[map[int32][]string](), "mb": reflect.TypeFor[map[string]net.IP](),
		"fl": reflect.TypeFor[[]float64](), "fm": reflect.TypeFor[map[[16]byte]time.Time](),
	}
	r, err := resolve(specOf(table(everyType)))
	if err != nil {
		t.Fatal(err)
	}
	row := make([]any, g.InsertArity())
	for seq := range int64(50) {
		g.Row(seq, row)
		got := map[string]reflect.Type{}
		for i, v := range row {
			name := g.cols[i].name
			got[name] = reflect.TypeOf(v)
			// gocql must take the value for the column's type: it is what the writer binds.
			info := gocql.NewNativeType(4, gocql.TypeCustom, r.table.Columns[i].Type.String())
			if _, err := gocql.Marshal(info, v); err != nil {
				t.Errorf("row %d column %s: gocql cannot marshal %T into %s: %v", seq, name, v, r.table.Columns[i].Type, err)
			}
		}
		if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b reflect.Type) bool { return a == b })); diff != "" {
			t.Fatalf("row %d: Go types (-want +got):\n%s", seq, diff)
		}
		for _, name := range []string{"c_timeuuid", "tu"} {
			if u := row[r.table.Column(name)].([16]byte); u[6]>>4 != 1 || u[8]>>6 != 2 {
				t.Errorf("row %d: %s %x is not a version 1 RFC 4122 UUID", seq, name, u)
			}
		}
	}
}

func TestColumnGenerators(t *testing.T) {
	const rows = 2000
	spec := specOf(
		table("CREATE TABLE t (id bigint PRIMARY KEY, status text, code int, note text, tags list<text>, body blob, seqno bigint)"),
		columns(
			cbv1.ColumnGenerator{Name: "status", Cardinality: 4, Distribution: cbv1.DistributionZipf, ZipfExponent: "2.5"},
			cbv1.ColumnGenerator{Name: "code", Cardinality: 10, Distribution: cbv1.DistributionSequence},
			cbv1.ColumnGenerator{Name: "note", MinSize: ptr(int32(30)), MaxSize: ptr(int32(40))},
			cbv1.ColumnGenerator{Name: "tags", MinSize: ptr(int32(2)), MaxSize: ptr(int32(5))},
			cbv1.ColumnGenerator{Name: "seqno", Distribution: cbv1.DistributionSequence},
		),
		func(s *cbv1.BenchmarkRunSpec) { s.Workload.ValueSize = &cbv1.SizeRange{Min: ptr(int32(500))} },
	)
	g := mustGenerator(spec, 0, 1)
	row := make([]any, g.InsertArity())
	status, codes, seqnos := map[string]int{}, map[int32]bool{}, map[int64]bool{}
	for r := range int64(rows) {
		g.RowAt(r, row)
		status[row[1].(string)]++
		codes[row[2].(int32)] = true
		if n := len(row[3].(string)); n < 30 || n > 40 {
			t.Errorf("note of %d bytes, want 30..40", n)
		}
		if n := len(row[4].([]string)); n < 2 || n > 5 {
			t.Errorf("%d tags, want 2..5", n)
		}
		if n := len(row[5].([]byte)); n < 500 || n > 500+64 {
			t.Errorf("body of %d bytes, want 500..564 (valueSize min 500 over the default max)", n)
		}
		seqnos[row[6].(int64)] = true
	}
	if len(status) > 4 || len(codes) != 10 || len(seqnos) != rows {
		t.Errorf("%d statuses (want <= 4), %d codes (want 10), %d seqnos (want %d)", len(status), len(codes), len(seqnos), rows)
	}
	top := 0
	for _, n := range status {
		top = max(top, n)
	}
	if top < rows*70/100 {
		t.Errorf("top status in %d of %d rows, want a zipf 2.5 skew", top, rows)
	}
}

func TestTags(t *testing.T) {
	g := func(f format, m mode) *valueGen {
		v, err := newValueGen(&ddl.CQLType{Name: "text"}, preset{mode: m, format: f, span: degreeSpan, width: 5}, 0)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cases := map[string]struct {
		g    *valueGen
		x    uint64
		want string
	}{
		"ipv4":             {g(fmtIP, modeIdentity), 0x0a000102, "10.0.1.2"},
		"ipv6 beyond 2^32": {g(fmtIP, modeIdentity), 1<<32 | 5, "2001:db8::0:1:0:5"},
		"code":             {g(fmtCode, modeBounded), 27, "BB"},
		"code beyond 676":  {g(fmtCode, modeIdentity), 677, "AB1"},
		"degrees south":    {g(fmtDegrees, modePayload), 0, "-90.0000"},
		"degrees north":    {g(fmtDegrees, modePayload), degreeSpan - 1, "90.0000"},
		"degrees small":    {g(fmtDegrees, modePayload), 900000 - 5, "-0.0005"},
		"zip":              {g(fmtDigits, modeIdentity), 42, "00042"},
		"zone":             {g(fmtZone, modeBounded), 0, "UTC-12:00"},
		"zone max":         {g(fmtZone, modeBounded), 104, "UTC+14:00"},
		"datetime":         {g(fmtDatetime, modeIdentity), 86400 + 61, "2020-01-02T00:01:01Z"},
		"one word":         {g(fmtWords, modeIdentity), 0, words()[0]},
		"two words":        {g(fmtWords, modeIdentity), vocabSize, words()[0] + " " + words()[0]},
		"hex beyond words": {g(fmtHex, modeIdentity), 0, "e220a8397b1dcdaf"},
		"words become hex": {g(fmtWords, modeIdentity), vocabSize + vocabSize*vocabSize, "24fb7faacab5e700"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.g.textOf(tc.x); got != tc.want {
				t.Errorf("textOf(%d) = %q, want %q", tc.x, got, tc.want)
			}
		})
	}
	// Identity words stay distinct across the one-word, two-word and hex forms.
	w := g(fmtWords, modeIdentity)
	seen := map[string]uint64{}
	for _, x := range []uint64{0, vocabSize - 1, vocabSize, vocabSize + 1, 2 * vocabSize, vocabSize * vocabSize, vocabSize*vocabSize + vocabSize - 1, vocabSize*vocabSize + vocabSize, 1 << 40} {
		s := w.textOf(x)
		if prev, dup := seen[s]; dup {
			t.Errorf("textOf(%d) = textOf(%d) = %q", x, prev, s)
		}
		seen[s] = x
		if strings.TrimSpace(s) != s || s == "" {
			t.Errorf("textOf(%d) = %q", x, s)
		}
	}
}
