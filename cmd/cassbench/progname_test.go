package main

import (
	"strings"
	"testing"
)

func TestProgName(t *testing.T) {
	for arg0, want := range map[string]string{
		"cassbench":                      "cassbench",
		"/usr/local/bin/cassbench":       "cassbench",
		"cassbench.test":                 "cassbench",
		"/home/me/bin/kubectl-cassbench": "kubectl cassbench",
		"kubectl-cassbench.exe":          "kubectl cassbench",
		"kubectl-cass_bench":             "kubectl cass-bench",
		"kubectl-":                       "cassbench",
	} {
		if got := progName(arg0); got != want {
			t.Errorf("progName(%q) = %q, want %q", arg0, got, want)
		}
	}
}

// Under kubectl, every line that names the command names it as typed, and the command
// list's descriptions stay in one column.
func TestUsageUnderKubectl(t *testing.T) {
	got := namedAs(usage, "kubectl cassbench")
	if strings.Contains(strings.ReplaceAll(got, "kubectl cassbench", ""), "cassbench ") {
		t.Errorf("a line still names plain cassbench:\n%s", got)
	}
	for _, want := range []string{
		"kubectl cassbench benchmarks Apache Cassandra.",
		"  kubectl cassbench results NAME     print what",
		`Run "kubectl cassbench COMMAND -h"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("usage lacks %q:\n%s", want, got)
		}
	}
	column := func(text, line string) int {
		for _, l := range strings.Split(text, "\n") {
			if strings.Contains(l, line) {
				return strings.Index(l, strings.TrimSpace(line))
			}
		}
		return -1
	}
	if a, b := column(got, "check BenchmarkRun and BenchmarkSweep"), column(got, "would admit them"); a != b || a < 0 {
		t.Errorf("validate's description starts at column %d, its continuation at %d:\n%s", a, b, got)
	}
	if r := namedAs(resultsUsage, "kubectl cassbench"); !strings.HasPrefix(r, "Usage: kubectl cassbench results NAME [flags]\n       kubectl cassbench results -f FILE.json") {
		t.Errorf("results usage:\n%s", r)
	}
	if namedAs(usage, "cassbench") != usage {
		t.Errorf("plain cassbench changed its usage")
	}
}
