package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// runRow is one client's run: a line of the runs file.
type runRow struct {
	client                      string
	threads, concurrency, round int
	ok, failed                  int64
	cpuSeconds                  float64
	rssKiB                      int64
	// rate is the open loop's rate in operations per second; 0 in a closed loop.
	rate int
	// load is the machine's one-minute load average as the run ended, and lagMicros the
	// median schedule lag of an open loop's run (send minus intended start); NaN when not
	// known (a closed loop, a client that does not report it, a row of an older runs file).
	load, lagMicros float64
}

// String is the row's line in the runs file: the eight fields of older files, then the rate,
// the load and the lag ("-" for what is not known).
func (r runRow) String() string {
	return fmt.Sprintf("%s %d %d %d %d %d %.3f %d %d %s %s", r.client, r.threads, r.concurrency, r.round, r.ok, r.failed, r.cpuSeconds, r.rssKiB,
		r.rate, orDash(r.load, "%.2f"), orDash(r.lagMicros, "%.0f"))
}

// orDash formats v, or "-" when it is NaN.
func orDash(v float64, format string) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

// parseOptional reads a field String wrote with orDash.
func parseOptional(f string) (float64, error) {
	if f == "-" {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(f, 64)
}

// efficiency is the run's successful writes per CPU-second the client used.
func (r runRow) efficiency() float64 { return float64(r.ok) / r.cpuSeconds }

func (r runRow) rssMiB() float64 { return float64(r.rssKiB) / 1024 }

// parseTime reads /usr/bin/time -f "%U %S %M": the CPU-seconds used (user and system) and
// the peak RSS in KiB.
func parseTime(s string) (cpuSeconds float64, rssKiB int64, err error) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return 0, 0, fmt.Errorf("want %q, got %q", "user sys maxrss", strings.TrimSpace(s))
	}
	user, err1 := strconv.ParseFloat(f[0], 64)
	sys, err2 := strconv.ParseFloat(f[1], 64)
	rss, err3 := strconv.ParseInt(f[2], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, 0, err
	}
	// Three decimals, as the runs file keeps them: /usr/bin/time gives hundredths.
	return math.Round((user+sys)*1000) / 1000, rss, nil
}

// writerCounts reads the writer's summary: its successful writes and the writes that failed
// after retries. Only the counts are read, so a baseline writer's summary of an older
// version reads as well.
func writerCounts(data []byte) (ok, failed int64, err error) {
	var s struct {
		W *struct {
			OK int64 `json:"ok"`
			summary.Failures
		} `json:"w"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return 0, 0, err
	}
	if s.W == nil {
		return 0, 0, errors.New("the summary has no writes")
	}
	return s.W.OK, s.W.Total(), nil
}

// writerLag reads the median schedule lag, in microseconds, from the writer's summary; NaN
// in a closed loop.
func writerLag(data []byte) (float64, error) {
	var s struct {
		Lag *sketch.Sketch `json:"lag"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return 0, err
	}
	if s.Lag == nil || s.Lag.Count() == 0 {
		return math.NaN(), nil
	}
	return s.Lag.Quantile(0.5), nil
}

// latteCounts reads latte's JSON report: its requests less their errors, and the errors.
func latteCounts(data []byte) (ok, failed int64, err error) {
	var l struct {
		Result *struct {
			Requests int64 `json:"request_count"`
			Errors   int64 `json:"error_count"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return 0, 0, err
	}
	if l.Result == nil {
		return 0, 0, errors.New("latte's report has no result")
	}
	return l.Result.Requests - l.Result.Errors, l.Result.Errors, nil
}

// readRuns reads the runs file.
func readRuns(r io.Reader) ([]runRow, error) {
	var out []runRow
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		row, err := parseRow(f)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, row)
	}
	return out, sc.Err()
}

func parseRow(f []string) (runRow, error) {
	if len(f) != 8 && len(f) != 11 {
		return runRow{}, fmt.Errorf("want 8 or 11 fields, got %d", len(f))
	}
	r := runRow{client: f[0], load: math.NaN(), lagMicros: math.NaN()}
	var errs [10]error
	if len(f) == 11 {
		r.rate, errs[7] = strconv.Atoi(f[8])
		r.load, errs[8] = parseOptional(f[9])
		r.lagMicros, errs[9] = parseOptional(f[10])
	}
	r.threads, errs[0] = strconv.Atoi(f[1])
	r.concurrency, errs[1] = strconv.Atoi(f[2])
	r.round, errs[2] = strconv.Atoi(f[3])
	r.ok, errs[3] = strconv.ParseInt(f[4], 10, 64)
	r.failed, errs[4] = strconv.ParseInt(f[5], 10, 64)
	r.cpuSeconds, errs[5] = strconv.ParseFloat(f[6], 64)
	r.rssKiB, errs[6] = strconv.ParseInt(f[7], 10, 64)
	if err := errors.Join(errs[:]...); err != nil {
		return runRow{}, err
	}
	if r.cpuSeconds <= 0 {
		return runRow{}, fmt.Errorf("the %s run used %v CPU-seconds: no efficiency to compute", r.client, r.cpuSeconds)
	}
	return r, nil
}

// median of vs: the middle value, or the mean of the two middle ones.
func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	n := len(s)
	switch {
	case n == 0:
		return math.NaN()
	case n%2 == 1:
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
