package workload

import (
	"fmt"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/admission"
)

// specOf builds a spec from edits and applies the CRD's defaults to it, as admission would.
// Writes weigh 1 unless an edit says otherwise: a Go client sends writeRatio as it is once any
// workload field is set.
func specOf(edits ...func(*cbv1.BenchmarkRunSpec)) *cbv1.BenchmarkRunSpec {
	s := &cbv1.BenchmarkRunSpec{}
	s.Workload.WriteRatio = 1
	for _, e := range edits {
		e(s)
	}
	defaulted, err := admission.DefaultRunSpec(s)
	if err != nil {
		panic(err)
	}
	return defaulted
}

func withProfile(p cbv1.TableProfile) func(*cbv1.BenchmarkRunSpec) {
	return func(s *cbv1.BenchmarkRunSpec) { s.Schema.Table.Profile = p }
}

func table(cql string) func(*cbv1.BenchmarkRunSpec) {
	return func(s *cbv1.BenchmarkRunSpec) { s.Schema.Table.CQL = cql }
}

func mixOf(writes, reads int32) func(*cbv1.BenchmarkRunSpec) {
	return func(s *cbv1.BenchmarkRunSpec) { s.Workload.WriteRatio, s.Workload.ReadRatio = writes, reads }
}

func partitions(p int64, d cbv1.Distribution) func(*cbv1.BenchmarkRunSpec) {
	return func(s *cbv1.BenchmarkRunSpec) { s.Workload.Partitions, s.Workload.KeyDistribution = p, d }
}

func rowsPerPartition(r int32) func(*cbv1.BenchmarkRunSpec) {
	return func(s *cbv1.BenchmarkRunSpec) { s.Workload.RowsPerPartition = r }
}

func readPath(p cbv1.ReadPath) func(*cbv1.BenchmarkRunSpec) {
	return func(s *cbv1.BenchmarkRunSpec) { s.Workload.ReadPath = p }
}

func readLimit(n int32) func(*cbv1.BenchmarkRunSpec) {
	return func(s *cbv1.BenchmarkRunSpec) { s.Workload.ReadLimit = n }
}

func indexes(cols ...string) func(*cbv1.BenchmarkRunSpec) {
	return func(s *cbv1.BenchmarkRunSpec) {
		for _, c := range cols {
			kind := "secondary"
			if name, ok := strings.CutSuffix(c, ":sai"); ok {
				c, kind = name, "sai"
			}
			s.Schema.Indexes = append(s.Schema.Indexes, cbv1.Index{Column: c, Kind: kind})
		}
	}
}

func columns(gens ...cbv1.ColumnGenerator) func(*cbv1.BenchmarkRunSpec) {
	return func(s *cbv1.BenchmarkRunSpec) { s.Schema.Columns = append(s.Schema.Columns, gens...) }
}

func ptr[T any](v T) *T { return &v }

var allProfiles = []cbv1.TableProfile{
	cbv1.ProfileKeyValue, cbv1.ProfileIPByCountry, cbv1.ProfileIPByCity,
	cbv1.ProfileRevisions, cbv1.ProfileUserProfile, cbv1.ProfileUserWide,
}

// keyOf renders the primary-key values of a row, the identity of the row in Cassandra.
func keyOf(g *Generator, row []any) string {
	var b strings.Builder
	for i, c := range g.cols {
		if c.isKey {
			fmt.Fprintf(&b, "%v|", row[i])
		}
	}
	return b.String()
}

func mustGenerator(spec *cbv1.BenchmarkRunSpec, index, writers int32) *Generator {
	g, err := NewGenerator(spec, index, writers)
	if err != nil {
		panic(err)
	}
	return g
}
