package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/cassbench/cassbench/internal/podenv"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/writer"
)

func writerCommand(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("writer", flag.ContinueOnError)
	var conn connFlags
	conn.register(fs)
	file := fs.String("f", "", "BenchmarkRun manifest or spec (YAML or JSON); default: env "+podenv.Spec)
	index := fs.Int("index", envInt(podenv.CompletionIndex, 0), "this writer's index (env "+podenv.CompletionIndex+")")
	writers := fs.Int("writers", envInt(podenv.Writers, 0), "writers in the run; default spec.writers.replicas (env "+podenv.Writers+")")
	runID := fs.String("run-id", envOr(podenv.RunID, ""), "run identifier: writers with the same one start together (env "+podenv.RunID+")")
	barrier := fs.Duration("barrier-timeout", 10*time.Minute, "how long to wait at the start barrier for one more writer to arrive")
	metrics := fs.String("metrics-addr", fmt.Sprintf(":%d", podenv.MetricsPort), "serve Prometheus /metrics here; empty disables")
	termLog := fs.String("termination-log", podenv.TerminationLog, "where to write the summary")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the writer to this file")
	memProfile := fs.String("memprofile", "", "write an allocation profile to this file at exit")
	csvFile := csvFlag(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	fail := func(err error) int {
		return reportWriter(&summary.Summary{Index: int32(*index), Writers: int32(*writers), Error: err.Error()}, err, *termLog)
	}
	spec, err := loadSpec(*file)
	if err != nil {
		return fail(err)
	}
	if *writers == 0 {
		*writers = int(spec.Writers.Replicas)
	}
	if *runID == "" {
		return fail(fmt.Errorf("no run id: pass --run-id or set %s; writers of one run must share it", podenv.RunID))
	}
	csv, err := loadCSV(spec, *csvFile)
	if err != nil {
		return fail(err)
	}
	stopProfiles, err := startProfiles(*cpuProfile, *memProfile)
	if err != nil {
		return fail(err)
	}
	sum, err := writer.Run(ctx, writer.Config{
		Spec: spec, Conn: conn.options(), RunID: *runID, Index: int32(*index), Writers: int32(*writers),
		Datacenter: conn.datacenter, BarrierTimeout: *barrier, MetricsAddr: *metrics, Progress: os.Stderr, CSV: csv,
	})
	stopProfiles()
	runtimeStats(os.Stderr, sum)
	return reportWriter(sum, err, *termLog)
}

// reportWriter writes the summary (one JSON line, at most 4096 bytes) to the termination log
// and stdout; partial results of a failed writer are reported too.
func reportWriter(sum *summary.Summary, runErr error, termLog string) int {
	b, err := sum.Encode()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cassbench writer: %v\n", err)
		return 1
	}
	if err := writeTerminationLog(termLog, b); err != nil {
		fmt.Fprintf(os.Stderr, "cassbench writer: %v\n", err)
	}
	fmt.Println(string(b))
	if runErr != nil {
		fmt.Fprintf(os.Stderr, "cassbench writer: %v\n", runErr)
		return 1
	}
	return 0
}

// startProfiles starts the requested profiles; the returned function finishes them.
func startProfiles(cpu, mem string) (func(), error) {
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
