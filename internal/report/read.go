package report

import (
	"encoding/json"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Read parses a document that Run or Sweep wrote as JSON (`-o json`) back into the run or
// sweep it describes, as far as rendering goes: every format renders it as it rendered the
// object the file was written from. It returns a *cbv1.BenchmarkRun or *cbv1.BenchmarkSweep.
func Read(r io.Reader) (any, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading results file: %w", err)
	}
	var head struct {
		SchemaVersion int    `json:"schemaVersion"`
		Kind          string `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("results file is not JSON written by -o json: %w", err)
	}
	if head.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("results file has schema version %d; this cassbench reads up to %d: upgrade cassbench", head.SchemaVersion, SchemaVersion)
	}
	switch head.Kind {
	case "BenchmarkRun":
		var d runDoc
		if err := json.Unmarshal(data, &d); err != nil {
			return nil, fmt.Errorf("parsing BenchmarkRun results: %w", err)
		}
		return d.run(), nil
	case "BenchmarkSweep":
		var d sweepDoc
		if err := json.Unmarshal(data, &d); err != nil {
			return nil, fmt.Errorf("parsing BenchmarkSweep results: %w", err)
		}
		return d.sweep(), nil
	}
	return nil, fmt.Errorf("results file has kind %q: want BenchmarkRun or BenchmarkSweep, as `cassbench results -o json` writes", head.Kind)
}

func outcomeCondition(phase cbv1.Phase, message string) []metav1.Condition {
	if message == "" {
		return nil
	}
	status := metav1.ConditionFalse
	if phase == cbv1.PhaseSucceeded {
		status = metav1.ConditionTrue
	}
	return []metav1.Condition{{Type: cbv1.ConditionSucceeded, Status: status, Reason: string(phase), Message: message}}
}

func (d *runDoc) run() *cbv1.BenchmarkRun {
	run := &cbv1.BenchmarkRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: cbv1.GroupVersion.String(), Kind: "BenchmarkRun"},
		ObjectMeta: metav1.ObjectMeta{Name: d.Name, Labels: d.Labels},
	}
	if d.Spec != nil {
		run.Spec = *d.Spec
	}
	run.Spec.Writers.Replicas = d.Writers
	run.Status = cbv1.BenchmarkRunStatus{Phase: d.Phase, Conditions: outcomeCondition(d.Phase, d.Message), Results: d.Results,
		WriterReports: d.WriterReports}
	if dc := d.Datacenter; dc != nil {
		run.Status.Datacenter = &cbv1.DatacenterStatus{HeldDatacenter: cbv1.HeldDatacenter{Name: dc.Name}, Nodes: dc.Nodes, Size: dc.Nodes, CassandraVersion: dc.CassandraVersion}
	}
	return run
}

func (d *sweepDoc) sweep() *cbv1.BenchmarkSweep {
	sw := &cbv1.BenchmarkSweep{
		TypeMeta:   metav1.TypeMeta{APIVersion: cbv1.GroupVersion.String(), Kind: "BenchmarkSweep"},
		ObjectMeta: metav1.ObjectMeta{Name: d.Name},
	}
	if d.Spec != nil {
		sw.Spec = *d.Spec
	} else {
		for _, path := range d.Axes {
			sw.Spec.Axes = append(sw.Spec.Axes, cbv1.SweepAxis{Path: path})
		}
	}
	sw.Spec.Mode, sw.Spec.BestBy = d.Mode, d.BestBy
	// The document writes max(spec.repeats, 1); a document without repeats (0) must read as
	// that 1, not set the spec to 0 and come back with "repeats": 1 in its spec (found by
	// FuzzRead).
	if r := max(d.Repeats, 1); max(sw.Spec.Repeats, 1) != r {
		sw.Spec.Repeats = r
	}
	sw.Status = cbv1.BenchmarkSweepStatus{
		Phase: d.Phase, Conditions: outcomeCondition(d.Phase, d.Message), Progress: d.Progress,
		Points: d.Points, Completed: d.Completed, Failed: d.Failed, Best: d.Best,
	}
	for _, p := range d.Table {
		sw.Status.Table = append(sw.Status.Table, p.point())
	}
	return sw
}

func (d *pointDoc) point() cbv1.SweepPoint {
	p := cbv1.SweepPoint{Point: d.Point, Values: d.Values, Runs: d.Runs, Outcome: d.Outcome, Message: d.Message,
		Succeeded: d.Succeeded, Failed: d.Failed}
	if len(p.Values) == 0 {
		p.Values = nil
	}
	if len(p.Runs) == 0 {
		p.Runs = nil
	}
	set := func(dst *int64, src *int64) {
		if src != nil {
			*dst = *src
		}
	}
	setString := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	set(&p.OpsPerSecond, d.OpsPerSecond)
	set(&p.OpsPerSecondMin, d.OpsPerSecondMin)
	set(&p.OpsPerSecondMax, d.OpsPerSecondMax)
	set(&p.P50, d.P50)
	set(&p.P99, d.P99)
	set(&p.P999, d.P999)
	set(&p.P99Min, d.P99Min)
	set(&p.P99Max, d.P99Max)
	set(&p.Errors, d.Errors)
	setString(&p.TimeoutRatio, d.TimeoutRatio)
	setString(&p.OpsPerSecondSpread, d.OpsPerSecondSpread)
	setString(&p.RelativeAccuracy, d.RelativeAccuracy)
	setString(&p.TimeoutsPerAttempt, d.TimeoutsPerAttempt)
	return p
}
