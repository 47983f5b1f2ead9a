// Package hdrlog writes a run's latency as an HdrHistogram interval log (format 1.3), which
// HdrHistogram's tools in every language read, merge and plot (HistogramLogProcessor,
// hdr-plot, HdrHistogram.js): the merged latency of the run, and each writer's when its raw
// report is at hand, one tagged interval each over the run's measured window.
//
// The runs keep their latency as DDSketch-style sketches (internal/sketch) at 1% relative
// accuracy, not as HDR histograms: each sketch bucket is recorded at the value the sketch
// reports for ranks in it, so the log's percentiles are the sketch's, within the sketch's 1%
// of the measured values, plus the HDR histogram's own 0.1% (3 significant digits) and the
// rounding of values to whole microseconds.
package hdrlog

import (
	"fmt"
	"io"
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// SignificantDigits is the HDR histograms' precision: values within 0.1%.
const SignificantDigits = 3

// Histogram records a sketch's distribution, in whole microseconds.
func Histogram(s *sketch.Sketch) (*hdrhistogram.Histogram, error) {
	highest := int64(math.Ceil(s.Max())) + 1
	h := hdrhistogram.New(1, max(highest, 2), SignificantDigits)
	var err error
	s.Buckets(func(v float64, n uint64) {
		if err == nil && n > 0 {
			err = h.RecordValues(int64(math.Round(v)), int64(n))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("recording a sketch into an HDR histogram: %w", err)
	}
	return h, nil
}

// tagged is one histogram of the log.
type tagged struct {
	tag string
	s   *sketch.Sketch
}

// Write writes the run's log: the merged sketches its results keep (writes, reads, each kind
// of workload.operations; response and service time), then each writer's from its raw report
// when the run carries them (cassbench results NAME --reports or a results file written with
// them), all over the run's measured window.
func Write(w io.Writer, run *cbv1.BenchmarkRun) error {
	r := run.Status.Results
	if r == nil || r.Sketches == nil {
		return fmt.Errorf("BenchmarkRun %s kept no latency sketches in its results", run.Name)
	}
	hists, err := merged(r.Sketches)
	if err != nil {
		return err
	}
	for _, rep := range run.Status.WriterReports {
		if rep.Summary == "" {
			continue
		}
		sum, err := summary.Decode([]byte(rep.Summary))
		if err != nil {
			return fmt.Errorf("reading the report of writer %d: %w", rep.Index, err)
		}
		hists = append(hists, ofSummary(fmt.Sprintf("writer-%d-", rep.Index), sum)...)
	}
	if len(hists) == 0 {
		return fmt.Errorf("BenchmarkRun %s kept no latency sketches in its results", run.Name)
	}
	start := r.WindowStart.Time
	length := time.Duration(r.WindowMillis) * time.Millisecond
	header := fmt.Sprintf("#[Histogram log format version 1.3]\n"+
		"#[StartTime: %.3f (seconds since epoch), %s]\n"+
		"#[BaseTime: %.3f (seconds since epoch)]\n"+
		"#[cassbench BenchmarkRun %s: values in microseconds, Interval_Max in milliseconds]\n"+
		"\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n",
		seconds(start), start.UTC().Format(time.RFC3339Nano), seconds(start), run.Name)
	if _, err := io.WriteString(w, header); err != nil {
		return err
	}
	for _, t := range hists {
		h, err := Histogram(t.s)
		if err != nil {
			return fmt.Errorf("%s: %w", t.tag, err)
		}
		payload, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return fmt.Errorf("encoding %s: %w", t.tag, err)
		}
		if _, err := fmt.Fprintf(w, "Tag=%s,0.000,%.3f,%.3f,%s\n", t.tag, length.Seconds(), float64(h.Max())/1000, payload); err != nil {
			return err
		}
	}
	return nil
}

func seconds(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

// merged decodes the run's merged sketches.
func merged(rs *cbv1.ResultSketches) ([]tagged, error) {
	var out []tagged
	add := func(tag, enc string) error {
		if enc == "" {
			return nil
		}
		s, err := results.Decode(enc)
		if err != nil {
			return fmt.Errorf("reading the %s sketch: %w", tag, err)
		}
		if s != nil && s.Count() > 0 {
			out = append(out, tagged{tag, s})
		}
		return nil
	}
	for _, e := range []struct{ tag, enc string }{
		{"writes-response", rs.WritesResponse}, {"writes-service", rs.WritesService},
		{"reads-response", rs.ReadsResponse}, {"reads-service", rs.ReadsService},
	} {
		if err := add(e.tag, e.enc); err != nil {
			return nil, err
		}
	}
	for _, k := range rs.Kinds {
		if err := add(string(k.Kind)+"-response", k.Response); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func ofSummary(prefix string, s *summary.Summary) []tagged {
	var out []tagged
	add := func(tag string, sk *sketch.Sketch) {
		if sk != nil && sk.Count() > 0 {
			out = append(out, tagged{prefix + tag, sk})
		}
	}
	if s.Writes != nil {
		add("writes-response", s.Writes.Response)
		add("writes-service", s.Writes.Service)
	}
	if s.Reads != nil {
		add("reads-response", s.Reads.Response)
		add("reads-service", s.Reads.Service)
	}
	for _, k := range s.Kinds {
		add(k.Kind+"-response", k.Response)
	}
	return out
}
