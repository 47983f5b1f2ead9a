package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/localcassandra"
)

// --disrupt is refused, naming the flag, for every schedule the run cannot keep or measure;
// the nodes of this layout have directories but none runs.
func TestDisruptRefuses(t *testing.T) {
	layout := localcassandra.DefaultLayout()
	layout.Dir, layout.Offset = t.TempDir(), 80
	for _, i := range []int{1, 2} {
		if err := os.MkdirAll(filepath.Join(layout.NodeDir(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	local := []string{"127.0.0.81"}
	fixed := func() *cbv1.BenchmarkRunSpec {
		return &cbv1.BenchmarkRunSpec{Writers: cbv1.WritersSpec{Duration: &metav1.Duration{Duration: time.Minute}}}
	}
	byOps := fixed()
	byOps.Writers.Duration = nil
	search := fixed()
	search.Capacity = &cbv1.CapacitySpec{}
	cases := []struct {
		name      string
		flags     disruptFlags
		spec      *cbv1.BenchmarkRunSpec
		processes bool
		hosts     []string
		want      string
	}{
		{"objective alone", disruptFlags{objective: time.Millisecond}, fixed(), false, local, "--objective-p99 is for --disrupt, which is not set"},
		{"bad step", disruptFlags{schedule: "stop-node 2 at 20s"}, fixed(), false, local, "--disrupt: step \"stop-node 2 at 20s\": node 2 is never started again"},
		{"capacity", disruptFlags{schedule: "flush 1 at 1s"}, search, false, local, "--disrupt: spec.capacity asks for a capacity search"},
		{"by operations", disruptFlags{schedule: "flush 1 at 1s"}, byOps, false, local, "--disrupt: the run has no writers.duration"},
		{"processes", disruptFlags{schedule: "flush 1 at 1s"}, fixed(), true, local, "--disrupt: needs the writers in this process (not --processes)"},
		{"negative objective", disruptFlags{schedule: "flush 1 at 1s", objective: -time.Second}, fixed(), false, local, "--objective-p99 -1s is negative"},
		{"other hosts", disruptFlags{schedule: "flush 1 at 1s"}, fixed(), false, []string{"10.0.0.1"},
			"--disrupt: the run's hosts (10.0.0.1) are none of the local cluster's nodes in " + layout.Dir + " (127.0.0.81,127.0.0.82)"},
		{"past the window", disruptFlags{schedule: "flush 1 at 1m"}, fixed(), false, local, "--disrupt: step \"flush 1 at 1m0s\" is at or past the end of the measured window (1m0s)"},
		{"not running", disruptFlags{schedule: "stop-node 2 at 20s; start-node 2 at 40s"}, fixed(), false, local,
			"--disrupt: step \"stop-node 2 at 20s\": node 2 is not a running local node (running: [])"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.flags.check(c.spec, c.processes, layout, c.hosts, "")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	var none disruptFlags
	if err := none.check(fixed(), true, layout, nil, ""); err != nil || none.steps != nil {
		t.Errorf("no --disrupt: %v, steps %v", err, none.steps)
	}
}
