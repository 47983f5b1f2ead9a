package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/podenv"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/writer"
)

// SpecSource is where a writer command reads its spec: `cassbench writer` admits any manifest
// as the API server would; cassbench-writer, the binary of writer pods, reads a spec that was
// admitted already (AdmittedSpec), and so links none of the admission code.
type SpecSource struct {
	// FileHelp describes the -f flag.
	FileHelp string
	// Load reads the spec from file, or from the environment when file is empty.
	Load func(file string) (*cbv1.BenchmarkRunSpec, error)
}

// Writer runs one writer of a run, as a writer pod does, and returns the exit status. name
// (the command as the user typed it) names the flag set and prefixes its messages.
func Writer(ctx context.Context, name string, args []string, src SpecSource) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	var conn ConnFlags
	conn.Register(fs)
	file := fs.String("f", "", src.FileHelp)
	index := fs.Int("index", EnvInt(podenv.CompletionIndex, 0), "this writer's index (env "+podenv.CompletionIndex+")")
	writers := fs.Int("writers", EnvInt(podenv.Writers, 0), "writers in the run; default spec.writers.replicas (env "+podenv.Writers+")")
	runID := fs.String("run-id", EnvOr(podenv.RunID, ""), "run identifier: writers with the same one start together (env "+podenv.RunID+")")
	barrier := fs.Duration("barrier-timeout", 10*time.Minute, "how long to wait at the start barrier for one more writer to arrive")
	metrics := fs.String("metrics-addr", fmt.Sprintf(":%d", podenv.MetricsPort), "serve Prometheus /metrics here; empty disables")
	termLog := fs.String("termination-log", podenv.TerminationLog, "where to write the summary")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the writer to this file")
	memProfile := fs.String("memprofile", "", "write an allocation profile to this file at exit")
	csvFile := CSVFlag(fs)
	if code, ok := Parse(fs, args); !ok {
		return code
	}
	fail := func(err error) int {
		return reportWriter(name, &summary.Summary{Index: int32(*index), Writers: int32(*writers), Error: err.Error()}, err, *termLog)
	}
	spec, err := src.Load(*file)
	if err != nil {
		return fail(err)
	}
	if *writers == 0 {
		*writers = int(spec.Writers.Replicas)
	}
	if err := conn.Place(os.Getenv(podenv.Placement), spec, *index); err != nil {
		return fail(err)
	}
	if *runID == "" {
		return fail(fmt.Errorf("no run id: pass --run-id or set %s; writers of one run must share it", podenv.RunID))
	}
	csv, err := LoadCSV(spec, *csvFile)
	if err != nil {
		return fail(err)
	}
	obs, err := startObserver(ctx, conn, spec, *index, csv)
	if err != nil {
		return fail(err)
	}
	stopProfiles, err := StartProfiles(*cpuProfile, *memProfile)
	if err != nil {
		return fail(err)
	}
	sum, err := writer.Run(ctx, writer.Config{
		Spec: spec, Conn: conn.Options(), RunID: *runID, Index: int32(*index), Writers: int32(*writers),
		Datacenter: conn.Datacenter, BarrierTimeout: *barrier, MetricsAddr: *metrics, Progress: os.Stderr, CSV: csv,
		Lag: obs.writerTap(),
	})
	obs.finish(ctx, sum)
	stopProfiles()
	runtimeStats(os.Stderr, sum)
	return reportWriter(name, sum, err, *termLog)
}

// reportWriter writes the summary (one JSON line, at most 4096 bytes) to the termination log
// and stdout; partial results of a failed writer are reported too.
func reportWriter(name string, sum *summary.Summary, runErr error, termLog string) int {
	b, err := sum.Encode()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 1
	}
	if err := WriteTerminationLog(termLog, b); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	}
	fmt.Println(string(b))
	if runErr != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, runErr)
		return 1
	}
	return 0
}

// StartProfiles starts the requested profiles; the returned function finishes them.
func StartProfiles(cpu, mem string) (func(), error) {
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			return nil, fmt.Errorf("creating CPU profile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			_ = f.Close() // the profile never started; nothing was written
			return nil, fmt.Errorf("starting CPU profile: %w", err)
		}
		cpuFile = f
	}
	return func() {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			if err := cpuFile.Close(); err != nil {
				fmt.Fprintf(os.Stderr, "cassbench: writing CPU profile: %v\n", err)
			}
		}
		if mem != "" {
			f, err := os.Create(mem)
			if err != nil {
				fmt.Fprintf(os.Stderr, "cassbench: creating memory profile: %v\n", err)
				return
			}
			defer func() {
				if err := f.Close(); err != nil {
					fmt.Fprintf(os.Stderr, "cassbench: writing memory profile: %v\n", err)
				}
			}()
			runtime.GC()
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				fmt.Fprintf(os.Stderr, "cassbench: writing memory profile: %v\n", err)
			}
		}
	}, nil
}
