package hdrlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/oracle"
)

// readWithOracle runs the Python HdrHistogram implementation (pinned in hack/oracle-venv.sh, which
// installs it from PyPI into a cached virtual environment) on a log.
func readWithOracle(t *testing.T, log string, percentiles []float64) map[string]readBack {
	t.Helper()
	venv := oracle.Venv(t, "hdrhistogram")
	args := []string{"testdata/read_hdr_log.py", log}
	for _, p := range percentiles {
		args = append(args, fmt.Sprint(p))
	}
	cmd := exec.Command(filepath.Join(venv, "bin", "python"), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reading the log with Python's HdrHistogram: %v\n%s", err, stderr.String())
	}
	var got map[string]readBack
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return got
}

type readBack struct {
	Count       int64              `json:"count"`
	Max         int64              `json:"max"`
	Start       float64            `json:"start"`
	End         float64            `json:"end"`
	Percentiles map[string]float64 `json:"percentiles"`
}

// writer is one writer's measured latencies: lognormal around median µs, and its summary.
func writer(t *testing.T, index int32, median float64, n int) ([]float64, string) {
	rng := rand.New(rand.NewPCG(uint64(index), 77))
	sk := sketch.New()
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = median * math.Exp(0.6*rng.NormFloat64())
		sk.Add(vals[i])
	}
	start := int64(1_795_000_000_000)
	s := summary.Summary{Index: index, Writers: 2, Start: start, End: start + 60_000,
		Writes: &summary.Ops{OK: int64(n), Response: sk}}
	b, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return vals, string(b)
}

// exact is the value at percentile p of vals with HdrHistogram's rank: the round(p% of n)th.
func exact(vals []float64, p float64) float64 {
	s := slices.Clone(vals)
	slices.Sort(s)
	k := max(int(p/100*float64(len(s))+0.5), 1)
	return s[k-1]
}

// An independent HdrHistogram implementation reads the log back and finds every histogram's
// count and percentiles, merged and per writer, within the stated accuracy of the sketch the
// run kept (1%, or what a writer's report had to shrink to), the HDR histogram's 0.1% and a
// microsecond of rounding.
func TestAnIndependentReaderFindsThePercentiles(t *testing.T) {
	v0, s0 := writer(t, 0, 900, 30000)
	v1, s1 := writer(t, 1, 1400, 20000)
	var sums []*summary.Summary
	for _, s := range []string{s0, s1} {
		d, err := summary.Decode([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, d)
	}
	run := &cbv1.BenchmarkRun{Status: cbv1.BenchmarkRunStatus{Results: results.Merge(sums),
		WriterReports: []cbv1.WriterReport{{Index: 0, Summary: s0}, {Index: 1, Summary: s1}}}}
	run.Name = "hdr"
	var log bytes.Buffer
	if err := Write(&log, run); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hdr.hlog")
	if err := os.WriteFile(path, log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	percentiles := []float64{50, 90, 99, 99.9}
	got := readWithOracle(t, path, percentiles)

	mergedSketch, _ := results.Decode(run.Status.Results.Sketches.WritesResponse)
	want := map[string]struct {
		vals []float64
		acc  float64
	}{
		"writes-response":          {append(slices.Clone(v0), v1...), mergedSketch.RelativeAccuracy()},
		"writer-0-writes-response": {v0, sums[0].Writes.Response.RelativeAccuracy()},
		"writer-1-writes-response": {v1, sums[1].Writes.Response.RelativeAccuracy()},
	}
	if len(got) != len(want) {
		t.Errorf("the log holds %d histograms, want %d: %v", len(got), len(want), got)
	}
	for tag, w := range want {
		h, ok := got[tag]
		if !ok {
			t.Errorf("no histogram tagged %s", tag)
			continue
		}
		if h.Count != int64(len(w.vals)) {
			t.Errorf("%s: %d values, want %d", tag, h.Count, len(w.vals))
		}
		if h.End-h.Start != 60_000 {
			t.Errorf("%s: interval of %g ms, want the run's 60 s window", tag, h.End-h.Start)
		}
		for _, p := range percentiles {
			e := exact(w.vals, p)
			g := h.Percentiles[fmt.Sprint(p)]
			if tol := (w.acc+0.001)*e + 1; math.Abs(g-e) > tol {
				t.Errorf("%s p%g: %g µs, the measured values' is %g (allowed %g: the sketch's %g, HDR's 0.001, 1 µs)", tag, p, g, e, tol, w.acc)
			}
		}
	}
}

func TestWriteRefusesARunWithoutSketches(t *testing.T) {
	run := &cbv1.BenchmarkRun{Status: cbv1.BenchmarkRunStatus{Results: &cbv1.Results{}}}
	run.Name = "bare"
	if err := Write(&bytes.Buffer{}, run); err == nil || !strings.Contains(err.Error(), "BenchmarkRun bare kept no latency sketches") {
		t.Errorf("%v", err)
	}
}
