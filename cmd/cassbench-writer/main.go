// Command cassbench-writer is the process every writer pod runs: `cassbench writer`, with the
// same flags and environment, and nothing else of cassbench. It reads the spec the API server
// admitted (internal/cli.AdmittedSpec) instead of admitting it again, so it links none of
// offline admission (apiextensions-apiserver, CEL, the apiserver's schemas): their package
// state and the admitter cost a writer some 40 MiB of its peak RSS, and users size writer
// fleets by memory limits. `cassbench writer` stays for hand-written specs.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/cassbench/cassbench/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Writer(ctx, "cassbench-writer", os.Args[1:], cli.SpecSource{FileHelp: cli.AdmittedSpecHelp, Load: cli.AdmittedSpec})
	stop()
	os.Exit(code)
}
