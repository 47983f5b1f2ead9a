package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/disruption"
	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/workload"
)

// disruptFlags are --disrupt and the p99 objective its figures count against.
type disruptFlags struct {
	schedule  string
	objective time.Duration
	// steps, and the run's table they flush or compact, once check accepted them.
	steps           []disruption.Step
	keyspace, table string
}

func (d *disruptFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.schedule, "disrupt", "", "faults inside the measured window on the local nodes hack/cassandra.sh runs (CASSBENCH_CASSANDRA_DIR, CASSBENCH_CASSANDRA_OFFSET): "+
		"steps \"KIND NODE at DURATION\" separated by \";\", KIND stop-node, start-node, flush or compact (of the run's table), DURATION from the window's start, "+
		"such as \"stop-node 2 at 20s; start-node 2 at 40s\"; each fault's errors and p99 recovery are printed below the table (docs/disruptions.md)")
	fs.DurationVar(&d.objective, "objective-p99", 0, "the p99 objective --disrupt counts each fault's time over against (default: none)")
}

// check refuses, naming the flag, a schedule this run cannot keep or measure: one that does
// not parse, a run whose window has no length or is a capacity search, writers in child
// processes (the window's start is told by in-process writers), steps at or past the window's
// end, and nodes that are not running nodes of the local cluster the run connects to.
func (d *disruptFlags) check(spec *cbv1.BenchmarkRunSpec, processes bool, layout localcassandra.Layout, hosts []string, datacenter string) error {
	if d.schedule == "" {
		if d.objective != 0 {
			return errors.New("--objective-p99 is for --disrupt, which is not set")
		}
		return nil
	}
	steps, err := disruption.Parse(d.schedule)
	if err != nil {
		return fmt.Errorf("--disrupt: %w", err)
	}
	var window time.Duration
	if spec.Writers.Duration != nil {
		window = spec.Writers.Duration.Duration
	}
	switch {
	case d.objective < 0:
		return fmt.Errorf("--objective-p99 %s is negative", d.objective)
	case spec.Capacity != nil:
		return errors.New("--disrupt: spec.capacity asks for a capacity search, whose steps each judge the objective; a fault inside one would be judged as the rate's: disrupt a fixed-rate run")
	case window <= 0:
		return errors.New("--disrupt: the run has no writers.duration (it is bounded by operations), so its window has no times to place faults at")
	case processes:
		return errors.New("--disrupt: needs the writers in this process (not --processes), which tell it when the window starts")
	}
	if err := localHosts(layout, hosts); err != nil {
		return fmt.Errorf("--disrupt: %w", err)
	}
	if err := disruption.Check(steps, window, layout.RunningNodes()); err != nil {
		return fmt.Errorf("--disrupt: %w", err)
	}
	schema, err := workload.BuildSchema(spec, datacenter)
	if err != nil {
		return fmt.Errorf("--disrupt: the run's table: %w", err)
	}
	d.steps, d.keyspace, d.table = steps, schema.Keyspace, schema.Table
	return nil
}

// localHosts checks that the run connects to the local cluster of layout: only its nodes can
// be stopped and started.
func localHosts(layout localcassandra.Layout, hosts []string) error {
	var local []string
	for _, i := range layout.KnownNodes() {
		local = append(local, layout.NodeIP(i))
	}
	for _, h := range hosts {
		if slices.Contains(local, h) {
			return nil
		}
	}
	return fmt.Errorf("the run's hosts (%s) are none of the local cluster's nodes in %s (%s): only those can be disrupted; set CASSBENCH_CASSANDRA_DIR and CASSBENCH_CASSANDRA_OFFSET to the cluster's",
		strings.Join(hosts, ","), layout.Dir, strings.Join(local, ","))
}

// start begins keeping the schedule once the writers' window starts; nil (which does
// nothing) without --disrupt.
func (d *disruptFlags) start(ctx context.Context) *disruptor {
	if len(d.steps) == 0 {
		return nil
	}
	return newDisruptor(ctx, localcassandra.DefaultLayout(), d.steps, d.keyspace, d.table, os.Stderr)
}
