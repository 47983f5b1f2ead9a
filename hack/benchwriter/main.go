// Command benchwriter does hack/bench-writer.sh's arithmetic, which the script, left to start
// and time the clients, used to do in awk and Python: it reads what a client's run left
// behind into one row of the runs file, reports the runs with their medians and the ratios
// between clients, and splits a CPU profile into the shares the report names.
//
//	benchwriter record -client C -threads T -concurrency N [-rate R] -round R [-load L] -time FILE -result FILE [-latte]
//	benchwriter report -runs FILE -latte-version V
//	go tool pprof -top -cum -nodecount 100000 BIN PROFILE | benchwriter shares
//
// record prints "client threads concurrency round writes failed cpu-seconds peak-rss-kib rate
// load lag-p50-µs" from /usr/bin/time -f "%U %S %M", the load average the script read and the
// client's result (the writer's summary, or latte's JSON report with -latte), for the script
// to append to the runs file.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: benchwriter record|report|shares [flags]")
		return 2
	}
	var err error
	switch args[0] {
	case "record":
		err = recordCommand(args[1:], stdout)
	case "report":
		err = reportCommand(args[1:], stdout)
	case "shares":
		err = writeShares(stdout, readCumulative(stdin))
	default:
		fmt.Fprintf(stderr, "benchwriter: unknown command %q: record, report or shares\n", args[0])
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchwriter %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

func recordCommand(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	var r runRow
	fs.StringVar(&r.client, "client", "", "the client's name in the report (cassbench, baseline, stock, latte)")
	fs.IntVar(&r.threads, "threads", 0, "threads the client ran with")
	fs.IntVar(&r.concurrency, "concurrency", 0, "requests in flight")
	fs.IntVar(&r.round, "round", 0, "the round")
	fs.IntVar(&r.rate, "rate", 0, "the open loop's rate in operations per second; 0 for a closed loop")
	load := fs.String("load", "-", "the machine's one-minute load average as the run ended (- if not known)")
	timeFile := fs.String("time", "", `/usr/bin/time -f "%U %S %M" output`)
	result := fs.String("result", "", "the client's result: the writer's summary JSON, or latte's report")
	latte := fs.Bool("latte", false, "the result is latte's JSON report")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, err := os.ReadFile(*timeFile)
	if err != nil {
		return err
	}
	if r.cpuSeconds, r.rssKiB, err = parseTime(string(t)); err != nil {
		return fmt.Errorf("%s: %w", *timeFile, err)
	}
	res, err := os.ReadFile(*result)
	if err != nil {
		return err
	}
	parse := writerCounts
	if *latte {
		parse = latteCounts
	}
	if r.ok, r.failed, err = parse(res); err != nil {
		return fmt.Errorf("%s: %w", *result, err)
	}
	if r.load, err = parseOptional(*load); err != nil {
		return fmt.Errorf("-load: %w", err)
	}
	// latte's report has no schedule lag to read.
	r.lagMicros = math.NaN()
	if !*latte {
		if r.lagMicros, err = writerLag(res); err != nil {
			return fmt.Errorf("%s: %w", *result, err)
		}
	}
	_, err = fmt.Fprintln(stdout, r.String())
	return err
}

func reportCommand(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	runsFile := fs.String("runs", "", "the runs file record's rows were appended to")
	latteVersion := fs.String("latte-version", "", "latte's version, for the table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	data, err := os.ReadFile(*runsFile)
	if err != nil {
		return err
	}
	rows, err := readRuns(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s: %w", *runsFile, err)
	}
	return writeReport(stdout, rows, *latteVersion)
}
