package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/cassbench/cassbench/internal/cli"
	"github.com/cassbench/cassbench/internal/podenv"
	"github.com/cassbench/cassbench/internal/setup"
	"github.com/cassbench/cassbench/internal/summary"
)

func setupCommand(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet(prog+" setup", flag.ContinueOnError)
	var conn cli.ConnFlags
	conn.Register(fs)
	var schema schemaFlags
	schema.register(fs)
	file := fs.String("f", "", "BenchmarkRun manifest or spec (YAML or JSON); default: env "+podenv.Spec)
	expect := fs.Int("expect-nodes", cli.EnvInt(podenv.ExpectNodes, 0), "nodes that must be up before setup goes on (env "+podenv.ExpectNodes+")")
	nodeWait := fs.Duration("node-wait", 5*time.Minute, "how long to wait for them")
	termLog := fs.String("termination-log", podenv.TerminationLog, "where to write the setup report")
	preflight := fs.Bool("preflight", false, "only check that every requested cassandra-yaml setting exists on the nodes; create nothing")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	spec, err := loadSpec(*file)
	if err != nil {
		return reportSetup(&summary.SetupReport{Error: err.Error()}, err, *termLog)
	}
	cfg := setup.Config{
		Spec: spec, Conn: conn.Options(), Datacenter: conn.Datacenter,
		ExpectNodes: int32(*expect), NodeWait: *nodeWait, Log: os.Stderr, Preflight: *preflight,
	}
	if err := schema.apply(&cfg); err != nil {
		return reportSetup(&summary.SetupReport{Error: err.Error()}, err, *termLog)
	}
	if *file == "" {
		cfg.AllowDropWhere = "" // a setup Job: the datacenter's annotation is where, setup's default
	}
	report, err := setup.Run(ctx, cfg)
	return reportSetup(report, err, *termLog)
}

// reportSetup writes the report to the termination log and stdout, and the error to stderr.
func reportSetup(report *summary.SetupReport, runErr error, termLog string) int {
	b, err := report.Encode()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cassbench setup: %v\n", err)
		return 1
	}
	if err := cli.WriteTerminationLog(termLog, b); err != nil {
		fmt.Fprintf(os.Stderr, "cassbench setup: %v\n", err)
	}
	fmt.Println(string(b))
	if runErr != nil {
		fmt.Fprintf(os.Stderr, "cassbench setup: %v\n", runErr)
		return 1
	}
	return 0
}
