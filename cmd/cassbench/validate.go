package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cassbench/cassbench/internal/admission"
)

// files collects repeated -f flags.
type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(v string) error { *f = append(*f, v); return nil }

// validateCommand checks BenchmarkRun and BenchmarkSweep manifests as the API server would
// admit them, without a cluster: for pre-commit hooks and CI of experiment repositories.
func validateCommand(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet(prog+" validate", flag.ContinueOnError)
	var names files
	output := fs.String("o", "text", "text: one line per object; json: each admitted object (defaulted, as the API server would store it) on a line of its own, the form cassbench-writer reads")
	fs.Var(&names, "f", "manifest to check (YAML or JSON, several documents allowed); repeat it, or list files after the flags; - reads stdin")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), named("Usage: cassbench validate [-f FILE]... [FILE]...\n\nChecks every BenchmarkRun and BenchmarkSweep with the CRD's own schema, defaults and\nCEL rules, as the API server does on apply; other kinds are skipped. Exit status 1 if any\nis refused or cannot be read. -o json prints the admitted objects instead."))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *output != "text" && *output != "json" {
		fmt.Fprintf(os.Stderr, "cassbench validate: unknown output %q: text or json\n", *output)
		return 2
	}
	names = append(names, fs.Args()...)
	if len(names) == 0 {
		fmt.Fprintln(os.Stderr, "cassbench validate: name at least one file (-f FILE, or - for stdin)")
		return 2
	}
	return validateFiles(ctx, names, *output == "json", os.Stdin, os.Stdout, os.Stderr)
}

// validateFiles prints one line per object: valid to stdout (asJSON: the admitted object),
// refused to stderr with the API server's message. It returns 1 if anything was refused or
// unreadable.
func validateFiles(ctx context.Context, names []string, asJSON bool, stdin io.Reader, stdout, stderr io.Writer) int {
	a, err := admission.Default()
	if err != nil {
		fmt.Fprintf(stderr, "cassbench validate: loading the CRDs: %v\n", err)
		return 1
	}
	code := 0
	for _, name := range names {
		var data []byte
		if name == "-" {
			name = "<stdin>"
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(name)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			code = 1
			continue
		}
		docs, err := admission.Documents(bytes.NewReader(data))
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			code = 1
		}
		for i, doc := range docs {
			where := name
			if len(docs) > 1 {
				where = fmt.Sprintf("%s (document %d)", name, i+1)
			}
			obj, err := a.Admit(ctx, doc)
			switch {
			case obj != nil && obj.GetKind() == "":
				fmt.Fprintf(stderr, "%s: no kind: give each object its apiVersion and kind (cassbench.io/v1alpha1, BenchmarkRun or BenchmarkSweep)\n", where)
				code = 1
			case errors.Is(err, admission.ErrOtherKind) && asJSON:
				fmt.Fprintf(stderr, "%s: %s %s skipped: not a cassbench kind\n", where, obj.GetKind(), obj.GetName())
			case errors.Is(err, admission.ErrOtherKind):
				fmt.Fprintf(stdout, "%s: %s %s skipped: not a cassbench kind\n", where, obj.GetKind(), obj.GetName())
			case err != nil:
				fmt.Fprintf(stderr, "%s: %v\n", where, err)
				code = 1
			case asJSON:
				b, err := json.Marshal(obj.Object)
				if err != nil {
					fmt.Fprintf(stderr, "%s: encoding: %v\n", where, err)
					code = 1
					continue
				}
				fmt.Fprintf(stdout, "%s\n", b)
			default:
				fmt.Fprintf(stdout, "%s: %s %s is valid\n", where, obj.GetKind(), obj.GetName())
			}
		}
	}
	return code
}
