package dataset

import (
	"strings"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/workload"
)

func specWith(seed int64, rows int64, partitions int64) *cbv1.BenchmarkRunSpec {
	s := &cbv1.BenchmarkRunSpec{}
	s.Schema.Table.Profile = cbv1.ProfileKeyValue
	s.Workload.Seed, s.Workload.Partitions = seed, partitions
	s.Workload.Dataset = &cbv1.DatasetSpec{Rows: rows}
	return s
}

// entries is the record of a dataset loaded by writers writers with spec.
func entries(spec *cbv1.BenchmarkRunSpec, writers int32, rows int64) []Entry {
	out := make([]Entry, writers)
	for i := range out {
		share := rows / int64(writers)
		if int64(i) < rows%int64(writers) {
			share++
		}
		out[i] = Entry{Writer: int32(i), Writers: writers, Rows: share, Fields: FieldMap(workload.DatasetFields(spec))}
	}
	return out
}

func TestCheckNamesEveryDifference(t *testing.T) {
	loaded := specWith(7, 1000, 0)
	rec := entries(loaded, 3, 1000)
	for name, tc := range map[string]struct {
		want    *cbv1.BenchmarkRunSpec
		entries []Entry
		err     []string // all must appear; none means the record matches
	}{
		"same spec":       {want: specWith(7, 1000, 0), entries: rec},
		"other seed":      {want: specWith(8, 1000, 0), entries: rec, err: []string{"workload.seed 7 where this run has 8"}},
		"other rows":      {want: specWith(7, 2000, 0), entries: rec, err: []string{"1000 rows where workload.dataset.rows is 2000"}},
		"several at once": {want: specWith(8, 1000, 50), entries: rec, err: []string{"workload.seed 7 where this run has 8", "workload.partitions 0 where this run has 50"}},
		"zipf reads of a uniform load": {want: func() *cbv1.BenchmarkRunSpec {
			s := specWith(7, 1000, 0)
			s.Workload.KeyDistribution, s.Workload.KeyZipfExponent = cbv1.DistributionZipf, "0.9"
			return s
		}(), entries: rec},
		"other partition skew": {want: func() *cbv1.BenchmarkRunSpec {
			s := specWith(7, 1000, 50)
			s.Workload.KeyDistribution = cbv1.DistributionZipf
			return s
		}(), entries: entries(specWith(7, 1000, 50), 3, 1000), err: []string{"workload.keyDistribution uniform where this run has zipf"}},
		"no record":       {want: specWith(7, 1000, 0), err: []string{"keyspace ks holds no dataset of table key_value: load it first"}},
		"unfinished load": {want: specWith(7, 1000, 0), entries: rec[:2], err: []string{"that 2 of its 3 loading writers finished"}},
	} {
		t.Run(name, func(t *testing.T) {
			loaders, err := Check(WantOf(tc.want, "ks", "key_value"), tc.entries)
			if len(tc.err) == 0 {
				if err != nil || loaders != 3 {
					t.Fatalf("Check = %d, %v; want 3 loaders", loaders, err)
				}
				return
			}
			if err == nil {
				t.Fatal("the record was taken")
			}
			for _, e := range tc.err {
				if !strings.Contains(err.Error(), e) {
					t.Errorf("error %q does not say %q", err, e)
				}
			}
		})
	}
}
