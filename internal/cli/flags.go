// Package cli holds what the cassbench commands share (connection flags, the environment the
// controller gives its pods, termination logs, profiles) and the writer command itself, which
// two binaries run: `cassbench writer` and cassbench-writer, the small binary of writer pods.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/podenv"
)

// ConnFlags are the connection flags every command takes; their defaults come from the
// environment the controller gives its pods.
type ConnFlags struct {
	Username, Password, Datacenter string
	hosts, caFile                  string
	port                           int
	tls, insecure                  bool
}

// Register adds the flags to fs.
func (c *ConnFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.hosts, "hosts", EnvOr(podenv.Hosts, "127.0.0.1"), "comma-separated contact points (env "+podenv.Hosts+")")
	fs.IntVar(&c.port, "port", EnvInt(podenv.Port, 9042), "CQL native protocol port (env "+podenv.Port+")")
	fs.StringVar(&c.Username, "username", os.Getenv(podenv.Username), "username (env "+podenv.Username+")")
	fs.StringVar(&c.Password, "password", os.Getenv(podenv.Password), "password; prefer the environment variable (env "+podenv.Password+")")
	fs.StringVar(&c.Datacenter, "datacenter", os.Getenv(podenv.LocalDatacenter), "local Cassandra datacenter: routing prefers it (env "+podenv.LocalDatacenter+")")
	fs.BoolVar(&c.tls, "tls", false, "connect with TLS")
	fs.StringVar(&c.caFile, "ca-file", "", "PEM CA bundle that signed the nodes' certificates (implies --tls)")
	fs.BoolVar(&c.insecure, "insecure-skip-verify", false, "accept any server certificate")
}

// Options are the connection options the flags give.
func (c *ConnFlags) Options() cql.Options {
	return cql.Options{
		Hosts: cql.SplitHosts(c.hosts), Port: c.port, Username: c.Username, Password: c.Password,
		TLS: c.tls || c.caFile != "", CAFile: c.caFile, InsecureSkipVerify: c.insecure,
		LocalDatacenter: c.Datacenter,
	}
}

// Args renders the flags for a child writer process; the credentials go through its
// environment, not its command line.
func (c *ConnFlags) Args() []string {
	a := []string{"--hosts", c.hosts, "--port", strconv.Itoa(c.port), "--datacenter", c.Datacenter}
	if c.tls {
		a = append(a, "--tls")
	}
	if c.caFile != "" {
		a = append(a, "--ca-file", c.caFile)
	}
	if c.insecure {
		a = append(a, "--insecure-skip-verify")
	}
	return a
}

// EnvOr is the variable key, or def if it is unset or empty.
func EnvOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// EnvInt reads an integer variable; a malformed one is reported and ignored rather than
// silently becoming 0.
func EnvInt(key string, def int) int {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cassbench: ignoring %s=%q: not an integer\n", key, v)
		return def
	}
	return n
}

// Parse parses flags, printing usage on -h, and reports whether to go on. The flag set is
// named after the command as typed ("cassbench setup"), which prefixes its messages.
func Parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2, false
	}
	return 0, true
}
