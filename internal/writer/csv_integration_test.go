package writer_test

import (
	"fmt"
	"net"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/workload"
	"github.com/cassbench/cassbench/internal/writer"
)

// A table whose every column comes from a CSV file, loaded with as many rows as the file has,
// holds the file's rows: a query of the table returns them, no more, no fewer. Reads of
// them, verified, find every row as the file has it.
func TestCSVRowsAreTheTableRows(t *testing.T) {
	c := cluster(t)
	const ks, rows = "it_csv_rows", 600
	var file strings.Builder
	file.WriteString("start,end,city\n")
	var want []string
	for i := range rows {
		start := net.IPv4(10, byte(i/256), byte(i%256), 0).To4()
		end := net.IPv4(10, byte(i/256), byte(i%256), 255).To4()
		city := fmt.Sprintf("city-%d", i%37)
		if i%50 == 0 {
			city = fmt.Sprintf("\"Saint-Étienne, %d\"", i) // quoted, with a comma
		}
		fmt.Fprintf(&file, "%s,%s,%s\n", start, end, city)
		want = append(want, fmt.Sprintf("%s %s %s", start, end, strings.Trim(city, `"`)))
	}
	csv, err := workload.ParseCSV("ranges.csv", strings.NewReader(file.String()))
	if err != nil {
		t.Fatal(err)
	}
	s := datasetSpec(ks, rows, true, func(b *builders.BenchmarkRunBuilder) {
		b.Writers(2).Mix(0, 1).Operations(1000).
			CQL("CREATE TABLE ip_ranges (start_ip inet, end_ip inet, city text, PRIMARY KEY (start_ip))")
	})
	s.Schema.CSV = &cbv1.CSVSource{ConfigMapName: "ip-ranges", Key: "ranges.csv"}
	s.Schema.Columns = []cbv1.ColumnGenerator{{Name: "start_ip", CSVColumn: "start"}, {Name: "end_ip", CSVColumn: "end"}, {Name: "city", CSVColumn: "city"}}
	s.Workload.ReadPath = cbv1.ReadRow
	s.Workload.VerifyReads = true
	setUp(t, c, s)
	res := results.Merge(mustRun(t, c, s, func(cfg *writer.Config) { cfg.CSV = csv }))
	if l, r := res.Load, res.Reads; l == nil || l.Rows != rows || r.Misses != 0 || r.Mismatches != 0 {
		t.Fatalf("load %+v, reads %+v: want %d rows loaded, no misses, no mismatches", l, r, rows)
	}

	iter := session(t, c, time.Minute).Query(fmt.Sprintf("select start_ip, end_ip, city from %s.ip_ranges", ks)).Iter()
	var got []string
	var start, end net.IP
	var city string
	for iter.Scan(&start, &end, &city) {
		got = append(got, fmt.Sprintf("%s %s %s", start, end, city))
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("table rows (-CSV rows +table rows):\n%s", diff)
	}
	t.Logf("%d CSV rows, %d table rows; %d verified reads, %d mismatches", len(want), len(got), res.Reads.Operations, res.Reads.Mismatches)
}
