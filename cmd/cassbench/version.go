package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cassbench/cassbench/internal/version"
)

// versionCommand prints this binary's version, commit and commit date (hack/build.sh stamps
// them), as one line or as JSON for scripts.
func versionCommand(args []string) int {
	fs := flag.NewFlagSet(prog+" version", flag.ContinueOnError)
	output := fs.String("o", "text", "text: one line; json: an object with version, commit, date, goVersion and platform")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "%s version: takes no arguments, got %q\n", prog, fs.Args())
		return 2
	}
	if err := printVersion(os.Stdout, *output); err != nil {
		fmt.Fprintf(os.Stderr, "%s version: %v\n", prog, err)
		return 2
	}
	return 0
}

func printVersion(w io.Writer, output string) error {
	info := version.Get()
	switch output {
	case "text":
		_, err := fmt.Fprintln(w, info)
		return err
	case "json":
		return json.NewEncoder(w).Encode(info)
	}
	return fmt.Errorf("unknown output %q: text or json", output)
}
