package sweep

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func TestLoadOnce(t *testing.T) {
	type got struct {
		Dataset  *cbv1.DatasetSpec
		Recreate bool
	}
	for name, tc := range map[string]struct {
		loadOnce      bool
		dataset       *cbv1.DatasetSpec
		point, repeat int
		want          got
	}{
		"first run loads": {loadOnce: true, dataset: &cbv1.DatasetSpec{Rows: 1000}, want: got{&cbv1.DatasetSpec{Rows: 1000, Load: true}, true}},
		"a repeat of the first point measures": {loadOnce: true, dataset: &cbv1.DatasetSpec{Rows: 1000, Load: true}, repeat: 1,
			want: got{&cbv1.DatasetSpec{Rows: 1000}, false}},
		"a later point measures":     {loadOnce: true, dataset: &cbv1.DatasetSpec{Rows: 1000, Load: true}, point: 3, want: got{&cbv1.DatasetSpec{Rows: 1000}, false}},
		"without loadOnce as is":     {dataset: &cbv1.DatasetSpec{Rows: 1000, Load: true}, point: 3, want: got{&cbv1.DatasetSpec{Rows: 1000, Load: true}, true}},
		"loadOnce without a dataset": {loadOnce: true, point: 3, want: got{nil, true}},
	} {
		t.Run(name, func(t *testing.T) {
			sw := &cbv1.BenchmarkSweep{Spec: cbv1.BenchmarkSweepSpec{LoadOnce: tc.loadOnce}}
			spec := &cbv1.BenchmarkRunSpec{}
			spec.Schema.Recreate, spec.Workload.Dataset = true, tc.dataset
			LoadOnce(sw, spec, tc.point, tc.repeat)
			if diff := cmp.Diff(tc.want, got{spec.Workload.Dataset, spec.Schema.Recreate}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
