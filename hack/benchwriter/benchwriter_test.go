package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cassbench/cassbench/internal/sketch"
)

func TestParseTime(t *testing.T) {
	tests := map[string]struct {
		in      string
		cpu     float64
		rss     int64
		wantErr bool
	}{
		"user and system add up": {in: "12.34 0.56 45678\n", cpu: 12.9, rss: 45678},
		"an idle client":         {in: "0.00 0.01 9000", cpu: 0.01, rss: 9000},
		"a field missing":        {in: "12.34 45678", wantErr: true},
		"not a number":           {in: "12.34 x 45678", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cpu, rss, err := parseTime(tc.in)
			if (err != nil) != tc.wantErr || cpu != tc.cpu || rss != tc.rss {
				t.Errorf("parseTime(%q) = %v, %v, %v; want %v, %v, error %v", tc.in, cpu, rss, err, tc.cpu, tc.rss, tc.wantErr)
			}
		})
	}
}

func TestCounts(t *testing.T) {
	tests := map[string]struct {
		parse      func([]byte) (int64, int64, error)
		in         string
		ok, failed int64
		wantErr    bool
	}{
		// Failed writes are the final failures of every kind; failed attempts that a retry
		// made good, and retries, are not failed writes.
		"the writer's summary": {parse: writerCounts, in: `{"v":9,"w":{"ok":1000,"wto":3,"cto":2,"oth":1,"rty":5,"a":{"wto":9}}}`, ok: 1000, failed: 6},
		"no failure":           {parse: writerCounts, in: `{"w":{"ok":250,"a":{}}}`, ok: 250},
		"a summary of reads":   {parse: writerCounts, in: `{"r":{"ok":250,"a":{}}}`, wantErr: true},
		"latte's report":       {parse: latteCounts, in: `{"result":{"request_count":1200,"error_count":7}}`, ok: 1193, failed: 7},
		"latte without result": {parse: latteCounts, in: `{"error":"connection refused"}`, wantErr: true},
		"not JSON":             {parse: writerCounts, in: `writer: connection refused`, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ok, failed, err := tc.parse([]byte(tc.in))
			if (err != nil) != tc.wantErr || ok != tc.ok || failed != tc.failed {
				t.Errorf("got %d, %d, %v; want %d, %d, error %v", ok, failed, err, tc.ok, tc.failed, tc.wantErr)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	tests := map[string]struct {
		in   []float64
		want float64
	}{
		"one":               {in: []float64{3}, want: 3},
		"two: their mean":   {in: []float64{1, 4}, want: 2.5},
		"three, unsorted":   {in: []float64{5, 1, 3}, want: 3},
		"four: middle mean": {in: []float64{4, 1, 3, 2}, want: 2.5},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := median(tc.in); got != tc.want {
				t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
	if got := median(nil); !math.IsNaN(got) {
		t.Errorf("median of nothing = %v, want NaN", got)
	}
}

// Three rounds of the writer, latte and a baseline at 128 in flight on one thread, and the
// writer alone at 8 in flight: every run, then the medians and ratios, worked by hand. The
// writer's rounds did 10,000, 12,000 and 9,000 writes per CPU-second (median 10,000), latte's
// 5,000, 4,000 and 6,250 (median 5,000), the baseline's 10,000, 10,000 and 12,000.
func TestReport(t *testing.T) {
	runs := `cassbench 1 128 1 100000 0 10.000 40960
latte 1 128 1 100000 2 20.000 20480
baseline 1 128 1 100000 0 10.000 40960
cassbench 1 128 2 120000 0 10.000 51200
latte 1 128 2 100000 0 25.000 20480
baseline 1 128 2 100000 0 10.000 40960
cassbench 1 128 3 90000 1 10.000 40960
latte 1 128 3 100000 0 16.000 22528
baseline 1 128 3 120000 0 10.000 40960
cassbench 1 8 1 50000 0 4.000 30720
cassbench 1 128 1 50000 0 5.000 20480 5000 10.50 40
latte 1 128 1 50000 0 10.000 10240 5000 11.50 -
cassbench 1 128 2 50000 0 4.000 20480 5000 12.00 60
latte 1 128 2 50000 0 4.000 10240 5000 9.00 -
`
	want := `client           threads in flight    rate round     writes   failed    CPU-s  writes/CPU-s  peak RSS MiB   load  lag p50 µs
cassbench              1       128       -     1     100000        0    10.00         10000          40.0      -           -
latte 0.29.0           1       128       -     1     100000        2    20.00          5000          20.0      -           -
baseline               1       128       -     1     100000        0    10.00         10000          40.0      -           -
cassbench              1       128       -     2     120000        0    10.00         12000          50.0      -           -
latte 0.29.0           1       128       -     2     100000        0    25.00          4000          20.0      -           -
baseline               1       128       -     2     100000        0    10.00         10000          40.0      -           -
cassbench              1       128       -     3      90000        1    10.00          9000          40.0      -           -
latte 0.29.0           1       128       -     3     100000        0    16.00          6250          22.0      -           -
baseline               1       128       -     3     120000        0    10.00         12000          40.0      -           -
cassbench              1         8       -     1      50000        0     4.00         12500          30.0      -           -
cassbench              1       128    5000     1      50000        0     5.00         10000          20.0   10.5          40
latte 0.29.0           1       128    5000     1      50000        0    10.00          5000          10.0   11.5           -
cassbench              1       128    5000     2      50000        0     4.00         12500          20.0   12.0          60
latte 0.29.0           1       128    5000     2      50000        0     4.00         12500          10.0    9.0           -

medians per (requests in flight, threads, rate):
     8 in flight, 1 thread(s): cassbench 12500 writes/CPU-s, 30.0 MiB
   128 in flight, 1 thread(s): cassbench 10000 writes/CPU-s, 50.0 MiB; latte 5000 writes/CPU-s, 22.0 MiB; cassbench/latte 2.00 (per round: 2.00 3.00 1.44; median 2.00, range 1.44–3.00); baseline 10000 writes/CPU-s; cassbench/baseline 1.000 (per round: 1.000 1.200 0.750)
   128 in flight at 5000 ops/s, 1 thread(s): cassbench 11250 writes/CPU-s, 20.0 MiB, schedule lag p50 50 µs; latte 8750 writes/CPU-s, 10.0 MiB; cassbench/latte 1.29 (per round: 2.00 1.00; median 1.50, range 1.00–2.00); load average 9.0–12.0 (median 11.0)
`
	dir := t.TempDir()
	path := filepath.Join(dir, "runs.txt")
	if err := os.WriteFile(path, []byte(runs), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"report", "-runs", path, "-latte-version", "0.29.0"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

// A run that used no CPU has no efficiency: the report refuses it rather than divide by 0.
func TestReportRefusesARunWithoutCPU(t *testing.T) {
	if _, err := readRuns(strings.NewReader("cassbench 1 128 1 100000 0 0.000 40960\n")); err == nil {
		t.Error("a run of 0 CPU-seconds was read")
	}
}

func TestRecord(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"w.time": "9.50 0.50 40960\n", "w.json": `{"w":{"ok":100000,"una":4,"a":{}}}`,
		"l.time": "19.99 0.01 20480\n", "l.json": `{"result":{"request_count":100002,"error_count":2}}`}
	// An open loop's summary: schedule lags of 40 µs three times and 900 µs once.
	lag := sketch.New()
	for _, v := range []float64{40, 40, 40, 900} {
		lag.Add(v)
	}
	lagJSON, err := json.Marshal(lag)
	if err != nil {
		t.Fatal(err)
	}
	files["wr.json"] = `{"w":{"ok":100000,"a":{}},"lag":` + string(lagJSON) + `}`
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for args, want := range map[string]string{
		"-client cassbench -threads 2 -concurrency 128 -round 3 -time w.time -result w.json":                          "cassbench 2 128 3 100000 4 10.000 40960 0 - -\n",
		"-client latte -threads 2 -concurrency 128 -round 3 -time l.time -result l.json -latte":                       "latte 2 128 3 100000 2 20.000 20480 0 - -\n",
		"-client cassbench -threads 1 -concurrency 128 -rate 5000 -round 1 -load 7.25 -time w.time -result wr.json":   "cassbench 1 128 1 100000 0 10.000 40960 5000 7.25 40\n",
		"-client latte -threads 1 -concurrency 128 -rate 5000 -round 1 -load 7.25 -time l.time -result l.json -latte": "latte 1 128 1 100000 2 20.000 20480 5000 7.25 -\n",
	} {
		var out, errOut bytes.Buffer
		a := strings.Fields(strings.NewReplacer("w.", dir+"/w.", "wr.", dir+"/wr.", "l.", dir+"/l.").Replace(args))
		if code := run(append([]string{"record"}, a...), nil, &out, &errOut); code != 0 || out.String() != want {
			t.Errorf("record %s: exit %d, %q (%s); want %q", args, code, out.String(), errOut.String(), want)
		}
	}
}

func TestShares(t *testing.T) {
	profile := `Showing nodes accounting for 9.50s, 95.00% of 10s total
      flat  flat%   sum%        cum   cum%
     0.10s  1.00%  1.00%      6.00s 60.00%  github.com/cassbench/cassbench/internal/writer.(*engine).closed
     0.20s  2.00%  3.00%      4.50s 45.00%  github.com/cassbench/cassbench/internal/writer.(*cqlOp).exec
     0.30s  3.00%  6.00%      2.00s 20.00%  github.com/apache/cassandra-gocql-driver/v2.(*Conn).serve
     0.10s  1.00%  7.00%      0.50s  5.00%  runtime.mcall
     0.10s  1.00%  8.00%      0.80s  8.00%  runtime.gcBgMarkWorker
     0.05s  0.50%  8.50%      0.20s  2.00%  runtime.bgsweep
`
	want := `  requests: encode, send, wait (load goroutines)      45.0%
  cassbench per operation: generate, time, record     15.0%
  connection readers (responses)                      20.0%
  batched sends (one write per batch)                  0.0%
  Go scheduler (parking, waking, idle)                 5.0%
  garbage collector (background)                      10.0%
  everything else                                      5.0%
`
	var out bytes.Buffer
	if code := run([]string{"shares"}, strings.NewReader(profile), &out, &out); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("shares (-want +got):\n%s", diff)
	}
}
