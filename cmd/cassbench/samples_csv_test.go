package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cli"
	"github.com/cassbench/cassbench/internal/workload"
)

// sampleCSV writes the CSV file a sample's schema.csv names, from the ConfigMap sample that
// holds it, into dir, and returns its path: what a writer pod would find mounted.
func sampleCSV(t *testing.T, dir string, src *cbv1.CSVSource) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "config", "samples", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var cm corev1.ConfigMap
		if err := yaml.Unmarshal(data, &cm); err != nil || cm.Kind != "ConfigMap" || cm.Name != src.ConfigMapName {
			continue
		}
		content, ok := cm.Data[src.Key]
		if !ok {
			t.Fatalf("%s: ConfigMap %s has no key %s", file, cm.Name, src.Key)
		}
		path := filepath.Join(dir, src.ConfigMapName+"-"+src.Key)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	t.Fatalf("no sample ConfigMap %s holds the CSV file %s", src.ConfigMapName, src.Key)
	return ""
}

// Every sample that takes values from a CSV file has the ConfigMap holding it among the
// samples, with a file whose values the table's columns take.
func TestSampleCSVFilesParse(t *testing.T) {
	dir := t.TempDir()
	found := 0
	for _, r := range sampleRuns(t, 2) {
		src := r.spec.Schema.CSV
		if src == nil {
			continue
		}
		found++
		csv, err := cli.LoadCSV(r.spec, sampleCSV(t, dir, src))
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if _, err := workload.NewGeneratorWith(r.spec, 0, r.spec.Writers.Replicas, workload.Options{CSV: csv}); err != nil {
			t.Errorf("%s: %v", r.name, err)
		}
	}
	if found == 0 {
		t.Error("no sample takes values from a CSV file")
	}
}

// A writer without the file of schema.csv (its ConfigMap missing, or run outside a pod without
// --csv-file) says which ConfigMap and key it needs and how to provide them.
func TestMissingCSVFileSaysWhatToCreate(t *testing.T) {
	spec := &cbv1.BenchmarkRunSpec{}
	spec.Schema.CSV = &cbv1.CSVSource{ConfigMapName: "ip-cities-absent", Key: "cities.csv"}
	_, err := cli.LoadCSV(spec, "")
	want := "schema.csv is key cities.csv of ConfigMap ip-cities-absent, which writer pods find in /etc/cassbench/csv: create the ConfigMap with that key in the run's namespace (kubectl create configmap ip-cities-absent --from-file=cities.csv=FILE), or outside a pod pass the file with --csv-file"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want it to start %q", err, want)
	}
	if c, err := cli.LoadCSV(&cbv1.BenchmarkRunSpec{}, ""); c != nil || err != nil {
		t.Errorf("a spec without schema.csv read a CSV: %v, %v", c, err)
	}
}
