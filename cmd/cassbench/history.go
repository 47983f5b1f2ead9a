package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/changepoint"
	"github.com/cassbench/cassbench/internal/history"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/resultstree"
)

const historyUsage = `Usage: cassbench history DIR [flags]
       cassbench history -l SELECTOR [flags]

Shows each experiment's runs over time and where their figures changed: ops/s, the p50, p99
and p99.9 response of writes and reads, and timeouts per operation. The runs are the results
files (cassbench results -o json) anywhere under DIR, with the git commit that added each
when DIR is in a git repository, or with -l the BenchmarkRuns in the cluster that the label
selector selects. A run belongs to the experiment its cassbench.io/experiment label names,
else to its name without a suffix that numbers runs (-20261127, -r3, a generateName's
-x7k2q). Failed runs are left out. Changes are found by E-divisive means with a permutation
test, as Apache Otava finds them; each names the figure, the first run after it, its size
and its p-value. --otava DIR writes each experiment as a CSV file and an otava.yaml that
Apache Otava analyzes as they are.

Flags:
`

// detectFlags are the change-point detection's flags, shared by history and gate.
func detectFlags(fs *flag.FlagSet) *changepoint.Options {
	opt := changepoint.Defaults
	fs.Float64Var(&opt.Alpha, "alpha", opt.Alpha, "largest p-value of a change that is reported")
	fs.IntVar(&opt.Permutations, "permutations", opt.Permutations, "shuffles the test of each change compares it with")
	return &opt
}

// sourceFlags are where the runs come from, shared by history and gate.
type sourceFlags struct {
	selector, namespace, kubeconfig, experiment string
}

func (s *sourceFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&s.selector, "l", "", "read the BenchmarkRuns this label selector selects in the cluster instead of files")
	fs.StringVar(&s.namespace, "n", "", "namespace, with -l (default: the kubeconfig context's, else default)")
	fs.StringVar(&s.kubeconfig, "kubeconfig", "", "kubeconfig file, with -l (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)")
	fs.StringVar(&s.experiment, "experiment", "", "only this experiment")
}

// load reads the runs from the directory or the cluster, groups them, and warns on stderr of
// every file it left out.
func (s *sourceFlags) load(ctx context.Context, args []string, stderr io.Writer) ([]history.Series, error) {
	var runs []history.Run
	switch {
	case s.selector != "" && len(args) > 0:
		return nil, errUsage("give a DIR or -l SELECTOR, not both")
	case s.selector != "":
		var err error
		if runs, err = clusterHistory(ctx, s.kubeconfig, s.namespace, s.selector); err != nil {
			return nil, err
		}
	case len(args) == 1:
		loaded, err := resultstree.Load(args[0])
		if err != nil {
			return nil, err
		}
		for _, why := range loaded.Skipped {
			_, _ = fmt.Fprintf(stderr, "left out %s\n", filepath.Join(args[0], why))
		}
		runs = loaded.Runs
	default:
		return nil, errUsage(fmt.Sprintf("give one DIR or -l SELECTOR, got %d arguments", len(args)))
	}
	series := history.Group(runs)
	if s.experiment != "" {
		for _, one := range series {
			if one.Experiment == s.experiment {
				return []history.Series{one}, nil
			}
		}
		return nil, fmt.Errorf("no succeeded run of experiment %s", s.experiment)
	}
	if len(series) == 0 {
		return nil, fmt.Errorf("no succeeded run found")
	}
	return series, nil
}

type errUsage string

func (e errUsage) Error() string { return string(e) }

func isUsage(err error) bool {
	var u errUsage
	return errors.As(err, &u)
}

// clusterHistory reads the succeeded runs the selector selects.
func clusterHistory(ctx context.Context, kubeconfig, namespace, selector string) ([]history.Run, error) {
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, errUsage(fmt.Sprintf("label selector %q: %v", selector, err))
	}
	c, ns, err := resultsClient(kubeconfig, namespace)
	if err != nil {
		return nil, err
	}
	var list cbv1.BenchmarkRunList
	if err := c.List(ctx, &list, client.InNamespace(ns), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return nil, fmt.Errorf("listing BenchmarkRuns in %s: %w", ns, err)
	}
	var runs []history.Run
	for i := range list.Items {
		run := &list.Items[i]
		if r, ok := history.FromRun(run, ns+"/"+run.Name, ""); ok {
			runs = append(runs, r)
		}
	}
	return runs, nil
}

func historyCommand(ctx context.Context, args []string) int {
	return historyMain(ctx, args, os.Stdout, os.Stderr)
}

func historyMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(prog+" history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var src sourceFlags
	src.add(fs)
	output := fs.String("o", "table", "output: table, json or csv (one row per run, every experiment)")
	otavaDir := fs.String("otava", "", "also write each experiment as EXPERIMENT.csv and an otava.yaml into this directory")
	plotFile := fs.String("plot", "", "also draw the experiment's figures over its runs, with its changes, into FILE.png or FILE.svg (one experiment)")
	opt := detectFlags(fs)
	args, fail, code, done := parseArgs(fs, args, stderr, historyUsage)
	if done {
		return code
	}
	format, err := report.ParseFormat(*output)
	if err != nil {
		return fail(2, "%v", err)
	}
	var imageFormat report.ImageFormat
	if *plotFile != "" {
		if imageFormat, err = report.ImageFormatOf(*plotFile); err != nil {
			return fail(2, "%v", err)
		}
	}
	series, err := src.load(ctx, args, stderr)
	if err != nil {
		if isUsage(err) {
			fs.Usage()
			return fail(2, "%v", err)
		}
		return fail(1, "%v", err)
	}
	if *plotFile != "" && len(series) != 1 {
		return fail(2, "--plot draws one experiment, and %d were found: choose one with --experiment", len(series))
	}
	for i := range series {
		if err := series[i].Analyze(*opt); err != nil {
			return fail(2, "%v", err)
		}
	}
	switch format {
	case report.JSON:
		err = history.JSON(stdout, series)
	case report.CSV:
		err = history.CSV(stdout, series)
	default:
		err = history.Text(stdout, series)
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	if *plotFile != "" {
		if err := writeHistoryPlot(*plotFile, imageFormat, series[0]); err != nil {
			return fail(1, "%v", err)
		}
		_, _ = fmt.Fprintf(stderr, "plot written to %s\n", *plotFile)
	}
	if *otavaDir != "" {
		if err := writeOtava(*otavaDir, series); err != nil {
			return fail(1, "%v", err)
		}
		_, _ = fmt.Fprintf(stderr, "Otava's files written to %s: OTAVA_CONFIG=%s otava analyze EXPERIMENT\n", *otavaDir,
			filepath.Join(*otavaDir, "otava.yaml"))
	}
	return 0
}

// writeOtava writes each series' CSV and the otava.yaml that names them.
func writeOtava(dir string, series []history.Series) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("resolving %s: %w", dir, err)
	}
	write := func(name string, render func(io.Writer) error) error {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("creating %s: %w", name, err)
		}
		err = render(f)
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
		return nil
	}
	for _, s := range series {
		if err := write(history.OtavaFile(s), func(w io.Writer) error { return history.OtavaCSV(w, s) }); err != nil {
			return err
		}
	}
	return write("otava.yaml", func(w io.Writer) error { return history.OtavaConfig(w, series, abs) })
}

// writeHistoryPlot draws every figure the series measured over its runs, with its changes.
func writeHistoryPlot(path string, format report.ImageFormat, s history.Series) error {
	var panels []report.SeriesPanel
	for _, f := range history.Figures {
		p := report.SeriesPanel{Title: f.Name}
		if f.Unit == "us" {
			p.Title += " (µs)"
		}
		measured := false
		for _, r := range s.Runs {
			v, ok := r.Values[f.Column]
			if !ok {
				v = math.NaN()
			}
			measured = measured || ok
			p.Values = append(p.Values, v)
		}
		for _, c := range s.Changes {
			if c.Figure == f.Name {
				p.Changes = append(p.Changes, c.Index)
			}
		}
		if measured {
			panels = append(panels, p)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating plot file: %w", err)
	}
	title := fmt.Sprintf("%s: %d runs, %s to %s", s.Experiment, len(s.Runs), s.Runs[0].Name, s.Runs[len(s.Runs)-1].Name)
	err = report.PlotSeries(f, title, len(s.Runs), panels, format)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing plot file: %w", cerr)
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}
