package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func TestRunSpec(t *testing.T) {
	type view struct {
		Keyspace             string
		Profile              cbv1.TableProfile
		Factor               int32
		WriteRatio, Reads    int32
		WriteCL              cbv1.ConsistencyLevel
		Concurrency, Retries int32
		Timeout              time.Duration
		Conns, Batch         int32
	}
	defaults := view{Keyspace: "cassbench", Profile: cbv1.ProfileKeyValue, Factor: 1, WriteRatio: 1, WriteCL: "LOCAL_ONE",
		Concurrency: 32, Retries: 3, Timeout: 10 * time.Second, Conns: 2, Batch: 1}
	tests := map[string]struct {
		yaml string
		want view
		err  string
	}{
		"manifest with defaults": {
			yaml: "apiVersion: cassbench.io/v1alpha1\nkind: BenchmarkRun\nmetadata: {name: x}\nspec:\n  datacenterRef: {name: dc1}\n  writers: {replicas: 2, duration: 10s}\n",
			want: defaults,
		},
		"bare spec": {
			yaml: "datacenterRef: {name: dc1}\nwriters: {replicas: 1, operations: 5}\n",
			want: defaults,
		},
		"json from the controller": {
			yaml: `{"datacenterRef":{"name":"dc1"},"writers":{"replicas":1,"duration":"1m"},"workload":{"writeRatio":3,"readRatio":1,"writeConsistency":"QUORUM"}}`,
			want: func() view { v := defaults; v.WriteRatio, v.Reads, v.WriteCL = 3, 1, "QUORUM"; return v }(),
		},
		"read only and no retries, as written": {
			yaml: "datacenterRef: {name: dc1}\nworkload: {writeRatio: 0, readRatio: 1}\nwriters: {replicas: 1, duration: 1s, retries: 0}\n",
			want: func() view { v := defaults; v.WriteRatio, v.Reads, v.Retries = 0, 1, 0; return v }(),
		},
		"reads added to the default writes": {
			yaml: "datacenterRef: {name: dc1}\nworkload: {readRatio: 1}\nwriters: {replicas: 1, duration: 1s}\n",
			want: func() view { v := defaults; v.Reads = 1; return v }(),
		},
		"typo in a field": {
			yaml: "datacenterRef: {name: dc1}\nwriters: {replicas: 1, duration: 1s, concurency: 5}\n",
			err:  `strict decoding error: unknown field "spec.writers.concurency"`,
		},
		"read limit on a row read": {
			yaml: "datacenterRef: {name: dc1}\nworkload: {readRatio: 1, readPath: row, readLimit: 5}\nwriters: {replicas: 1, duration: 1s}\n",
			err:  "workload.readLimit applies to partition and index reads",
		},
		"read limit below 1": {
			yaml: "datacenterRef: {name: dc1}\nworkload: {readRatio: 1, readLimit: -1}\nwriters: {replicas: 1, duration: 1s}\n",
			err:  "spec.workload.readLimit: Invalid value: -1: spec.workload.readLimit in body should be greater than or equal to 1",
		},
		"a DataStax system keyspace": {
			yaml: "datacenterRef: {name: dc1}\nschema: {keyspace: dse_x}\nwriters: {replicas: 1, duration: 1s}\n",
			err:  `spec.schema.keyspace: Invalid value: "dse_x": schema.keyspace must not be a system keyspace`,
		},
		"a sweep": {
			yaml: "apiVersion: cassbench.io/v1alpha1\nkind: BenchmarkSweep\nmetadata: {name: x}\nspec: {}\n",
			err:  "the file holds a BenchmarkSweep; a BenchmarkRun (or its spec) is needed",
		},
		"both bounds": {
			yaml: "datacenterRef: {name: dc1}\nwriters: {replicas: 1, duration: 1s, operations: 5}\n",
			err:  `BenchmarkRun.cassbench.io "local" is invalid: spec.writers: Invalid value: spec.writers takes exactly one of duration (e.g. 10m) or operations`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := RunSpec(context.Background(), []byte(tc.yaml))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want it to say %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := view{
				Keyspace: s.Schema.Keyspace, Profile: s.Schema.Table.Profile, Factor: s.Schema.Replication.Factor,
				WriteRatio: s.Workload.WriteRatio, Reads: s.Workload.ReadRatio, WriteCL: s.Workload.WriteConsistency,
				Concurrency: s.Writers.Concurrency, Retries: *s.Writers.Retries, Timeout: s.Writers.RequestTimeout.Duration,
				Conns: s.Writers.ConnectionsPerHost, Batch: s.Workload.BatchSize,
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			if s.Writers.Warmup == nil || s.Schema.DurableWrites == nil || !*s.Schema.DurableWrites {
				t.Errorf("warmup %v and durableWrites %v not defaulted", s.Writers.Warmup, s.Schema.DurableWrites)
			}
		})
	}
}

func TestDefaultRunSpec(t *testing.T) {
	in := &cbv1.BenchmarkRunSpec{
		DatacenterRef: &cbv1.DatacenterReference{Name: "dc1"},
		Workload:      cbv1.WorkloadSpec{ReadRatio: 1},
		Writers:       cbv1.WritersSpec{Replicas: 2},
	}
	got, err := DefaultRunSpec(in)
	if err != nil {
		t.Fatal(err)
	}
	// writeRatio 0 is sent, as a Go client would send it: only absent fields are defaulted.
	if got.Schema.Keyspace != "cassbench" || got.Workload.WriteRatio != 0 || got.Workload.ReadPath != cbv1.ReadPartition ||
		got.Writers.Concurrency != 32 || got.Writers.Retries == nil || *got.Writers.Retries != 3 {
		t.Errorf("not defaulted as the CRD says: %+v", got)
	}
	if in.Schema.Keyspace != "" {
		t.Error("DefaultRunSpec changed its argument")
	}
	if p := got.Deadlines.Prepare; p == nil || p.Duration != cbv1.DefaultPrepareDeadline {
		t.Errorf("the CRD defaults deadlines.prepare to %v, cbv1.DefaultPrepareDeadline is %s: make them agree", p, cbv1.DefaultPrepareDeadline)
	}
}

// The controller hands its pods the admitted spec as Go encodes it (internal/jobs); the pods
// admit it again. Every sample run must come through that unchanged.
func TestRunSpecReadsTheControllersEncoding(t *testing.T) {
	files, err := filepath.Glob("../../config/samples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	runs := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "kind: BenchmarkRun\n") {
			continue
		}
		runs++
		t.Run(filepath.Base(file), func(t *testing.T) {
			admitted, err := RunSpec(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			encoded, err := json.Marshal(admitted)
			if err != nil {
				t.Fatal(err)
			}
			again, err := RunSpec(context.Background(), encoded)
			if err != nil {
				t.Fatalf("the pods would refuse the spec the controller gives them: %v\n%s", err, encoded)
			}
			if diff := cmp.Diff(admitted, again); diff != "" {
				t.Errorf("spec changed on the way to the pods (-controller +pod):\n%s", diff)
			}
		})
	}
	if runs == 0 {
		t.Fatal("no BenchmarkRun sample")
	}
}

// cbv1.SystemKeyspace is the CRD's schema.keyspace rule in Go, for the keyspaces setup finds
// in CQL profiles: for every name, the CRD and the function give the same verdict.
func TestSystemKeyspaceIsTheCRDsRule(t *testing.T) {
	for _, name := range []string{"system", "System_auth", "systemic", "SYSTEM_X", "dse_x", "DSE_insights", "dse",
		"solr_admin", "Solr_Admin", "solr_admin2", "cassbench", "bench_system", "my_dse_", "s"} {
		doc := fmt.Sprintf("spec: {datacenterRef: {name: dc1}, writers: {replicas: 1, duration: 1m}, schema: {keyspace: %s}}", name)
		_, err := RunSpec(context.Background(), []byte(doc))
		refused := err != nil && strings.Contains(err.Error(), "must not be a system keyspace")
		if err != nil && !refused {
			t.Fatalf("%s: %v", name, err)
		}
		if got := cbv1.SystemKeyspace(name); got != refused {
			t.Errorf("keyspace %q: the CRD refuses it: %t, cbv1.SystemKeyspace: %t", name, refused, got)
		}
	}
}

// cbv1.ImageReference is the CRD's spec.writers.image rule in Go, for the images the
// manager's flags name: for every image, the CRD and the function give the same verdict.
func TestImageReferenceIsTheCRDsRule(t *testing.T) {
	digest := "@sha256:" + strings.Repeat("ab", 32)
	images := []string{"cassbench", "cassbench:1.4", "registry.example.com/team/cassbench:v1.4.0-rc.1",
		"registry.example.com:5000/a/b/c" + digest, "[fd00::1]:5000/cassbench", "localhost/x__y.z-w:latest",
		"x" + digest, "Registry.Example.COM/x", "registry.example.com/Team/x", "x:1:2", "x: 1", "x:" + strings.Repeat("t", 129),
		"x@sha256:abc", "x__", "-x", "x/", "/x", "x//y", "registry.example.com:port/x", "x:-1", "x:_1", "UPPER",
		strings.Repeat("ab", 32), "x" + strings.Repeat("ab", 32), "x@sha512:" + strings.Repeat("cd", 64), "x@md5:" + strings.Repeat("cd", 16),
		"x@SHA256:" + strings.Repeat("ab", 32), "[a5000]/x", "[::1]/x"}
	for _, image := range images {
		doc := fmt.Sprintf("spec: {datacenterRef: {name: dc1}, writers: {replicas: 1, duration: 1m, image: %q}}", image)
		_, err := RunSpec(context.Background(), []byte(doc))
		refused := err != nil && strings.Contains(err.Error(), "writers.image must be an image reference")
		if err != nil && !refused {
			t.Fatalf("%s: %v", image, err)
		}
		if got := cbv1.ImageReference(image); got == refused {
			t.Errorf("image %q: the CRD refuses it: %t, cbv1.ImageReference admits it: %t", image, refused, got)
		}
	}
}
