package promtext

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Samples are read with their labels and values; comments, blank lines and lines that are
// not samples (or hold a negative or absurd value) are skipped; a label is found by its whole
// name only.
func TestScan(t *testing.T) {
	in := `# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total{host="h",instance="10.0.0.1",} 1234.5

jvm_gc_collection_seconds_count{host="h",gc="G1 Young Generation",} 120.0 1700000000000
up 1
broken{ 5
negative -1
huge 1e16
`
	type sample struct {
		Name, Labels string
		Value        float64
	}
	var got []sample
	if err := Scan(strings.NewReader(in), func(name, labels string, v float64) { got = append(got, sample{name, labels, v}) }); err != nil {
		t.Fatal(err)
	}
	want := []sample{
		{"process_cpu_seconds_total", `host="h",instance="10.0.0.1",`, 1234.5},
		{"jvm_gc_collection_seconds_count", `host="h",gc="G1 Young Generation",`, 120},
		{"up", "", 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	labels := `xgc="no",gc="G1 Old Generation",`
	if v := Label(labels, "gc"); v != "G1 Old Generation" {
		t.Errorf(`Label(%q, "gc") = %q`, labels, v)
	}
	if v := Label(labels, "rack"); v != "" {
		t.Errorf("an absent label read as %q", v)
	}
}
