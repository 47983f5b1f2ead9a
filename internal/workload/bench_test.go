package workload

import (
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func BenchmarkRow(b *testing.B) {
	for _, p := range allProfiles {
		b.Run(string(p), func(b *testing.B) {
			g := mustGenerator(specOf(withProfile(p)), 3, 8)
			row := make([]any, g.InsertArity())
			bytes := 0
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				bytes += g.Row(int64(i), row)
			}
			b.SetBytes(int64(bytes / max(b.N, 1)))
		})
	}
}

func BenchmarkReadArgs(b *testing.B) {
	cases := map[string]*cbv1.BenchmarkRunSpec{
		"key-value/uniform": specOf(mixOf(1, 1)),
		"key-value/zipf":    specOf(mixOf(1, 1), partitions(0, cbv1.DistributionZipf)),
		"user-wide/index":   specOf(withProfile(cbv1.ProfileUserWide), mixOf(1, 1), readPath(cbv1.ReadIndex), indexes("userid")),
		"ip-by-city/row":    specOf(withProfile(cbv1.ProfileIPByCity), mixOf(1, 1), readPath(cbv1.ReadRow)),
	}
	for name, spec := range cases {
		b.Run(name, func(b *testing.B) {
			g := mustGenerator(spec, 3, 8)
			args := make([]any, g.ReadArity())
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				g.ReadArgs(int64(i), args)
			}
		})
	}
}

func BenchmarkNewGenerator(b *testing.B) {
	spec := specOf(withProfile(cbv1.ProfileUserWide))
	b.ReportAllocs()
	for b.Loop() {
		mustGenerator(spec, 0, 1)
	}
}
