package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/compare"
	"github.com/cassbench/cassbench/internal/report"
)

const compareUsage = `Usage: cassbench compare BASELINE OTHER [OTHER...] [flags]

Tells whether each OTHER did better or worse than BASELINE, or whether the difference is
noise. Each argument is a BenchmarkRun, a BenchmarkSweep (the runs of its best point, or of
point N with NAME@N), or with -f a results file that -o json wrote; join repeats of one
configuration with commas (a1,a2,a3). Throughput is compared with Welch's t-test, over the
repeats when both sides have two or more, else over the intervals of the runs' timelines;
latency percentiles by bootstrap over the repeats' sketches, which needs two or more runs a
side. When there is too little data to tell, it says so. --writers also prints each side's
writers as their raw reports tell them (their spread of throughput and p99, timeouts, CPU):
whether a few writers carry a difference, or their own CPU held a side back. That spread is
no test of significance: the writers of one run share its cluster and its moment.

Flags:
`

func compareCommand(ctx context.Context, args []string) int {
	return compareMain(ctx, args, os.Stdout, os.Stderr)
}

func compareMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(prog+" compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var namespace, output string
	fs.StringVar(&namespace, "n", "", "namespace (default: the kubeconfig context's, else default)")
	fs.StringVar(&output, "o", "table", "output: table, json or csv")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)")
	files := fs.Bool("f", false, "the arguments are results files that -o json wrote, not names in the cluster")
	alpha := fs.Float64("alpha", 0.05, "significance level")
	plotFile := fs.String("plot", "", "also draw every run's throughput and p99 over time into FILE.png or FILE.svg")
	writers := fs.Bool("writers", false, "also print each side's writers from their raw reports (ConfigMaps the runs own, or the files'): their spread, timeouts and CPU")
	args0, fail, code, done := parseArgs(fs, args, stderr, compareUsage)
	if done {
		return code
	}
	if len(args0) < 2 {
		fs.Usage()
		return fail(2, "give a baseline and at least one experiment to compare with it")
	}
	format, err := report.ParseFormat(output)
	if err != nil {
		return fail(2, "%v", err)
	}
	if *writers && format != report.Table {
		return fail(2, "--writers prints text; for the raw reports as JSON use cassbench results NAME --reports")
	}
	if *alpha <= 0 || *alpha >= 0.5 {
		return fail(2, "--alpha must be between 0 and 0.5, not %g", *alpha)
	}
	var imageFormat report.ImageFormat
	if *plotFile != "" {
		if imageFormat, err = report.ImageFormatOf(*plotFile); err != nil {
			return fail(2, "%v", err)
		}
	}
	var load func(string) ([]*cbv1.BenchmarkRun, error)
	if *files {
		load = runsFromFile
	} else {
		c, ns, err := resultsClient(*kubeconfig, namespace)
		if err != nil {
			return fail(1, "%v", err)
		}
		load = func(name string) ([]*cbv1.BenchmarkRun, error) { return runsFromCluster(ctx, c, ns, name, *writers) }
	}
	sides, all, err := loadSides(args0, load)
	if err != nil {
		return fail(1, "%v", err)
	}
	if err := writeComparisons(stdout, format, sides, *alpha, *writers); err != nil {
		return fail(1, "%v", err)
	}
	if *plotFile != "" {
		f, err := os.Create(*plotFile)
		if err != nil {
			return fail(1, "creating plot file: %v", err)
		}
		err = report.PlotTimelines(f, all, imageFormat)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(*plotFile)
			return fail(1, "%v", err)
		}
		_, _ = fmt.Fprintf(stderr, "plot written to %s\n", *plotFile)
	}
	return 0
}

// writeComparisons compares every side with the first and, with writers, prints each side's
// writers as their raw reports tell them.
func writeComparisons(stdout io.Writer, format report.Format, sides []compare.Side, alpha float64, writers bool) error {
	var cs []compare.Comparison
	for _, s := range sides[1:] {
		cs = append(cs, compare.Compare(sides[0], s, alpha))
	}
	switch format {
	case report.JSON:
		return compare.JSON(stdout, cs)
	case report.CSV:
		return compare.CSV(stdout, cs)
	}
	if err := compare.Text(stdout, cs); err != nil || !writers {
		return err
	}
	var ws []compare.Writers
	for _, s := range sides {
		ws = append(ws, compare.WritersOf(s))
	}
	if _, err := fmt.Fprintln(stdout); err != nil {
		return err
	}
	return compare.WritersText(stdout, ws)
}

// loadSides loads each argument's runs (names joined by commas make one side) and returns
// every run loaded, in order, for the plot.
func loadSides(args []string, load func(string) ([]*cbv1.BenchmarkRun, error)) ([]compare.Side, []*cbv1.BenchmarkRun, error) {
	var sides []compare.Side
	var all []*cbv1.BenchmarkRun
	for _, arg := range args {
		side := compare.Side{Name: arg}
		for _, one := range strings.Split(arg, ",") {
			runs, err := load(one)
			if err != nil {
				return nil, nil, err
			}
			side.Runs = append(side.Runs, runs...)
		}
		sides = append(sides, side)
		all = append(all, side.Runs...)
	}
	return sides, all, nil
}

func runsFromFile(path string) ([]*cbv1.BenchmarkRun, error) {
	obj, err := readResultsFile(path)
	if err != nil {
		return nil, err
	}
	run, ok := obj.(*cbv1.BenchmarkRun)
	if !ok {
		return nil, fmt.Errorf("%s holds a BenchmarkSweep's table, which keeps no runs' results: compare the files of its runs", path)
	}
	if run.Status.Results == nil {
		return nil, fmt.Errorf("%s: BenchmarkRun %s has no results", path, run.Name)
	}
	return []*cbv1.BenchmarkRun{run}, nil
}

// runsFromCluster reads a run, or the runs of a sweep's point (its best, or NAME@N), with
// their writers' raw reports when reports is set.
func runsFromCluster(ctx context.Context, c client.Client, ns, arg string, reports bool) ([]*cbv1.BenchmarkRun, error) {
	runs, err := clusterRuns(ctx, c, ns, arg)
	if err != nil || !reports {
		return runs, err
	}
	for _, run := range runs {
		if err := withReports(ctx, c, run); err != nil {
			return nil, err
		}
	}
	return runs, nil
}

// clusterRuns reads a run, or the runs of a sweep's point (its best, or NAME@N).
func clusterRuns(ctx context.Context, c client.Client, ns, arg string) ([]*cbv1.BenchmarkRun, error) {
	name, point, hasPoint := strings.Cut(arg, "@")
	obj, err := findExperiment(ctx, c, client.ObjectKey{Namespace: ns, Name: name}, "")
	if err != nil {
		return nil, err
	}
	switch o := obj.(type) {
	case *cbv1.BenchmarkRun:
		if o.Status.Results == nil {
			return nil, fmt.Errorf("BenchmarkRun %s has no results yet (%s)", o.Name, o.Status.Phase)
		}
		return []*cbv1.BenchmarkRun{o}, nil
	case *cbv1.BenchmarkSweep:
		want := int32(-1)
		if hasPoint {
			n, err := strconv.Atoi(point)
			if err != nil {
				return nil, fmt.Errorf("%s: the point after @ must be a number", arg)
			}
			want = int32(n)
		} else if o.Status.Best != nil {
			want = o.Status.Best.Point
		}
		for _, row := range o.Status.Table {
			if row.Point != want {
				continue
			}
			var runs []*cbv1.BenchmarkRun
			for _, rn := range row.Runs {
				var run cbv1.BenchmarkRun
				if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: rn}, &run); err != nil {
					return nil, fmt.Errorf("getting run %s of sweep %s: %w", rn, name, err)
				}
				if run.Status.Phase == cbv1.PhaseSucceeded && run.Status.Results != nil {
					runs = append(runs, &run)
				}
			}
			if len(runs) == 0 {
				return nil, fmt.Errorf("point %d of sweep %s has no succeeded run", want, name)
			}
			return runs, nil
		}
		return nil, fmt.Errorf("sweep %s has no point %d (and no best point to default to): name one with %s@N", name, want, name)
	}
	return nil, fmt.Errorf("%s is neither a run nor a sweep", arg)
}
