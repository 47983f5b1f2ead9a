package workload

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// RowKeyCQL selects a row by its whole primary key, partition and clustering columns, and
// RowKey names the insert values that bind it.
func TestRowKeyCQLSelectsTheRowByItsPrimaryKey(t *testing.T) {
	for name, tc := range map[string]struct {
		spec *cbv1.BenchmarkRunSpec
		cql  string
		key  []int
	}{
		"partition key alone": {specOf(table("CREATE TABLE t (k bigint PRIMARY KEY, v blob)")), "select k from cassbench.t where k = ?", []int{0}},
		"clustering after the value": {specOf(table("CREATE TABLE t (v text, a int, b int, c int, PRIMARY KEY ((b, a), c))")),
			"select b from cassbench.t where b = ? and a = ? and c = ?", []int{2, 1, 3}},
	} {
		t.Run(name, func(t *testing.T) {
			g := mustGenerator(tc.spec, 0, 1)
			if diff := cmp.Diff(tc.cql, g.RowKeyCQL()); diff != "" {
				t.Errorf("RowKeyCQL (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.key, g.RowKey()); diff != "" {
				t.Errorf("RowKey (-want +got):\n%s", diff)
			}
		})
	}
}
