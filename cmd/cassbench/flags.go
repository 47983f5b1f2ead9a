package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/podenv"
)

// connFlags are the connection flags every command takes; their defaults come from the
// environment the controller gives its pods.
type connFlags struct {
	hosts, username, password, datacenter, caFile string
	port                                          int
	tls, insecure                                 bool
}

func (c *connFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.hosts, "hosts", envOr(podenv.Hosts, "127.0.0.1"), "comma-separated contact points (env "+podenv.Hosts+")")
	fs.IntVar(&c.port, "port", envInt(podenv.Port, 9042), "CQL native protocol port (env "+podenv.Port+")")
	fs.StringVar(&c.username, "username", os.Getenv(podenv.Username), "username (env "+podenv.Username+")")
	fs.StringVar(&c.password, "password", os.Getenv(podenv.Password), "password; prefer the environment variable (env "+podenv.Password+")")
	fs.StringVar(&c.datacenter, "datacenter", os.Getenv(podenv.LocalDatacenter), "local Cassandra datacenter: routing prefers it (env "+podenv.LocalDatacenter+")")
	fs.BoolVar(&c.tls, "tls", false, "connect with TLS")
	fs.StringVar(&c.caFile, "ca-file", "", "PEM CA bundle that signed the nodes' certificates (implies --tls)")
	fs.BoolVar(&c.insecure, "insecure-skip-verify", false, "accept any server certificate")
}

func (c *connFlags) options() cql.Options {
	return cql.Options{
		Hosts: cql.SplitHosts(c.hosts), Port: c.port, Username: c.username, Password: c.password,
		TLS: c.tls || c.caFile != "", CAFile: c.caFile, InsecureSkipVerify: c.insecure,
		LocalDatacenter: c.datacenter,
	}
}

// args renders the flags for a child writer process.
func (c *connFlags) args() []string {
	a := []string{"--hosts", c.hosts, "--port", strconv.Itoa(c.port), "--datacenter", c.datacenter}
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

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// envInt reads an integer variable; a malformed one is reported and ignored rather than
// silently becoming 0.
func envInt(key string, def int) int {
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

// parse parses flags, printing usage on -h, and reports whether to go on.
func parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "%s %s: unexpected argument %q\n", prog, fs.Name(), fs.Arg(0))
		return 2, false
	}
	return 0, true
}
