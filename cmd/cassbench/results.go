package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/hdrlog"
	"github.com/cassbench/cassbench/internal/report"
)

const resultsUsage = `Usage: cassbench results NAME [flags]
       cassbench results -f FILE.json [flags]

Prints what a BenchmarkRun measured, or a BenchmarkSweep's table, as read from its status,
or from a file that -o json wrote (no cluster needed). JSON and CSV are stable (sorted keys,
fixed columns) so they can be committed next to the experiment; the JSON carries a schema
version and the spec that produced it. --plot also draws a sweep's throughput and p99
against its first axis, or a run's throughput and p99 over its window, as PNG or SVG by the
file's extension. --reports prints every writer's raw report instead (from the ConfigMaps
the run owns, or from a file -o json wrote), and -o json carries them. --hdr-log FILE also
writes the run's latency as an HdrHistogram interval log (format 1.3, values in microseconds)
that HdrHistogram's tools read, merge and plot: the merged histograms, and each writer's from
its raw report (read from the cluster, or kept in the file).

Flags:
`

// resultsCommand is "cassbench results".
func resultsCommand(ctx context.Context, args []string) int {
	return resultsMain(ctx, args, os.Stdout, os.Stderr)
}

func resultsMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(prog+" results", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kind := fs.String("kind", "", "run or sweep (default: whichever of the two exists with that name)")
	var namespace, output string
	fs.StringVar(&namespace, "n", "", "namespace (default: the kubeconfig context's, else default)")
	fs.StringVar(&namespace, "namespace", "", "same as -n")
	fs.StringVar(&output, "o", "table", "output: table, json or csv")
	fs.StringVar(&output, "output", "table", "same as -o")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)")
	plotFile := fs.String("plot", "", "also draw a plot into this file: FILE.png or FILE.svg")
	file := fs.String("f", "", "read a results file that -o json wrote instead of the cluster")
	reports := fs.Bool("reports", false, "print every writer's raw report, one JSON line each, instead of the results")
	hdrLog := fs.String("hdr-log", "", "also write the run's latency (merged, and each writer's when its raw report is at hand) as an HdrHistogram interval log into this file")
	names, fail, code, done := parseArgs(fs, args, stderr, resultsUsage)
	if done {
		return code
	}
	if *file != "" && len(names) > 0 {
		return fail(2, "give a NAME or -f FILE, not both")
	}
	if *file == "" && len(names) != 1 {
		fs.Usage()
		return fail(2, "give exactly one NAME, got %d", len(names))
	}
	format, err := report.ParseFormat(output)
	if err != nil {
		return fail(2, "%v", err)
	}
	if *kind != "" && *kind != "run" && *kind != "sweep" {
		return fail(2, "--kind must be run or sweep, not %q", *kind)
	}
	var imageFormat report.ImageFormat
	if *plotFile != "" {
		if imageFormat, err = report.ImageFormatOf(*plotFile); err != nil {
			return fail(2, "%v", err)
		}
	}

	var obj client.Object
	if *file != "" {
		obj, err = readResultsFile(*file)
	} else {
		// The raw reports are read only when they are printed: the table and CSV come from
		// status alone, and need no access to ConfigMaps.
		obj, err = clusterExperiment(ctx, *kubeconfig, namespace, names[0], *kind, *reports || format == report.JSON || *hdrLog != "")
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	if *reports {
		run, ok := obj.(*cbv1.BenchmarkRun)
		if !ok {
			return fail(2, "--reports needs a BenchmarkRun: a sweep keeps its runs' reports in the runs")
		}
		if err := printReports(stdout, stderr, run); err != nil {
			return fail(1, "%v", err)
		}
		return 0
	}

	switch o := obj.(type) {
	case *cbv1.BenchmarkRun:
		err = report.Run(stdout, o, format)
	case *cbv1.BenchmarkSweep:
		err = report.Sweep(stdout, o, format)
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	if code, err := writeFiles(stderr, obj, *plotFile, imageFormat, *hdrLog); err != nil {
		return fail(code, "%v", err)
	}
	return 0
}

// writeFiles writes what --plot and --hdr-log ask for beside the printed results, and returns
// the exit code of a failure.
func writeFiles(stderr io.Writer, obj client.Object, plotFile string, imageFormat report.ImageFormat, hdrLog string) (int, error) {
	if plotFile != "" {
		if err := writePlot(plotFile, imageFormat, obj); err != nil {
			return 1, err
		}
		_, _ = fmt.Fprintf(stderr, "plot written to %s\n", plotFile)
	}
	if hdrLog != "" {
		run, ok := obj.(*cbv1.BenchmarkRun)
		if !ok {
			return 2, errors.New("--hdr-log needs a BenchmarkRun: a sweep's runs each have their own")
		}
		if err := writeHdrLog(hdrLog, run); err != nil {
			return 1, err
		}
		_, _ = fmt.Fprintf(stderr, "HdrHistogram log written to %s\n", hdrLog)
	}
	return 0, nil
}

// writeHdrLog writes the run's HdrHistogram interval log into path; a half-written file is
// removed.
func writeHdrLog(path string, run *cbv1.BenchmarkRun) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating HdrHistogram log: %w", err)
	}
	err = hdrlog.Write(f, run)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing HdrHistogram log: %w", cerr)
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}

func clusterExperiment(ctx context.Context, kubeconfig, namespace, name, kind string, reports bool) (client.Object, error) {
	c, ns, err := resultsClient(kubeconfig, namespace)
	if err != nil {
		return nil, err
	}
	obj, err := findExperiment(ctx, c, client.ObjectKey{Namespace: ns, Name: name}, kind)
	if run, ok := obj.(*cbv1.BenchmarkRun); ok && err == nil && reports {
		err = withReports(ctx, c, run)
	}
	return obj, err
}

// readResultsFile reads what `-o json` wrote ("-" for standard input).
func readResultsFile(path string) (client.Object, error) {
	in := os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("opening results file: %w", err)
		}
		defer func() { _ = f.Close() }() // read only
		in = f
	}
	obj, err := report.Read(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return obj.(client.Object), nil
}

// parseArgs gives a command its usage text, parses its flags wherever they stand among the
// positional arguments, and returns those with the command's error printer; done says the
// command is over (help, or a bad flag) with code.
func parseArgs(fs *flag.FlagSet, args []string, stderr io.Writer, usage string) (names []string, fail func(int, string, ...any) int, code int, done bool) {
	fs.Usage = func() {
		_, _ = fmt.Fprint(stderr, named(usage))
		fs.PrintDefaults()
	}
	fail = func(code int, format string, a ...any) int {
		_, _ = fmt.Fprintf(stderr, fs.Name()+": "+format+"\n", a...)
		return code
	}
	names, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil, fail, 0, true
	}
	if err != nil {
		return nil, fail, 2, true
	}
	return names, fail, 0, false
}

// parseInterspersed parses flags before, between and after positional arguments, so that
// "results NAME -o json" works as kubectl users expect; the flag package stops at the first
// positional argument.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// resultsClient reads the kubeconfig as kubectl does and returns a client and the namespace to
// look in.
func resultsClient(kubeconfig, namespace string) (client.Client, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	overrides := &clientcmd.ConfigOverrides{}
	if namespace != "" {
		overrides.Context.Namespace = namespace
	}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("loading kubeconfig: %w", err)
	}
	ns, _, err := loader.Namespace()
	if err != nil {
		return nil, "", fmt.Errorf("reading the namespace from the kubeconfig: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := cbv1.AddToScheme(scheme); err != nil {
		return nil, "", err
	}
	// ConfigMaps hold the runs' raw writer reports.
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, "", err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, "", fmt.Errorf("connecting to the cluster: %w", err)
	}
	return c, ns, nil
}

// findExperiment gets the run or sweep named key; with no kind given, whichever exists.
func findExperiment(ctx context.Context, c client.Client, key client.ObjectKey, kind string) (client.Object, error) {
	candidates := map[string]client.Object{"run": &cbv1.BenchmarkRun{}, "sweep": &cbv1.BenchmarkSweep{}}
	var found []client.Object
	for _, k := range []string{"run", "sweep"} {
		if kind != "" && kind != k {
			continue
		}
		obj := candidates[k]
		err := c.Get(ctx, key, obj)
		switch {
		case err == nil:
			found = append(found, obj)
		case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
		default:
			return nil, fmt.Errorf("getting %s: %w", key, err)
		}
	}
	what := map[string]string{"": "BenchmarkRun or BenchmarkSweep", "run": "BenchmarkRun", "sweep": "BenchmarkSweep"}[kind]
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("no %s named %s in namespace %s", what, key.Name, key.Namespace)
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("both a BenchmarkRun and a BenchmarkSweep are named %s in namespace %s: choose one with --kind run or --kind sweep",
		key.Name, key.Namespace)
}

// writePlot draws the experiment's plot into path; a half-written file is removed.
func writePlot(path string, format report.ImageFormat, obj client.Object) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating plot file: %w", err)
	}
	switch o := obj.(type) {
	case *cbv1.BenchmarkRun:
		err = report.PlotRun(f, o, format)
	case *cbv1.BenchmarkSweep:
		err = report.PlotSweep(f, o, format)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing plot file: %w", cerr)
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}
