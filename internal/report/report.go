// Package report renders what a BenchmarkRun measured and a BenchmarkSweep's table: as text
// for a terminal, as JSON and CSV to keep next to the experiment (stable: sorted keys and a
// fixed column order, so a file changes only when the results do), and as plots.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Format is an output format.
type Format string

const (
	Table Format = "table"
	JSON  Format = "json"
	CSV   Format = "csv"
)

// ParseFormat reads -o.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Table, JSON, CSV:
		return f, nil
	}
	return "", fmt.Errorf("unknown output format %q: use table, json or csv", s)
}

// Run writes a run's results in the given format.
func Run(w io.Writer, run *cbv1.BenchmarkRun, f Format) error {
	switch f {
	case JSON:
		return writeJSON(w, runDocument(run))
	case CSV:
		return runCSV(w, run)
	default:
		return runTable(w, run)
	}
}

// Sweep writes a sweep's table in the given format.
func Sweep(w io.Writer, sw *cbv1.BenchmarkSweep, f Format) error {
	switch f {
	case JSON:
		return writeJSON(w, sweepDocument(sw))
	case CSV:
		return sweepCSV(w, sw)
	default:
		return sweepTable(w, sw)
	}
}

// SchemaVersion is the version of the JSON documents this package writes and reads back:
// a results file says what it is, so an experiment repository stays readable without the
// cluster that ran it.
const SchemaVersion = 1

// runDoc is a run's JSON document: what identifies the experiment, the spec that produced
// it, then what it measured. Namespaces and timestamps of the object are left out, so the
// same results render the same wherever the run was applied.
type runDoc struct {
	SchemaVersion int    `json:"schemaVersion"`
	Kind          string `json:"kind"`
	Name          string `json:"name"`
	// Labels are the run's cassbench.io/ labels (others belong to whoever applied the run):
	// cassbench history groups runs by cassbench.io/experiment. Added with schema version 1,
	// absent from older files.
	Labels     map[string]string      `json:"labels,omitempty"`
	Phase      cbv1.Phase             `json:"phase"`
	Message    string                 `json:"message,omitempty"`
	Datacenter *datacenterDoc         `json:"datacenter,omitempty"`
	Writers    int32                  `json:"writers"`
	Spec       *cbv1.BenchmarkRunSpec `json:"spec,omitempty"`
	Results    *cbv1.Results          `json:"results"`
	// WriterReports are the writers' raw reports, when they were read (from the ConfigMaps
	// the run owns); added with schema version 1, absent from older files.
	WriterReports []cbv1.WriterReport `json:"writerReports,omitempty"`
}

type datacenterDoc struct {
	Name             string `json:"name"`
	Nodes            int32  `json:"nodes"`
	CassandraVersion string `json:"cassandraVersion,omitempty"`
}

func runDocument(run *cbv1.BenchmarkRun) runDoc {
	spec := run.Spec
	d := runDoc{
		SchemaVersion: SchemaVersion,
		Spec:          &spec,
		Kind:          "BenchmarkRun",
		Name:          run.Name,
		Labels:        cassbenchLabels(run.Labels),
		Phase:         run.Status.Phase,
		Message:       outcomeMessage(run.Status.Conditions),
		Writers:       run.Spec.Writers.Replicas,
		Results:       run.Status.Results,
	}
	for _, r := range run.Status.WriterReports {
		if r.Summary != "" {
			d.WriterReports = append(d.WriterReports, r)
		}
	}
	if st := run.Status.Datacenter; st != nil {
		d.Datacenter = &datacenterDoc{Name: st.Name, Nodes: st.Size, CassandraVersion: st.CassandraVersion}
		if st.Nodes > 0 {
			d.Datacenter.Nodes = st.Nodes
		}
	}
	return d
}

func cassbenchLabels(labels map[string]string) map[string]string {
	var out map[string]string
	for k, v := range labels {
		if strings.HasPrefix(k, "cassbench.io/") {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// sweepDoc is a sweep's JSON document.
type sweepDoc struct {
	SchemaVersion int                      `json:"schemaVersion"`
	Spec          *cbv1.BenchmarkSweepSpec `json:"spec,omitempty"`
	Kind          string                   `json:"kind"`
	Name          string                   `json:"name"`
	Phase         cbv1.Phase               `json:"phase"`
	Message       string                   `json:"message,omitempty"`
	Progress      string                   `json:"progress"`
	Mode          cbv1.SweepMode           `json:"mode"`
	Repeats       int32                    `json:"repeats"`
	BestBy        cbv1.SweepMetric         `json:"bestBy"`
	Axes          []string                 `json:"axes"`
	Points        int32                    `json:"points"`
	Completed     int32                    `json:"completed"`
	Failed        int32                    `json:"failed"`
	Best          *cbv1.SweepBest          `json:"best"`
	Table         []pointDoc               `json:"table"`
}

// pointDoc is a row of the sweep's table with every key present: a figure is null when no
// run of the point succeeded, and zero when it measured zero.
type pointDoc struct {
	Point           int32             `json:"point"`
	Values          []string          `json:"values"`
	Runs            []string          `json:"runs"`
	Outcome         cbv1.PointOutcome `json:"outcome"`
	Message         string            `json:"message"`
	Succeeded       int32             `json:"succeeded"`
	Failed          int32             `json:"failed"`
	OpsPerSecond    *int64            `json:"opsPerSecond"`
	OpsPerSecondMin *int64            `json:"opsPerSecondMin"`
	OpsPerSecondMax *int64            `json:"opsPerSecondMax"`
	P50             *int64            `json:"p50"`
	P99             *int64            `json:"p99"`
	P999            *int64            `json:"p999"`
	P99Min          *int64            `json:"p99Min"`
	P99Max          *int64            `json:"p99Max"`
	TimeoutRatio    *string           `json:"timeoutRatio"`
	Errors          *int64            `json:"errors"`
	// Added with schema version 1; absent from older files.
	OpsPerSecondSpread *string `json:"opsPerSecondSpread,omitempty"`
	RelativeAccuracy   *string `json:"relativeAccuracy,omitempty"`
	TimeoutsPerAttempt *string `json:"timeoutsPerAttempt,omitempty"`
}

func pointDocument(p cbv1.SweepPoint) pointDoc {
	d := pointDoc{Point: p.Point, Values: p.Values, Runs: p.Runs, Outcome: p.Outcome, Message: p.Message,
		Succeeded: p.Succeeded, Failed: p.Failed}
	if d.Values == nil {
		d.Values = []string{}
	}
	if d.Runs == nil {
		d.Runs = []string{}
	}
	if p.Succeeded > 0 {
		d.OpsPerSecond, d.OpsPerSecondMin, d.OpsPerSecondMax = &p.OpsPerSecond, &p.OpsPerSecondMin, &p.OpsPerSecondMax
		d.P50, d.P99, d.P999, d.P99Min, d.P99Max = &p.P50, &p.P99, &p.P999, &p.P99Min, &p.P99Max
		d.TimeoutRatio, d.Errors = &p.TimeoutRatio, &p.Errors
		d.OpsPerSecondSpread, d.RelativeAccuracy, d.TimeoutsPerAttempt = &p.OpsPerSecondSpread, &p.RelativeAccuracy, &p.TimeoutsPerAttempt
	}
	return d
}

func sweepDocument(sw *cbv1.BenchmarkSweep) sweepDoc {
	table := make([]pointDoc, 0, len(sw.Status.Table))
	for _, p := range sw.Status.Table {
		table = append(table, pointDocument(p))
	}
	spec := sw.Spec
	return sweepDoc{
		SchemaVersion: SchemaVersion,
		Spec:          &spec,
		Kind:          "BenchmarkSweep",
		Name:          sw.Name,
		Phase:         sw.Status.Phase,
		Message:       outcomeMessage(sw.Status.Conditions),
		Progress:      sw.Status.Progress,
		Mode:          sw.Spec.Mode,
		Repeats:       max(sw.Spec.Repeats, 1),
		BestBy:        sw.Spec.BestBy,
		Axes:          axisPaths(sw),
		Points:        sw.Status.Points,
		Completed:     sw.Status.Completed,
		Failed:        sw.Status.Failed,
		Best:          sw.Status.Best,
		Table:         table,
	}
}

func axisPaths(sw *cbv1.BenchmarkSweep) []string {
	paths := make([]string, len(sw.Spec.Axes))
	for i, a := range sw.Spec.Axes {
		paths[i] = a.Path
	}
	return paths
}

// outcomeMessage is the Succeeded condition's message, once there is one.
func outcomeMessage(conds []metav1.Condition) string {
	if c := meta.FindStatusCondition(conds, cbv1.ConditionSucceeded); c != nil {
		return c.Message
	}
	return ""
}

// writeJSON writes v with sorted keys and two-space indentation: v goes through a generic
// map, whose keys encoding/json sorts, and numbers stay exact.
func writeJSON(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return fmt.Errorf("re-reading JSON: %w", err)
	}
	out, err := json.MarshalIndent(generic, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	out = append(out, '\n')
	_, err = w.Write(out)
	return err
}
