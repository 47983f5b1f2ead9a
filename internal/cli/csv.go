package cli

import (
	"flag"
	"fmt"
	"path/filepath"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/podenv"
	"github.com/cassbench/cassbench/internal/workload"
)

// CSVFlag registers --csv-file: the file of schema.csv, which a writer pod finds where its
// ConfigMap is mounted and `cassbench run` is given.
func CSVFlag(fs *flag.FlagSet) *string {
	return fs.String("csv-file", "", "CSV file of schema.csv (columns that name a csvColumn take their values from it); default in a pod: "+podenv.CSVDir+"/KEY")
}

// LoadCSV reads the spec's CSV file: path, or where the writer Job mounts it. nil when the
// spec has none.
func LoadCSV(spec *cbv1.BenchmarkRunSpec, path string) (*workload.CSV, error) {
	if spec.Schema.CSV == nil && path == "" {
		return nil, nil
	}
	if path == "" {
		src := spec.Schema.CSV
		c, err := workload.ReadCSVFile(filepath.Join(podenv.CSVDir, src.Key))
		if err != nil {
			return nil, fmt.Errorf("schema.csv is key %s of ConfigMap %s, which writer pods find in %s: create the ConfigMap with that key in the run's namespace (kubectl create configmap %s --from-file=%s=FILE), or outside a pod pass the file with --csv-file: %w", src.Key, src.ConfigMapName, podenv.CSVDir, src.ConfigMapName, src.Key, err)
		}
		return c, nil
	}
	return workload.ReadCSVFile(path)
}

// CSVPath is the file a CSV was read from, for writer processes to read again.
func CSVPath(c *workload.CSV) string {
	if c == nil {
		return ""
	}
	if abs, err := filepath.Abs(c.Name); err == nil {
		return abs
	}
	return c.Name
}
