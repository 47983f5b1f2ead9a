package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/admission"
	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/scale"
	"github.com/cassbench/cassbench/internal/sweep"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

// samplesScale is the factor the all-samples test runs at: 50 million operations become
// 2500, a 10-minute window the 2-second floor.
const samplesScale = 0.00005

// samplesKeyspacePrefix keeps this test's keyspaces apart from the samples' own and from
// other tests sharing the cluster.
const samplesKeyspacePrefix = "smpl_"

// sampleRun is one run of a sample: a BenchmarkRun, or one point of a BenchmarkSweep.
type sampleRun struct {
	name string
	spec *cbv1.BenchmarkRunSpec
}

// Every sample runs to completion through `cassbench run --scale`, on the local nodes, in the
// order an experimenter would run them: runs that create their keyspace before runs that
// measure one a previous sample loaded (schema.recreate: false). A run that only reads must
// find every row it looks for.
func TestEverySampleRunsScaledDown(t *testing.T) {
	c := cassandra.Start(t, cassandra.Options{Nodes: 2, Auth: true})
	runs := sampleRuns(t, int32(len(c.Hosts)))
	keyspaces := map[string]bool{}
	for _, r := range runs {
		keyspaces[r.spec.Schema.Keyspace] = true
	}
	s, err := cql.Connect(cql.Options{Hosts: c.Hosts, Port: c.Port, Username: c.Username, Password: c.Password, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	dropAll := func() {
		for ks := range keyspaces {
			if err := s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
				t.Errorf("dropping %s: %v", ks, err)
			}
		}
	}
	dropAll()
	t.Cleanup(func() {
		dropAll()
		s.Close()
		// Every recreating run left a snapshot of what it dropped on each node (auto_snapshot).
		names := slices.Sorted(maps.Keys(keyspaces))
		for i := range c.Hosts {
			var out bytes.Buffer
			args := append([]string{"clearsnapshot", "--all", "--"}, names...)
			if err := localcassandra.New(nil).Nodetool(context.Background(), i+1, &out, &out, args...); err != nil {
				t.Logf("clearing the test's snapshots on node %d: %v: %s", i+1, err, out.String())
			}
		}
	})

	dir := t.TempDir()
	start := time.Now()
	// Keyspaces are independent: their runs go in parallel, one keyspace's in order. Setup
	// (DDL and schema agreement) and the writers' start barrier are most of a scaled run's
	// time, and they wait rather than compute.
	// Goroutines rather than t.Parallel, which runs only GOMAXPROCS subtests at once; at most
	// three keyspaces at a time all the same: with every keyspace's writers (some 150) opening
	// their sessions at once, two local nodes sharing two cores with the other packages' tests
	// left connection handshakes unanswered for over 10 s in CI, and whole runs failed.
	t.Run("keyspaces", func(t *testing.T) {
		var wg sync.WaitGroup
		defer wg.Wait()
		slots := make(chan struct{}, 3)
		for _, group := range byKeyspace(runs) {
			wg.Go(func() {
				slots <- struct{}{}
				defer func() { <-slots }()
				t.Run(group[0].spec.Schema.Keyspace, func(t *testing.T) {
					broken := false
					for _, r := range group {
						if broken && !r.spec.Schema.Recreate {
							t.Errorf("%s not run: it measures what a failed run of its keyspace loaded", r.name)
							continue
						}
						broken = !runSample(t, c, dir, r) || broken
					}
				})
			})
		}
	})
	t.Logf("%d sample runs at scale %g in %s", len(runs), samplesScale, time.Since(start).Round(time.Second))
}

// byKeyspace groups runs by keyspace, keeping their order.
func byKeyspace(runs []sampleRun) [][]sampleRun {
	var groups [][]sampleRun
	at := map[string]int{}
	for _, r := range runs {
		ks := r.spec.Schema.Keyspace
		i, ok := at[ks]
		if !ok {
			i = len(groups)
			at[ks] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	return groups
}

// runSample runs one sample through `cassbench run --scale` and checks its results.
func runSample(t *testing.T, c *cassandra.Cluster, dir string, r sampleRun) bool {
	return t.Run(r.name, func(t *testing.T) {
		data, err := json.Marshal(r.spec)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, r.name+".json")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		var out bytes.Buffer
		args := []string{"-f", file, "-o", "json",
			"--scale", strconv.FormatFloat(samplesScale, 'g', -1, 64),
			"--hosts", strings.Join(c.Hosts, ","), "--port", strconv.Itoa(c.Port),
			"--username", c.Username, "--password", c.Password}
		if src := r.spec.Schema.CSV; src != nil {
			args = append(args, "--csv-file", sampleCSV(t, dir, src))
		}
		code := runMain(context.Background(), args, &out)
		obj, err := report.Read(&out)
		if code != 0 {
			why := fmt.Sprintf("no results to say why (%v)", err)
			if err == nil {
				if c := meta.FindStatusCondition(obj.(*cbv1.BenchmarkRun).Status.Conditions, cbv1.ConditionSucceeded); c != nil {
					why = c.Message
				}
			}
			t.Fatalf("cassbench run --scale %g exited %d: %s", samplesScale, code, why)
		}
		if err != nil {
			t.Fatalf("reading the results cassbench run wrote: %v", err)
		}
		res := obj.(*cbv1.BenchmarkRun).Status.Results
		if res == nil || res.Operations == 0 {
			t.Fatalf("no operations measured: %+v", res)
		}
		// Runs of workload.operations alone may find nothing (a scan of a partition nobody
		// wrote succeeds with no row): what they did is checked by internal/writer's tests.
		if w := r.spec.Workload; w.WriteRatio == 0 && w.ReadRatio > 0 {
			if res.Reads == nil || res.Reads.Rows == 0 {
				t.Errorf("a read-only run on a loaded keyspace read no rows: %+v", res.Reads)
			} else if res.Reads.Misses != 0 {
				t.Errorf("a read-only run on a loaded keyspace missed %d of %d reads", res.Reads.Misses, res.Reads.Operations)
			}
		}
		t.Logf("%d operations, %d ops/s, %d failed, in %s", res.Operations, res.OpsPerSecond,
			failed(res.Writes)+failed(res.Reads), time.Since(began).Round(time.Millisecond))
	})
}

func failed(o *cbv1.OperationResults) int64 {
	if o == nil {
		return 0
	}
	return o.Failed
}

// sampleRuns reads every BenchmarkRun and BenchmarkSweep of config/samples, a sweep as one run
// per point (repeats left out), in a test keyspace of its own, each distinct run once.
func sampleRuns(t *testing.T, nodes int32) []sampleRun {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "config", "samples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	admitter, err := admission.Default()
	if err != nil {
		t.Fatal(err)
	}
	var runs []sampleRun
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(file), ".yaml")
		// Defaulted as the API server stores it, so that what the sample leaves out is what
		// the CRD sets, as for a sweep's children.
		obj, err := admitter.Admit(context.Background(), data)
		if errors.Is(err, admission.ErrOtherKind) {
			continue // the CassandraDatacenter for kind
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		switch obj.GetKind() {
		case "BenchmarkRun":
			var run cbv1.BenchmarkRun
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &run); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if len(run.Spec.Datacenters) > 0 {
				// Across datacenters: cassbench run places no writers per datacenter and
				// refuses such a spec; TestSamplesAreAccepted admits it.
				continue
			}
			runs = append(runs, sampleRun{name: base, spec: &run.Spec})
		case "BenchmarkSweep":
			var sw cbv1.BenchmarkSweep
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &sw); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			points, err := sweep.Expand(&sw.Spec)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			for i, p := range points {
				spec, err := sweep.Apply(&sw.Spec.Template, sw.Spec.Axes, p)
				if err != nil {
					t.Fatalf("%s point %d: %v", file, i, err)
				}
				sweep.LoadOnce(&sw, spec, p.Index, 0)
				runs = append(runs, sampleRun{name: base + "-" + strconv.Itoa(i), spec: spec})
			}
		}
	}
	for _, r := range runs {
		ks := r.spec.Schema.Keyspace
		if ks == "" {
			ks = "cassbench"
		}
		r.spec.Schema.Keyspace = samplesKeyspacePrefix + ks
	}
	// Runs that load their keyspace first, then those measuring what an earlier one loaded.
	sort.SliceStable(runs, func(i, j int) bool {
		return runs[i].spec.Schema.Recreate && !runs[j].spec.Schema.Recreate
	})
	return distinct(t, runs, nodes)
}

// distinct leaves out runs that are the same as an earlier one once scaled: sweep points
// that differ only in datacenter settings (sweep-heap), or a sweep's point that is another
// sample (sweep-writer-count's points are writers-12 .. writers-64).
func distinct(t *testing.T, runs []sampleRun, nodes int32) []sampleRun {
	t.Helper()
	seen := map[string]string{}
	var out []sampleRun
	for _, r := range runs {
		scaled, _, err := scale.Spec(r.spec, samplesScale, nodes)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		key, err := json.Marshal(scaled)
		if err != nil {
			t.Fatal(err)
		}
		if first, ok := seen[string(key)]; ok {
			t.Logf("%s runs as %s once scaled", r.name, first)
			continue
		}
		seen[string(key)] = r.name
		out = append(out, r)
	}
	return out
}
