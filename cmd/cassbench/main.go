// Command cassbench runs inside a BenchmarkRun's setup pods and on a laptop (run, validate,
// results): the same spec, the same writer, with or without Kubernetes. Writer pods run
// cassbench-writer, the same writer command without the rest (cmd/cassbench-writer).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cassbench/cassbench/internal/cli"
)

const usage = `cassbench benchmarks Apache Cassandra.

Usage:
  cassbench setup  [flags]   verify settings on every node and create the schema (setup Job)
  cassbench writer [flags]   run one writer of a run (writer pods run cassbench-writer, the same
                             without offline admission: it reads an admitted spec)
  cassbench run -f FILE      run a BenchmarkRun spec locally: setup, writers, merged results
  cassbench results NAME     print what a BenchmarkRun or BenchmarkSweep measured (-f FILE: from a file)
  cassbench compare A B      is B better than A, or is the difference noise?
  cassbench report A... -o F one self-contained HTML page of experiments, side by side
  cassbench history DIR      each experiment's runs over time and where its figures changed
                             (-l SELECTOR: runs in the cluster; --otava DIR: Apache Otava's CSV)
  cassbench gate DIR         exit 1 when the newest run of an experiment regressed (CI)
  cassbench validate FILE... check BenchmarkRun and BenchmarkSweep manifests as the API server
                             would admit them, without a cluster (- reads stdin)
  cassbench local-cassandra CMD
                             a real Cassandra 5.0 cluster on this machine, to run against
                             (start, stop, status, nodetool; -h lists them all)
  cassbench version          version, commit and its date (-o json)

Run "cassbench COMMAND -h" for a command's flags. Flags override the CASSBENCH_* variables
the controller sets on its pods.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, named(usage))
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var code int
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "setup":
		code = setupCommand(ctx, args)
	case "writer":
		code = cli.Writer(ctx, prog+" writer", args, admitting)
	case "run":
		code = runCommand(ctx, args)
	case "results":
		code = resultsCommand(ctx, args)
	case "compare":
		code = compareCommand(ctx, args)
	case "report":
		code = reportCommand(ctx, args)
	case "history":
		code = historyCommand(ctx, args)
	case "gate":
		code = gateCommand(ctx, args)
	case "validate":
		code = validateCommand(ctx, args)
	case "local-cassandra":
		code = localCassandraCommand(ctx, args, os.Stdout, os.Stderr)
	case "version", "--version":
		code = versionCommand(args)
	case "-h", "--help", "help":
		fmt.Print(named(usage))
	default:
		fmt.Fprintf(os.Stderr, "%s: unknown command %q\n\n%s", prog, cmd, named(usage))
		code = 2
	}
	stop()
	os.Exit(code)
}
