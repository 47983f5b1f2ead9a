package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cli"
	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/podenv"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/scale"
	"github.com/cassbench/cassbench/internal/setup"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/workload"
	"github.com/cassbench/cassbench/internal/writer"
)

func runCommand(ctx context.Context, args []string) int {
	return runMain(ctx, args, os.Stdout)
}

// runMain is `cassbench run` writing its results to stdout.
func runMain(ctx context.Context, args []string, stdout io.Writer) int {
	fs := flag.NewFlagSet(prog+" run", flag.ContinueOnError)
	var conn cli.ConnFlags
	conn.Register(fs)
	var schema schemaFlags
	schema.register(fs)
	var lag lagFlags
	lag.register(fs)
	var disrupt disruptFlags
	disrupt.register(fs)
	file := fs.String("f", "", "BenchmarkRun manifest or spec (YAML or JSON)")
	output := fs.String("o", "table", "output: table, json or csv (as cassbench results writes them)")
	processes := fs.Bool("processes", false, "run each writer as a child process, "+writerBinaryName+" (beside this binary or on PATH), instead of a goroutine")
	barrier := fs.Duration("barrier-timeout", 2*time.Minute, "how long a writer waits at the start barrier for one more to arrive")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this file (in-process writers)")
	memProfile := fs.String("memprofile", "", "write an allocation profile to this file at exit")
	csvFile := cli.CSVFlag(fs)
	scaleBy := fs.Float64("scale", 0, "run the spec scaled down by this factor in (0, 1] on the nodes as they are: duration, warm-up, operations, rate and partitions shrink, spec.datacenter is dropped, replication and consistency fit the nodes up (internal/scale)")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	format, err := report.ParseFormat(*output)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cassbench run: %v\n", err)
		return 2
	}
	if *file == "" {
		fmt.Fprintln(os.Stderr, "cassbench run: -f FILE is required")
		return 2
	}
	spec, csv, writerBin, err := loadLocal(ctx, *file, *scaleBy, *csvFile, *processes, &conn, &lag, &disrupt)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cassbench run: %v\n", err)
		return 1
	}
	if w := localWarning(spec); w != "" {
		fmt.Fprintln(os.Stderr, "warning: "+w)
	}
	cfg := setup.Config{Spec: spec, Conn: conn.Options(), Datacenter: conn.Datacenter, Log: os.Stderr}
	if err := schema.apply(&cfg); err != nil {
		fmt.Fprintf(os.Stderr, "cassbench run: %v\n", err)
		return 2
	}
	setupReport, err := setup.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cassbench run: setup: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "setup: Cassandra %s, %s, %s verified\n", setupReport.CassandraVersion,
		plural(int64(setupReport.Nodes), "node"), plural(int64(len(setupReport.SettingsVerified)), "setting"))
	if d := spec.Datacenter; d != nil && d.Size != nil && *d.Size != setupReport.Nodes {
		fmt.Fprintf(os.Stderr, "warning: spec.datacenter.size is %d but the cluster has %s up: the results are for those\n", *d.Size, plural(int64(setupReport.Nodes), "node"))
	}

	stopProfiles, err := cli.StartProfiles(*cpuProfile, *memProfile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cassbench run: %v\n", err)
		return 1
	}
	observer, err := startLag(ctx, lag, spec, &conn, csv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cassbench run: %v\n", err)
		return 1
	}
	runID := "local-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	n := spec.Writers.Replicas
	var sums []*summary.Summary
	faults := disrupt.start(ctx)
	if *processes {
		sums = runProcesses(ctx, writerBin, spec, &conn, runID, n, *barrier, cli.CSVPath(csv))
	} else {
		sums = runInProcess(ctx, spec, &conn, runID, n, *barrier, csv, observer.Tap(), faults.hook())
	}
	faults.finish()
	stopProfiles()

	name, labels := runName(runID, *file)
	// The observer looks for the last keys before the results are written, which carry
	// what it saw.
	observed := observer.results(observer.finish(ctx))
	code := reportLocal(stdout, name, labels, spec, setupReport, sums, format, observed, faults.filler(disrupt.objective))
	return faults.exitCode(reportLag(observed, format, code))
}

// runName is the run's name in the results, the manifest's when it has one, else runID (the
// barrier's key, unique), and the manifest's labels.
func runName(runID, file string) (string, map[string]string) {
	manifest, labels := manifestMeta(file)
	if manifest != "" {
		return manifest, labels
	}
	return runID, labels
}

// loadLocal reads the spec, scaled by scaleBy when set, its CSV file, and with processes
// finds the writer binary: a bad file, lag flags it cannot measure with, a schedule of faults
// it cannot keep, or no writer binary to start, is refused before setup creates anything.
func loadLocal(ctx context.Context, file string, scaleBy float64, csvFile string, processes bool, conn *cli.ConnFlags, lag *lagFlags,
	disrupt *disruptFlags) (*cbv1.BenchmarkRunSpec, *workload.CSV, string, error) {
	spec, err := loadSpec(file)
	if err != nil {
		return nil, nil, "", err
	}
	if err := lag.check(spec, conn.Datacenter, processes); err != nil {
		return nil, nil, "", err
	}
	if scaleBy != 0 {
		if spec, err = scaled(ctx, spec, scaleBy, conn); err != nil {
			return nil, nil, "", err
		}
	}
	if err := disrupt.check(spec, processes, localcassandra.DefaultLayout(), conn.Options().Hosts, conn.Datacenter); err != nil {
		return nil, nil, "", err
	}
	csv, err := cli.LoadCSV(spec, csvFile)
	if err != nil {
		return nil, nil, "", err
	}
	var writerBin string
	if processes {
		if writerBin, err = findWriterBinary(os.Executable, exec.LookPath); err != nil {
			return nil, nil, "", fmt.Errorf("--processes: %w", err)
		}
	}
	return spec, csv, writerBin, nil
}

// reportLocal merges what the writers reported, says which failed and whether the target rate
// was reached, and writes the results as cassbench results would. It returns the exit code.
func reportLocal(stdout io.Writer, name string, labels map[string]string, spec *cbv1.BenchmarkRunSpec, setupReport *summary.SetupReport, sums []*summary.Summary, format report.Format,
	lag *cbv1.ReplicationLagResults, fill func(*cbv1.Results)) int {
	res := results.Merge(sums)
	if res != nil {
		res.ReplicationLag = lag
		fill(res)
	}
	for _, s := range sums {
		if s.Error != "" {
			fmt.Fprintf(os.Stderr, "writer %d failed: %s\n", s.Index, s.Error)
		}
	}
	if msg, short := results.TargetShortfall(res); short {
		fmt.Fprintln(os.Stderr, "warning: target rate not reached: "+msg)
	}
	failure := writerFailures(sums)
	run := localRun(name, spec, setupReport, res, failure)
	run.Labels = labels
	if err := report.Run(stdout, run, format); err != nil {
		fmt.Fprintf(os.Stderr, "cassbench run: %v\n", err)
		return 1
	}
	if failure != "" {
		return 1
	}
	return 0
}

// scaled shrinks spec by factor for the nodes up now, saying what it changed.
func scaled(ctx context.Context, spec *cbv1.BenchmarkRunSpec, factor float64, conn *cli.ConnFlags) (*cbv1.BenchmarkRunSpec, error) {
	probe := spec.DeepCopy()
	probe.Datacenter = nil
	nodes, err := setup.Run(ctx, setup.Config{Spec: probe, Conn: conn.Options(), Datacenter: conn.Datacenter, Preflight: true})
	if err != nil {
		return nil, fmt.Errorf("counting nodes to scale for: %w", err)
	}
	out, notes, err := scale.Spec(spec, factor, nodes.Nodes)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		fmt.Fprintf(os.Stderr, "scale %g: %s\n", factor, n)
	}
	return out, nil
}

// localWarning explains what a local run does with the datacenter section it cannot apply.
func localWarning(spec *cbv1.BenchmarkRunSpec) string {
	d := spec.Datacenter
	if d == nil || (d.Size == nil && d.Config == nil) {
		return ""
	}
	return "spec.datacenter (size and config) cannot be applied without Kubernetes: they are verified, not applied — cassandra-yaml settings are checked on every node, the node count against size"
}

// runInProcess runs the n writers as goroutines of this process. A writer that fails before
// its window (its session, statements or dataset) leaves the others nobody to start with:
// those still at the start barrier give up at once, naming it, instead of a barrier timeout
// later.
func runInProcess(ctx context.Context, spec *cbv1.BenchmarkRunSpec, conn *cli.ConnFlags, runID string, n int32, barrier time.Duration, csv *workload.CSV, lag *writer.LagTap,
	measuring func(time.Time)) []*summary.Summary {
	sums := make([]*summary.Summary, n)
	var early firstEarlyFailure
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			// Each writer gets its own session, as a pod would.
			sum, err := writer.Run(ctx, writer.Config{
				Spec: spec, Conn: conn.Options(), RunID: runID, Index: i, Writers: n,
				Datacenter: conn.Datacenter, BarrierTimeout: barrier, GiveUp: early.get, Progress: os.Stderr, CSV: csv, Lag: lag, Measuring: measuring,
			})
			early.note(i, sum, err)
			sums[i] = reported(sum)
		})
	}
	wg.Wait()
	return sums
}

// firstEarlyFailure keeps the error of the first writer that failed before its measured
// window, for the writers of the same process still waiting at the start barrier.
type firstEarlyFailure struct {
	mu  sync.Mutex
	err error
}

// note records writer i's outcome: a failure before the window, unless one came first.
func (f *firstEarlyFailure) note(i int32, sum *summary.Summary, err error) {
	if err == nil || sum.Measured() {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = fmt.Errorf("writer %d failed before the start: %w", i, err)
	}
}

// get is the failure the others give up for, nil while there is none.
func (f *firstEarlyFailure) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// runProcesses starts each writer as bin, the lean writer binary writer pods run, with the
// admitted spec in its environment, as the writer Job does, and reads the summary line each
// prints.
func runProcesses(ctx context.Context, bin string, spec *cbv1.BenchmarkRunSpec, conn *cli.ConnFlags, runID string, n int32, barrier time.Duration, csvFile string) []*summary.Summary {
	specJSON, err := json.Marshal(spec)
	sums := make([]*summary.Summary, n)
	var wg sync.WaitGroup
	for i := range n {
		if err != nil {
			sums[i] = &summary.Summary{Index: i, Writers: n, Error: fmt.Sprintf("starting writer: %v", err)}
			continue
		}
		wg.Go(func() {
			args := append([]string{"--index", strconv.Itoa(int(i)), "--writers", strconv.Itoa(int(n)),
				"--run-id", runID, "--barrier-timeout", barrier.String(), "--metrics-addr", "", "--termination-log", ""}, conn.Args()...)
			if csvFile != "" {
				args = append(args, "--csv-file", csvFile)
			}
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Env = append(os.Environ(), podenv.Spec+"="+string(specJSON), podenv.Username+"="+conn.Username, podenv.Password+"="+conn.Password)
			cmd.Stderr = os.Stderr
			out, runErr := cmd.Output()
			sums[i] = lastSummary(out)
			if sums[i] == nil {
				sums[i] = &summary.Summary{Index: i, Writers: n, Error: fmt.Sprintf("writer process reported no summary: %v", runErr)}
			}
		})
	}
	wg.Wait()
	return sums
}

func lastSummary(out []byte) *summary.Summary {
	var last *summary.Summary
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if s, err := summary.Decode(sc.Bytes()); err == nil {
			last = s
		}
	}
	return last
}
