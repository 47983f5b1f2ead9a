package workload

import (
	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func TestParseCSVRefusesBadFiles(t *testing.T) {
	for name, tc := range map[string]struct{ file, err string }{
		"empty":            {"", "ranges.csv is empty: it needs a header line"},
		"header only":      {"start,end\n", "ranges.csv has a header line and no rows"},
		"ragged line":      {"start,end\n1,2\n3\n", "ranges.csv line 3: has a different number of fields than the header line"},
		"duplicate header": {"start,start\n1,2\n", `ranges.csv header line: column "start" appears twice`},
		"unnamed column":   {"start,\n1,2\n", "ranges.csv header line: column 2 has no name"},
		"bare quote":       {"start,end\n1,\"2\n", "ranges.csv"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseCSV("ranges.csv", strings.NewReader(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
	c, err := ParseCSV("ranges.csv", strings.NewReader("start, city \n10.0.0.0,\"Paris, FR\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&CSV{Name: "ranges.csv", Header: []string{"start", "city"}, Rows: [][]string{{"10.0.0.0", "Paris, FR"}}}, c); diff != "" {
		t.Errorf("parsed (-want +got):\n%s", diff)
	}
}

func csvSpec(columns ...cbv1.ColumnGenerator) *cbv1.BenchmarkRunSpec {
	return specOf(table("CREATE TABLE ip_ranges (start_ip inet, end_ip inet, city text, hits int, PRIMARY KEY (start_ip))"),
		func(s *cbv1.BenchmarkRunSpec) {
			s.Schema.CSV = &cbv1.CSVSource{ConfigMapName: "ranges", Key: "ranges.csv"}
			s.Schema.Columns = columns
		})
}

// Row n of a run (its global row id) takes row n of the file, key columns too, starting over
// at the end; columns without a csvColumn are generated as before.
func TestCSVColumnsTakeTheFileRowByRow(t *testing.T) {
	file, err := ParseCSV("ranges.csv", strings.NewReader("start,end,city,n\n10.0.0.0,10.0.0.255,Paris,1\n10.0.1.0,10.0.1.255,Lyon,2\n2001:db8::,2001:db8::ff,Nice,3\n"))
	if err != nil {
		t.Fatal(err)
	}
	spec := csvSpec(cbv1.ColumnGenerator{Name: "start_ip", CSVColumn: "start"}, cbv1.ColumnGenerator{Name: "end_ip", CSVColumn: "end"},
		cbv1.ColumnGenerator{Name: "city", CSVColumn: "city"}, cbv1.ColumnGenerator{Name: "hits", CSVColumn: "n"})
	var got [][]string
	for w := range int32(2) {
		g, err := NewGeneratorWith(spec, w, 2, Options{CSV: file})
		if err != nil {
			t.Fatal(err)
		}
		row := make([]any, g.InsertArity())
		for r := range int64(3) { // global ids w, w+2, w+4
			g.RowAt(r, row)
			got = append(got, []string{row[0].(net.IP).String(), row[1].(net.IP).String(), row[2].(string), string(rune('0' + row[3].(int32)))})
		}
	}
	want := [][]string{
		{"10.0.0.0", "10.0.0.255", "Paris", "1"}, {"2001:db8::", "2001:db8::ff", "Nice", "3"}, {"10.0.1.0", "10.0.1.255", "Lyon", "2"}, // writer 0: ids 0, 2, 4
		{"10.0.1.0", "10.0.1.255", "Lyon", "2"}, {"10.0.0.0", "10.0.0.255", "Paris", "1"}, {"2001:db8::", "2001:db8::ff", "Nice", "3"}, // writer 1: ids 1, 3, 5
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestCSVColumnsRefuseWhatTheyCannotTake(t *testing.T) {
	file, err := ParseCSV("ranges.csv", strings.NewReader("start,city,n\n10.0.0.0,Paris,1\n10.0.0.x,Lyon,big\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		col  cbv1.ColumnGenerator
		file *CSV
		err  string
	}{
		"no file":        {cbv1.ColumnGenerator{Name: "city", CSVColumn: "city"}, nil, `schema.columns "city" takes csvColumn "city" but no CSV file was given`},
		"unknown column": {cbv1.ColumnGenerator{Name: "city", CSVColumn: "town"}, file, `ranges.csv has no column "town"; its header names start, city, n`},
		"bad inet":       {cbv1.ColumnGenerator{Name: "start_ip", CSVColumn: "start"}, file, `ranges.csv line 3, column start: "10.0.0.x" is not an IP address`},
		"bad int":        {cbv1.ColumnGenerator{Name: "hits", CSVColumn: "n"}, file, `ranges.csv line 3, column n: "big" is not an integer of 32 bits`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := NewGeneratorWith(csvSpec(tc.col), 0, 1, Options{CSV: tc.file})
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
	_, err = NewGeneratorWith(specOf(table("CREATE TABLE t (k int PRIMARY KEY, tags set<text>)"), func(s *cbv1.BenchmarkRunSpec) {
		s.Schema.Columns = []cbv1.ColumnGenerator{{Name: "tags", CSVColumn: "city"}}
	}), 0, 1, Options{CSV: file})
	if err == nil || !strings.Contains(err.Error(), "type set<text> cannot take CSV values") {
		t.Fatalf("a set column from a CSV column: %v", err)
	}
}

func TestParseCSVValues(t *testing.T) {
	for name, tc := range map[string]struct {
		k    kind
		in   string
		want any
	}{
		"bigint":     {kBigint, "-42", int64(-42)},
		"tinyint":    {kTinyint, "7", int8(7)},
		"boolean":    {kBoolean, "true", true},
		"double":     {kDouble, "2.5", 2.5},
		"blob":       {kBlob, "0x0a1b", []byte{0x0a, 0x1b}},
		"ipv4":       {kInet, "192.168.0.1", net.IP{192, 168, 0, 1}},
		"uuid":       {kUUID, "00112233-4455-6677-8899-aabbccddeeff", [16]byte{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}},
		"text as is": {kText, "Saint-Étienne", "Saint-Étienne"},
	} {
		t.Run(name, func(t *testing.T) {
			got, _, err := parseCSVValue(tc.k, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, _, err := parseCSVValue(kTimeUUID, "00112233-4455-6677-8899-aabbccddeeff"); err == nil {
		t.Error("a version 6 UUID was taken as a timeuuid")
	}
	if _, _, err := parseCSVValue(kTinyint, "300"); err == nil {
		t.Error("300 was taken as a tinyint")
	}
}
