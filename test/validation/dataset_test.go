package validation_test

import (
	"context"
	"testing"
	"time"
)

// Admission rules of datasets, read verification, key skew and CSV values; they join
// rejectedRuns so that the offline admission is held to the same verdicts.
func init() {
	csv := map[string]any{"configMapName": "ip-ranges", "key": "ranges.csv"}
	ipTable := set("CREATE TABLE ip (start_ip inet PRIMARY KEY, city text)", "spec", "schema", "table", "cql")
	noProfile := remove("spec", "schema", "table", "profile")
	for name, tc := range map[string]rejectedRun{
		"dataset measured after a recreate": {
			mutate: []mutation{
				set(map[string]any{"rows": int64(1000)}, "spec", "workload", "dataset"),
				set(true, "spec", "schema", "recreate"),
			},
			field: "spec", phrase: "spec: Invalid value: workload.dataset without load measures rows an earlier run loaded, which schema.recreate would drop",
		},
		"dataset measured after a recreate, load false": {
			mutate: []mutation{
				set(map[string]any{"rows": int64(1000), "load": false}, "spec", "workload", "dataset"),
				set(true, "spec", "schema", "recreate"),
			},
			field: "spec", phrase: "spec: Invalid value: workload.dataset without load measures rows an earlier run loaded, which schema.recreate would drop",
		},
		"dataset of no rows": {
			mutate: []mutation{set(map[string]any{"rows": int64(0), "load": true}, "spec", "workload", "dataset")},
			field:  "spec.workload.dataset.rows", phrase: "should be greater than or equal to 1",
		},
		"dataset without rows": {
			mutate: []mutation{set(map[string]any{"load": true}, "spec", "workload", "dataset")},
			field:  "spec.workload.dataset.rows", phrase: "Required value",
		},
		"verified partition reads": {
			mutate: []mutation{set(true, "spec", "workload", "verifyReads"), set("partition", "spec", "workload", "readPath")},
			field:  "spec.workload", phrase: "workload.verifyReads compares the one row a read targets: set readPath: row",
		},
		"key zipf exponent without zipf": {
			mutate: []mutation{set("1.2", "spec", "workload", "keyZipfExponent")},
			field:  "spec.workload", phrase: "workload.keyZipfExponent applies to keyDistribution zipf",
		},
		"key zipf exponent of zero": {
			mutate: []mutation{set("zipf", "spec", "workload", "keyDistribution"), set("0", "spec", "workload", "keyZipfExponent")},
			field:  "spec.workload.keyZipfExponent", phrase: "workload.keyZipfExponent must be above 0",
		},
		"key zipf exponent not a number": {
			mutate: []mutation{set("zipf", "spec", "workload", "keyDistribution"), set("-1", "spec", "workload", "keyZipfExponent")},
			field:  "spec.workload.keyZipfExponent", phrase: "should match",
		},
		"csv column without a csv file": {
			mutate: []mutation{noProfile, ipTable, set([]any{map[string]any{"name": "city", "csvColumn": "city"}}, "spec", "schema", "columns")},
			field:  "spec.schema", phrase: "schema.csv and a column's csvColumn go together",
		},
		"csv file that no column uses": {
			mutate: []mutation{noProfile, ipTable, set(csv, "spec", "schema", "csv")},
			field:  "spec.schema", phrase: "schema.csv and a column's csvColumn go together",
		},
		"csv column with a generator": {
			mutate: []mutation{noProfile, ipTable, set(csv, "spec", "schema", "csv"),
				set([]any{map[string]any{"name": "city", "csvColumn": "city", "cardinality": int64(10)}}, "spec", "schema", "columns")},
			field: "spec.schema.columns[0]", phrase: "a column with csvColumn takes its values from the CSV file",
		},
		"csv configmap name not a name": {
			mutate: []mutation{noProfile, ipTable, set(map[string]any{"configMapName": "IP Ranges", "key": "ranges.csv"}, "spec", "schema", "csv"),
				set([]any{map[string]any{"name": "city", "csvColumn": "city"}}, "spec", "schema", "columns")},
			field: "spec.schema.csv.configMapName", phrase: "should match",
		},
	} {
		rejectedRuns[name] = tc
	}
	rejectedSweeps["loadOnce without a dataset"] = []mutation{set(true, "spec", "loadOnce")}
}

// A sweep that loads once names what it needs; with a dataset in its template it is admitted.
func TestSweepLoadOnceNeedsADataset(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := env.Namespace(t)
	sw := validSweep(ns, "load-once")
	set(true, "spec", "loadOnce")(t, sw.Object)
	assertRejected(t, env.Client.Create(ctx, sw, strict), "spec", "spec.loadOnce loads the template's workload.dataset once: set template.workload.dataset (rows), or remove loadOnce")
	set(map[string]any{"rows": int64(100000)}, "spec", "template", "workload", "dataset")(t, sw.Object)
	if err := env.Client.Create(ctx, sw, strict); err != nil {
		t.Fatalf("a sweep that loads its template's dataset once was refused: %v", err)
	}
}

// A run measuring an earlier run's dataset, verified, on skewed keys, and one loading a
// table from a CSV file are admitted.
func TestDatasetAndCSVSpecsAreAccepted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := env.Namespace(t)
	for name, mutate := range map[string][]mutation{
		"measure a loaded dataset": {
			set(map[string]any{"rows": int64(100000)}, "spec", "workload", "dataset"),
			set(false, "spec", "schema", "recreate"),
			set(int64(0), "spec", "workload", "writeRatio"), set(int64(1), "spec", "workload", "readRatio"),
			set("row", "spec", "workload", "readPath"), set(true, "spec", "workload", "verifyReads"),
			set("zipf", "spec", "workload", "keyDistribution"), set("0.99", "spec", "workload", "keyZipfExponent"),
		},
		"load a csv": {
			set(map[string]any{"rows": int64(5000), "load": true}, "spec", "workload", "dataset"),
			set(true, "spec", "schema", "recreate"),
			remove("spec", "schema", "table", "profile"),
			set("CREATE TABLE ip (start_ip inet PRIMARY KEY, city text)", "spec", "schema", "table", "cql"),
			set(map[string]any{"configMapName": "ip-ranges", "key": "ranges.csv"}, "spec", "schema", "csv"),
			set([]any{map[string]any{"name": "start_ip", "csvColumn": "start"}, map[string]any{"name": "city", "csvColumn": "city"}}, "spec", "schema", "columns"),
		},
	} {
		t.Run(name, func(t *testing.T) {
			run := validRun(t, ns)
			for _, m := range mutate {
				m(t, run.Object)
			}
			if err := env.Client.Create(ctx, run, strict); err != nil {
				t.Fatalf("refused: %v", err)
			}
		})
	}
}
