package sweep

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

func template() *cbv1.BenchmarkRunSpec {
	return &cbv1.BenchmarkRunSpec{
		DatacenterRef: &cbv1.DatacenterReference{Name: "dc1"},
		Datacenter: &cbv1.DatacenterTuning{Config: &cbv1.DatacenterConfig{
			CassandraYaml: &runtime.RawExtension{Raw: []byte(`{"concurrent_reads":64,"concurrent_writes":32}`)},
		}},
		Schema:   cbv1.SchemaSpec{Keyspace: "ks", Table: cbv1.TableSpec{Profile: cbv1.ProfileIPByCountry}},
		Workload: cbv1.WorkloadSpec{WriteRatio: 1, WriteConsistency: "LOCAL_ONE"},
		Writers: cbv1.WritersSpec{Replicas: 12, Concurrency: 1, Duration: &metav1.Duration{Duration: 10 * time.Minute},
			NodeSelector: map[string]string{"pool": "load"}},
		Connection: &cbv1.ConnectionSpec{Service: "svc"},
	}
}

func pointValues(points []Point) [][]string {
	var out [][]string
	for i, p := range points {
		if p.Index != i {
			return [][]string{{"point", "out", "of", "order"}}
		}
		out = append(out, p.Strings())
	}
	return out
}

func TestExpand(t *testing.T) {
	cases := map[string]struct {
		spec    cbv1.BenchmarkSweepSpec
		want    [][]string
		wantErr string
	}{
		"one axis": {
			spec: cbv1.BenchmarkSweepSpec{Axes: []cbv1.SweepAxis{builders.Axis("writers.replicas", 12, 24, 48, 64)}},
			want: [][]string{{"12"}, {"24"}, {"48"}, {"64"}},
		},
		"cartesian: first axis slowest": {
			spec: cbv1.BenchmarkSweepSpec{Mode: cbv1.SweepCartesian, Axes: []cbv1.SweepAxis{
				builders.Axis("writers.replicas", 1, 2),
				builders.Axis("schema.table.profile", "ip-by-country", "ip-by-city"),
				builders.Axis("workload.writeConsistency", "ONE", "QUORUM"),
			}},
			want: [][]string{
				{"1", "ip-by-country", "ONE"}, {"1", "ip-by-country", "QUORUM"},
				{"1", "ip-by-city", "ONE"}, {"1", "ip-by-city", "QUORUM"},
				{"2", "ip-by-country", "ONE"}, {"2", "ip-by-country", "QUORUM"},
				{"2", "ip-by-city", "ONE"}, {"2", "ip-by-city", "QUORUM"},
			},
		},
		"mode defaults to cartesian": {
			spec: cbv1.BenchmarkSweepSpec{Axes: []cbv1.SweepAxis{builders.Axis("a", 1, 2), builders.Axis("b", 3, 4)}},
			want: [][]string{{"1", "3"}, {"1", "4"}, {"2", "3"}, {"2", "4"}},
		},
		"zip": {
			spec: cbv1.BenchmarkSweepSpec{Mode: cbv1.SweepZip, Axes: []cbv1.SweepAxis{
				builders.Axis("datacenter.size", 4, 8, 16, 32),
				builders.Axis("writers.replicas", 4, 8, 16, 32),
			}},
			want: [][]string{{"4", "4"}, {"8", "8"}, {"16", "16"}, {"32", "32"}},
		},
		"values shown as written": {
			spec: cbv1.BenchmarkSweepSpec{Axes: []cbv1.SweepAxis{builders.Axis("schema.table", `{ "profile" : "key-value" }`, "null")}},
			want: [][]string{{`{ "profile" : "key-value" }`}, {"null"}},
		},
		"long values cut": {
			spec: cbv1.BenchmarkSweepSpec{Axes: []cbv1.SweepAxis{builders.Axis("schema.table.cql", strings.Repeat("x", 200))}},
			want: [][]string{{strings.Repeat("x", 125) + "..."}},
		},
		"zip with unequal axes": {
			spec:    cbv1.BenchmarkSweepSpec{Mode: cbv1.SweepZip, Axes: []cbv1.SweepAxis{builders.Axis("a", 1, 2), builders.Axis("b", 1)}},
			wantErr: "not what the BenchmarkSweep CRD admits",
		},
		"no axes":        {spec: cbv1.BenchmarkSweepSpec{}, wantErr: "not what the BenchmarkSweep CRD admits"},
		"axis no values": {spec: cbv1.BenchmarkSweepSpec{Axes: []cbv1.SweepAxis{builders.Axis("a")}}, wantErr: "not what the BenchmarkSweep CRD admits"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			points, err := Expand(&tc.spec)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, pointValues(points)); diff != "" {
				t.Errorf("points (-want +got):\n%s", diff)
			}
			again, _ := Expand(&tc.spec)
			if diff := cmp.Diff(pointValues(points), pointValues(again)); diff != "" {
				t.Errorf("second expansion differs:\n%s", diff)
			}
		})
	}
}

func TestApply(t *testing.T) {
	cases := map[string]struct {
		axes    []cbv1.SweepAxis
		check   func(t *testing.T, got *cbv1.BenchmarkRunSpec)
		wantErr []string
	}{
		"writer count": {
			axes: []cbv1.SweepAxis{builders.Axis("writers.replicas", 48)},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				want := template()
				want.Writers.Replicas = 48
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			},
		},
		"datacenter size where the template has none": {
			axes: []cbv1.SweepAxis{builders.Axis("datacenter.size", 8)},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				if got.Datacenter.Size == nil || *got.Datacenter.Size != 8 {
					t.Errorf("size %v", got.Datacenter.Size)
				}
			},
		},
		"a cassandra-yaml setting keeps its siblings": {
			axes: []cbv1.SweepAxis{builders.Axis("datacenter.config.cassandra-yaml.concurrent_writes", 128)},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				want := `{"concurrent_reads":64,"concurrent_writes":128}`
				if s := string(got.Datacenter.Config.CassandraYaml.Raw); s != want {
					t.Errorf("cassandra-yaml %s, want %s", s, want)
				}
			},
		},
		"a jvm option in a section the template lacks": {
			axes: []cbv1.SweepAxis{builders.Axis("datacenter.config.jvm-server-options.max_heap_size", "7G")},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				if s := string(got.Datacenter.Config.JvmServerOptions.Raw); s != `{"max_heap_size":"7G"}` {
					t.Errorf("jvm-server-options %s", s)
				}
			},
		},
		"profile and consistency": {
			axes: []cbv1.SweepAxis{builders.Axis("schema.table.profile", "ip-by-city"), builders.Axis("workload.writeConsistency", "QUORUM")},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				if got.Schema.Table.Profile != cbv1.ProfileIPByCity || got.Workload.WriteConsistency != "QUORUM" {
					t.Errorf("schema %+v workload %+v", got.Schema.Table, got.Workload)
				}
			},
		},
		"a whole object": {
			axes: []cbv1.SweepAxis{builders.Axis("schema.table", `{"cql":"CREATE TABLE t (k int PRIMARY KEY)"}`)},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				if got.Schema.Table != (cbv1.TableSpec{CQL: "CREATE TABLE t (k int PRIMARY KEY)"}) {
					t.Errorf("table %+v", got.Schema.Table)
				}
			},
		},
		"a duration": {
			axes: []cbv1.SweepAxis{builders.Axis("writers.duration", "2m")},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				if got.Writers.Duration.Duration != 2*time.Minute {
					t.Errorf("duration %v", got.Writers.Duration)
				}
			},
		},
		"null removes an object": {
			axes: []cbv1.SweepAxis{builders.Axis("connection", "null"), builders.Axis("datacenter", "null")},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				if got.Connection != nil || got.Datacenter != nil {
					t.Errorf("connection %+v datacenter %+v", got.Connection, got.Datacenter)
				}
			},
		},
		"a numeric string for an integer": {
			axes: []cbv1.SweepAxis{builders.Axis("writers.replicas", " 24")},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				if got.Writers.Replicas != 24 {
					t.Errorf("replicas %d", got.Writers.Replicas)
				}
			},
		},
		"an integer for a string": {
			axes: []cbv1.SweepAxis{builders.Axis("schema.table.profile", 7)},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				if got.Schema.Table.Profile != "7" {
					t.Errorf("profile %q", got.Schema.Table.Profile)
				}
			},
		},
		"a boolean": {
			axes: []cbv1.SweepAxis{builders.Axis("schema.recreate", "true"), builders.Axis("datacenter.keepChanges", "false")},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				if !got.Schema.Recreate || got.Datacenter.KeepChanges {
					t.Errorf("recreate %v keepChanges %v", got.Schema.Recreate, got.Datacenter.KeepChanges)
				}
			},
		},
		"a JSON list in a free-form section": {
			axes: []cbv1.SweepAxis{builders.Axis("datacenter.config.jvm17-server-options.additional-jvm-opts", `["-XX:MaxTenuringThreshold=10"]`)},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				if s := string(got.Datacenter.Config.Jvm17ServerOptions.Raw); s != `{"additional-jvm-opts":["-XX:MaxTenuringThreshold=10"]}` {
					t.Errorf("jvm17-server-options %s", s)
				}
			},
		},
		"a quantity": {
			axes: []cbv1.SweepAxis{builders.Axis("writers.resources.limits.cpu", 2), builders.Axis("writers.resources.limits.memory", "1Gi")},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				l := got.Writers.Resources.Limits
				if l.Cpu().String() != "2" || l.Memory().String() != "1Gi" {
					t.Errorf("limits %v", l)
				}
			},
		},
		"a map entry": {
			axes: []cbv1.SweepAxis{builders.Axis("writers.nodeSelector.pool", "fast")},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				if diff := cmp.Diff(map[string]string{"pool": "fast"}, got.Writers.NodeSelector); diff != "" {
					t.Error(diff)
				}
			},
		},
		"a large integer stays exact": {
			axes: []cbv1.SweepAxis{builders.Axis("workload.seed", "9007199254740993")},
			check: func(t *testing.T, got *cbv1.BenchmarkRunSpec) {
				if got.Workload.Seed != 9007199254740993 {
					t.Errorf("seed %d", got.Workload.Seed)
				}
			},
		},
		"unknown field": {
			axes:    []cbv1.SweepAxis{builders.Axis("writers.replica", 3)},
			wantErr: []string{"point 0 (writers.replica=3)", `writers.replica: writers has no field "replica"`, "replicas"},
		},
		"unknown section": {
			axes:    []cbv1.SweepAxis{builders.Axis("datacenter.config.cassandra_yaml.concurrent_writes", 64)},
			wantErr: []string{"datacenter.config.cassandra_yaml.concurrent_writes", `datacenter.config has no field "cassandra_yaml"`},
		},
		"below a scalar": {
			axes:    []cbv1.SweepAxis{builders.Axis("writers.replicas.count", 3)},
			wantErr: []string{`writers.replicas is an integer and has no field "count"`},
		},
		"below a duration": {
			axes:    []cbv1.SweepAxis{builders.Axis("writers.duration.seconds", 3)},
			wantErr: []string{`writers.duration is a duration such as "10m" and has no field "seconds"`},
		},
		"string for an integer": {
			axes:    []cbv1.SweepAxis{builders.Axis("writers.replicas", "twelve")},
			wantErr: []string{"point 0 (writers.replicas=twelve)", `writers.replicas: value twelve is not an integer: got a string`},
		},
		"fraction for an integer": {
			axes:    []cbv1.SweepAxis{builders.Axis("datacenter.size", "1.5")},
			wantErr: []string{"datacenter.size: value 1.5 is not an integer: got number 1.5"},
		},
		"overflow": {
			axes:    []cbv1.SweepAxis{builders.Axis("writers.replicas", "4294967296")},
			wantErr: []string{"writers.replicas: value 4294967296 is not an integer"},
		},
		"number for a boolean": {
			axes:    []cbv1.SweepAxis{builders.Axis("schema.recreate", 1)},
			wantErr: []string{`schema.recreate: value 1 is not true or false: write "true" or "false"`},
		},
		"number for an object": {
			axes:    []cbv1.SweepAxis{builders.Axis("schema.table", 1)},
			wantErr: []string{`schema.table: value 1 is not an object: got a number`},
		},
		"bad JSON for an object": {
			axes:    []cbv1.SweepAxis{builders.Axis("schema.table", "ip-by-city")},
			wantErr: []string{`schema.table: value ip-by-city is not an object: write it as JSON`},
		},
		"number for a duration": {
			axes:    []cbv1.SweepAxis{builders.Axis("writers.duration", 60)},
			wantErr: []string{`writers.duration: value 60 is not a duration such as "10m": got a number`},
		},
		"bad duration": {
			axes:    []cbv1.SweepAxis{builders.Axis("writers.duration", "ten minutes")},
			wantErr: []string{`writers.duration: value ten minutes is not a duration such as "10m"`, "invalid duration"},
		},
		"unknown field in an object value": {
			axes:    []cbv1.SweepAxis{builders.Axis("schema.table", `{"profil":"key-value"}`)},
			wantErr: []string{"schema.table: value", "is not an object", "profil"},
		},
		"list index in an empty list": {
			axes:    []cbv1.SweepAxis{builders.Axis("schema.columns.0.cardinality", 10)},
			wantErr: []string{"schema.columns is empty in the template"},
		},
		"list named like a field": {
			axes:    []cbv1.SweepAxis{builders.Axis("schema.columns.name", "x")},
			wantErr: []string{"schema.columns is a list; index it with a number"},
		},
		"second axis named in the error": {
			axes:    []cbv1.SweepAxis{builders.Axis("writers.replicas", 4), builders.Axis("datacenter.sise", 4)},
			wantErr: []string{"point 0 (writers.replicas=4, datacenter.sise=4)", `datacenter has no field "sise"`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			points, err := Expand(&cbv1.BenchmarkSweepSpec{Axes: tc.axes})
			if err != nil {
				t.Fatal(err)
			}
			before := template()
			got, err := Apply(before, tc.axes, points[0])
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error; got %+v", got)
				}
				for _, want := range tc.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not contain %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, got)
			if diff := cmp.Diff(template(), before); diff != "" {
				t.Errorf("template changed:\n%s", diff)
			}
		})
	}
}

func TestRunName(t *testing.T) {
	long := strings.Repeat("a", 50) + "-b.c-d"
	cases := map[string]struct {
		sweep         string
		point, repeat int
		want          string
	}{
		"short":        {sweep: "writers", point: 3, repeat: 0, want: "writers-3-0"},
		"at the limit": {sweep: strings.Repeat("x", 52), point: 1, repeat: 2, want: strings.Repeat("x", 52) + "-1-2"},
		"hashed":       {sweep: long, point: 199, repeat: 9, want: strings.Repeat("a", 41) + "-930da40c-199-9"},
		"hashed, trims a trailing dash": {sweep: strings.Repeat("a", 41) + "-" + strings.Repeat("b", 20), point: 12, repeat: 3,
			want: strings.Repeat("a", 41) + "-d1c9ddac-12-3"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := RunName(tc.sweep, tc.point, tc.repeat)
			if got != tc.want {
				t.Errorf("RunName = %q, want %q", got, tc.want)
			}
			if len(got) > MaxRunName {
				t.Errorf("%q is %d characters", got, len(got))
			}
			if again := RunName(tc.sweep, tc.point, tc.repeat); again != got {
				t.Errorf("not deterministic: %q then %q", got, again)
			}
		})
	}
	seen := map[string]bool{}
	for p := range 200 {
		for r := range 10 {
			n := RunName(long, p, r)
			if seen[n] {
				t.Fatalf("%s twice", n)
			}
			seen[n] = true
		}
	}
}

func TestChild(t *testing.T) {
	sw := builders.MakeSweep("sw", "ns").UID("uid-1").Obj()
	spec := template()
	got := Child(sw, 2, 1, spec)
	want := &cbv1.BenchmarkRun{
		TypeMeta: metav1.TypeMeta{APIVersion: "cassbench.io/v1alpha1", Kind: "BenchmarkRun"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "sw-2-1", Namespace: "ns",
			Labels: map[string]string{cbv1.SweepLabel: "sw", cbv1.SweepPointLabel: "2", cbv1.SweepRepeatLabel: "1"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "cassbench.io/v1alpha1", Kind: "BenchmarkSweep", Name: "sw",
				UID: "uid-1", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
		},
		Spec: *template(),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got.Spec.Writers.Replicas = 99
	if spec.Writers.Replicas != 12 {
		t.Error("child shares the template's memory")
	}
}
