package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report"
)

const reportUsage = `Usage: cassbench report RUN|SWEEP... [-f] -o report.html

Writes one self-contained HTML page for a review (no script, no network needed to view or
print it): with two runs or more, every run's verdict per figure against the first (better,
worse, noise, too little data); each run's figures at a glance; the runs' throughput and p99
over the window and their latency distributions on shared axes; each sweep's curve with its
best point; then the tables and specs, with every writer's own latency tail, timeouts and CPU
from its raw report (the ConfigMaps the run owns, or a file that -o json wrote). With -f the
arguments are results files that -o json wrote.

Flags:
`

func reportCommand(ctx context.Context, args []string) int {
	return reportMain(ctx, args, os.Stderr)
}

func reportMain(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet(prog+" report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var namespace string
	fs.StringVar(&namespace, "n", "", "namespace (default: the kubeconfig context's, else default)")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)")
	files := fs.Bool("f", false, "the arguments are results files that -o json wrote, not names in the cluster")
	output := fs.String("o", "", "the HTML file to write (required)")
	title := fs.String("title", "", "the page's title (default: the experiments' names)")
	names, fail, code, done := parseArgs(fs, args, stderr, reportUsage)
	if done {
		return code
	}
	if len(names) == 0 || *output == "" {
		fs.Usage()
		return fail(2, "give at least one experiment and -o FILE.html")
	}
	var load func(string) (client.Object, error)
	if *files {
		load = readResultsFile
	} else {
		c, ns, err := resultsClient(*kubeconfig, namespace)
		if err != nil {
			return fail(1, "%v", err)
		}
		load = func(name string) (client.Object, error) {
			obj, err := findExperiment(ctx, c, client.ObjectKey{Namespace: ns, Name: name}, "")
			if run, ok := obj.(*cbv1.BenchmarkRun); ok && err == nil {
				// The page is worth having without them: a reader who may not list
				// ConfigMaps still gets every figure status holds.
				if err := withReports(ctx, c, run); err != nil {
					_, _ = fmt.Fprintf(stderr, "%s: the writers' own reports are left out: %v\n", fs.Name(), err)
				}
			}
			return obj, err
		}
	}
	var runs []*cbv1.BenchmarkRun
	var sweeps []*cbv1.BenchmarkSweep
	var titled []string // the experiments' own names, also when read from files
	for _, name := range names {
		obj, err := load(name)
		if err != nil {
			return fail(1, "%v", err)
		}
		titled = append(titled, obj.GetName())
		switch o := obj.(type) {
		case *cbv1.BenchmarkRun:
			runs = append(runs, o)
		case *cbv1.BenchmarkSweep:
			sweeps = append(sweeps, o)
		}
	}
	if *title == "" {
		*title = "cassbench: " + strings.Join(titled, ", ")
	}
	f, err := os.Create(*output)
	if err != nil {
		return fail(1, "creating %s: %v", *output, err)
	}
	err = report.HTML(f, *title, runs, sweeps, time.Now())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(*output)
		return fail(1, "writing %s: %v", *output, err)
	}
	_, _ = fmt.Fprintf(stderr, "report written to %s\n", *output)
	return 0
}
