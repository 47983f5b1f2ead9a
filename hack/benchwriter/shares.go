package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// cumLine is a line of `go tool pprof -top -cum`: flat, flat%, sum%, cum, cum% and the
// function.
var cumLine = regexp.MustCompile(`^\s*\S+\s+\S+%\s+\S+%\s+\S+\s+([\d.]+)%\s+(\S+)$`)

// readCumulative reads each function's cumulative share of the profile, in percent.
func readCumulative(r io.Reader) map[string]float64 {
	cum := map[string]float64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if m := cumLine.FindStringSubmatch(sc.Text()); m != nil {
			cum[m[2]], _ = strconv.ParseFloat(m[1], 64)
		}
	}
	return cum
}

// shareRow is a part of the writer's CPU, from the cumulative shares of the functions that
// enter it, less those of the functions inside it that another row counts.
type shareRow struct {
	name        string
	plus, minus []string
}

// shareRows split the profile by the goroutines and runtime activities it is made of: load
// goroutines (inside the driver's request path, and the writer's own generating, timing and
// recording), the connection readers, the batched sends, the scheduler and the collector.
var shareRows = []shareRow{
	{"requests: encode, send, wait (load goroutines)", []string{"writer.(*cqlOp).exec"}, nil},
	{"cassbench per operation: generate, time, record", []string{"writer.(*engine).closed", "writer.(*engine).paced"}, []string{"writer.(*cqlOp).exec"}},
	{"connection readers (responses)", []string{"v2.(*Conn).serve", "cql.(*dconn).read"}, nil},
	{"batched sends (one write per batch)", []string{"cql.(*batchConn).flush"}, nil},
	{"Go scheduler (parking, waking, idle)", []string{"runtime.mcall"}, nil},
	{"garbage collector (background)", []string{"runtime.gcBgMarkWorker", "runtime.bgsweep"}, nil},
}

// share is the cumulative share of the functions whose names end in suffix.
func share(cum map[string]float64, suffix string) float64 {
	var v float64
	for k, c := range cum {
		if strings.HasSuffix(k, suffix) {
			v += c
		}
	}
	return v
}

func writeShares(w io.Writer, cum map[string]float64) error {
	var b strings.Builder
	var total float64
	for _, r := range shareRows {
		var v float64
		for _, s := range r.plus {
			v += share(cum, s)
		}
		for _, s := range r.minus {
			v -= share(cum, s)
		}
		total += v
		fmt.Fprintf(&b, "  %-50s %5.1f%%\n", r.name, v)
	}
	fmt.Fprintf(&b, "  %-50s %5.1f%%\n", "everything else", max(0, 100-total))
	_, err := io.WriteString(w, b.String())
	return err
}
