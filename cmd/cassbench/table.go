package main

import (
	"fmt"
	"github.com/cassbench/cassbench/internal/report"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// printTable renders merged results for a person at a terminal.
func printTable(out io.Writer, runID string, setup *summary.SetupReport, r *cbv1.Results) {
	if r == nil {
		fmt.Fprintf(out, "run %s: no writer reported\n", runID)
		return
	}
	window := time.Duration(r.WindowMillis) * time.Millisecond
	fmt.Fprintf(out, "run %s: Cassandra %s, %s, %s reported, window %s\n",
		runID, setup.CassandraVersion, plural(int64(setup.Nodes), "node"), plural(int64(r.WritersReported), "writer"), window)
	fmt.Fprintf(out, "%d operations, %d ops/s\n\n", r.Operations, r.OpsPerSecond)

	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-16s\tops\tops/s\tp50\tp90\tp99\tp99.9\tmax\tmean\t\n", "")
	row := func(name string, o *cbv1.OperationResults) {
		if o == nil {
			return
		}
		for _, l := range []struct {
			what string
			lat  cbv1.Latency
		}{{name + " response", o.Response}, {name + " service", o.Service}} {
			fmt.Fprintf(tw, "%-16s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.what, o.Operations, o.OpsPerSecond,
				report.Micros(l.lat.P50), report.Micros(l.lat.P90), report.Micros(l.lat.P99), report.Micros(l.lat.P999), report.Micros(l.lat.Max), report.Micros(l.lat.Mean))
		}
	}
	row("writes", r.Writes)
	row("reads", r.Reads)
	tw.Flush()

	e := r.Errors
	fmt.Fprintf(out, "\nerrors: write timeout %d, read timeout %d, unavailable %d, overloaded %d, client timeout %d, other %d\n",
		e.WriteTimeout, e.ReadTimeout, e.Unavailable, e.Overloaded, e.ClientTimeout, e.Other)
	fmt.Fprintf(out, "timeout ratio %s, retries %d, value bytes %s\n", r.TimeoutRatio, r.Retries, bytesText(r.Bytes))

	if len(r.PerWriter) > 1 || (len(r.PerWriter) == 1 && r.PerWriter[0].Outcome != "Succeeded") {
		fmt.Fprintln(out)
		tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "writer\tops\tops/s\terrors\tp99\toutcome")
		for _, w := range r.PerWriter {
			fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%s\t%s\n", w.Index, w.Operations, w.OpsPerSecond, w.Errors, report.Micros(w.P99Micros), w.Outcome)
		}
		tw.Flush()
	}
	_ = report.Server(out, r)
}

func bytesText(b int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v := float64(b)
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", b)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") + " " + units[i]
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
