package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cassbench/cassbench/internal/history"
)

const gateUsage = `Usage: cassbench gate DIR [flags]
       cassbench gate -l SELECTOR [flags]
       cassbench gate --baseline FILE[,FILE...] NEWEST.json [flags]

Fails when the newest run of an experiment is a significant regression against the runs
before it, for a CI job to stop on. The runs come as for cassbench history (every experiment
under DIR, or with -l the runs in the cluster), or with --baseline from the named results
files, against which NEWEST.json is judged. Each figure fails the gate two ways: a change
point (E-divisive means) among the newest --window runs that made it worse, or the newest run
alone outside what the runs since the figure's last change predict (a one-sided t-test at
--newest-alpha). Latency changes under 2%, twice the sketches' accuracy, never fail it.

Exit status: 0 no regression; 1 a regression (every finding is printed); 3 too little
history to judge (fewer than --min-history runs before the newest) and no regression; 2 a
usage error or input that cannot be read.

Flags:
`

// Exit codes of cassbench gate.
const (
	gatePassed    = 0
	gateRegressed = 1
	gateBadInput  = 2
	gateTooLittle = 3
)

// gateMinHistory is the fewest --min-history the t-test of the newest run can work with.
const gateMinHistory = 2

func gateCommand(ctx context.Context, args []string) int {
	return gateMain(ctx, args, os.Stdout, os.Stderr)
}

func gateMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(prog+" gate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var src sourceFlags
	src.add(fs)
	o := history.DefaultGate
	baseline := fs.String("baseline", "", "judge the one results file given against these (comma-separated results files)")
	output := fs.String("o", "text", "output: text or json")
	fs.IntVar(&o.MinHistory, "min-history", o.MinHistory, "fewest runs before the newest to judge it")
	fs.IntVar(&o.Window, "window", o.Window, "a change among this many newest runs that made a figure worse fails the gate")
	fs.Float64Var(&o.MinChangePercent, "min-change", 0, "smallest change, in percent, that fails the gate")
	fs.Float64Var(&o.NewestAlpha, "newest-alpha", o.NewestAlpha, "level of the test of the newest run alone (0: off)")
	detect := detectFlags(fs)
	args, fail, code, done := parseArgs(fs, args, stderr, gateUsage)
	if done {
		return code
	}
	o.Detect = *detect
	if *output != "text" && *output != "json" {
		return fail(gateBadInput, "-o must be text or json, not %q", *output)
	}
	if o.MinHistory < gateMinHistory {
		return fail(gateBadInput, "--min-history must be at least %d", gateMinHistory)
	}
	var series []history.Series
	var err error
	if *baseline != "" {
		series, err = baselineSeries(*baseline, args)
	} else {
		series, err = src.load(ctx, args, stderr)
	}
	if err != nil {
		if isUsage(err) {
			fs.Usage()
		}
		return fail(gateBadInput, "%v", err)
	}
	var results []history.GateResult
	for _, s := range series {
		res, err := history.Gate(s, o)
		if err != nil {
			return fail(gateBadInput, "%v", err)
		}
		results = append(results, res)
	}
	if err := writeGate(stdout, *output, results); err != nil {
		return fail(gateBadInput, "%v", err)
	}
	return gateExit(results)
}

// gateExit is 1 if any experiment regressed, else 3 if any had too little history, else 0.
func gateExit(results []history.GateResult) int {
	code := gatePassed
	for _, r := range results {
		switch r.Verdict {
		case history.Regressed:
			return gateRegressed
		case history.TooLittleHistory:
			code = gateTooLittle
		}
	}
	return code
}

func writeGate(w io.Writer, output string, results []history.GateResult) error {
	if output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	}
	for _, r := range results {
		if _, err := fmt.Fprintf(w, "%s %s: %s\n", strings.ToUpper(string(r.Verdict)), r.Experiment, r.Reason); err != nil {
			return err
		}
		for _, f := range r.Findings {
			if _, err := fmt.Fprintf(w, "  %s\n", f); err != nil {
				return err
			}
		}
	}
	return nil
}

// baselineSeries is the named baseline files in time order, then the newest run: one series,
// whatever the runs' experiments.
func baselineSeries(baseline string, args []string) ([]history.Series, error) {
	if len(args) != 1 {
		return nil, errUsage(fmt.Sprintf("with --baseline give the one results file to judge, got %d arguments", len(args)))
	}
	read := func(path string) (history.Run, error) {
		runs, err := runsFromFile(path)
		if err != nil {
			return history.Run{}, err
		}
		r, ok := history.FromRun(runs[0], path, "")
		if !ok {
			return r, fmt.Errorf("%s: run %s did not succeed (%s)", path, runs[0].Name, runs[0].Status.Phase)
		}
		return r, nil
	}
	var base []history.Run
	for _, path := range strings.Split(baseline, ",") {
		r, err := read(path)
		if err != nil {
			return nil, err
		}
		base = append(base, r)
	}
	newest, err := read(args[0])
	if err != nil {
		return nil, err
	}
	for i := range base {
		base[i].Experiment = newest.Experiment
	}
	s := history.Group(base)[0]
	s.Runs = append(s.Runs, newest)
	return []history.Series{s}, nil
}
