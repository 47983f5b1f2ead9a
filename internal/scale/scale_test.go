package scale

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func ptr[T any](v T) *T { return &v }

func base() *cbv1.BenchmarkRunSpec {
	return &cbv1.BenchmarkRunSpec{
		Datacenter: &cbv1.DatacenterTuning{Size: ptr(int32(3))},
		Schema:     cbv1.SchemaSpec{Keyspace: "ks", Replication: cbv1.Replication{Strategy: cbv1.SimpleStrategy, Factor: 3}},
		Workload:   cbv1.WorkloadSpec{WriteRatio: 1, WriteConsistency: "QUORUM", ReadConsistency: "ONE", RowsPerPartition: 1},
		Writers:    cbv1.WritersSpec{Replicas: 10, Concurrency: 100, Warmup: &metav1.Duration{}},
	}
}

func TestSpec(t *testing.T) {
	cases := map[string]struct {
		edit   func(*cbv1.BenchmarkRunSpec)
		factor float64
		nodes  int32
		want   func(*cbv1.BenchmarkRunSpec)
	}{
		"operations and replication": {
			edit:   func(s *cbv1.BenchmarkRunSpec) { s.Writers.Operations = ptr(int64(50_000_000)) },
			factor: 0.001, nodes: 2,
			want: func(s *cbv1.BenchmarkRunSpec) {
				s.Datacenter = nil
				s.Writers.Operations = ptr(int64(50_000))
				s.Schema.Replication.Factor = 2
			},
		},
		"duration floors, warm-up scales, rate keeps one op/s per writer, a 10 ms timeout becomes 10 s": {
			edit: func(s *cbv1.BenchmarkRunSpec) {
				s.Writers.Duration = &metav1.Duration{Duration: 20 * time.Minute}
				s.Writers.Warmup = &metav1.Duration{Duration: 2 * time.Minute}
				s.Writers.Rate = ptr(int64(7000))
				s.Writers.RequestTimeout = &metav1.Duration{Duration: 10 * time.Millisecond}
			},
			factor: 0.001, nodes: 3,
			want: func(s *cbv1.BenchmarkRunSpec) {
				s.Datacenter = nil
				s.Writers.Duration = &metav1.Duration{Duration: MinDuration}
				s.Writers.Warmup = &metav1.Duration{Duration: 120 * time.Millisecond}
				s.Writers.Rate = ptr(int64(10))
				s.Writers.RequestTimeout = &metav1.Duration{Duration: MinRequestTimeout}
			},
		},
		"dataset rows, whatever the writer count": {
			edit: func(s *cbv1.BenchmarkRunSpec) {
				s.Workload.Dataset = &cbv1.DatasetSpec{Rows: 2_000_000, Load: true}
				s.Writers.Replicas = 64
			},
			factor: 0.00005, nodes: 3,
			want: func(s *cbv1.BenchmarkRunSpec) {
				s.Datacenter = nil
				s.Workload.Dataset = &cbv1.DatasetSpec{Rows: 100, Load: true}
			},
		},
		"partitions and rows per partition": {
			edit: func(s *cbv1.BenchmarkRunSpec) {
				s.Workload.Partitions = 10_000_000
				s.Workload.RowsPerPartition = 5000
				s.Writers.Operations = ptr(int64(100))
			},
			factor: 0.001, nodes: 3,
			want: func(s *cbv1.BenchmarkRunSpec) {
				s.Datacenter = nil
				s.Workload.Partitions = 10_000
				s.Workload.RowsPerPartition = 5
				s.Writers.Operations = ptr(int64(10))
			},
		},
		"TWO on one node becomes ONE": {
			edit: func(s *cbv1.BenchmarkRunSpec) {
				s.Schema.Replication.Factor = 2
				s.Workload.WriteConsistency = "TWO"
				s.Writers.Operations = ptr(int64(1000))
			},
			factor: 1, nodes: 1,
			want: func(s *cbv1.BenchmarkRunSpec) {
				s.Datacenter = nil
				s.Schema.Replication.Factor = 1
				s.Workload.WriteConsistency = "ONE"
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := base()
			tc.edit(in)
			want := in.DeepCopy()
			tc.want(want)
			got, notes, err := Spec(in, tc.factor, tc.nodes)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("scaled spec (-want +got):\n%s\nnotes:\n%s", d, strings.Join(notes, "\n"))
			}
			if in.Datacenter == nil {
				t.Error("Spec changed its input")
			}
		})
	}
}

func TestSpecRefusesBadFactors(t *testing.T) {
	for _, f := range []float64{0, -1, 1.5} {
		if _, _, err := Spec(base(), f, 1); err == nil {
			t.Errorf("factor %v accepted", f)
		}
	}
}
