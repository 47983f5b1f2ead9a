package sketch

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/DataDog/sketches-go/ddsketch"
)

// The library this package follows answers the same quantiles on the same data, within the
// accuracy both promise, and its own compact encoding is compared here with ours: the figures
// behind the choice made in the package comment.
func TestAgreesWithDDSketch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	values := append(lognormal(r, 30000, 1500, 2), lognormal(r, 300, 3e6, 0.4)...)
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	ours := New()
	theirs, err := ddsketch.LogCollapsingLowestDenseDDSketch(Accuracy, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		ours.Add(v)
		if err := theirs.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		exact := exactQuantile(sorted, q)
		want, err := theirs.GetValueAtQuantile(q)
		if err != nil {
			t.Fatal(err)
		}
		got := ours.Quantile(q)
		for name, v := range map[string]float64{"ours": got, "sketches-go": want} {
			if rel := math.Abs(v-exact) / exact; rel > Accuracy+1e-9 {
				t.Errorf("q%v: %s %.1f, exact %.1f (relative error %.4f)", q, name, v, exact, rel)
			}
		}
		if rel := math.Abs(got-want) / want; rel > 2*Accuracy {
			t.Errorf("q%v: ours %.1f, sketches-go %.1f", q, got, want)
		}
	}
	var lib []byte
	theirs.Encode(&lib, true)
	own, _ := ours.MarshalBinary()
	t.Logf("wide distribution, %d values: %d bytes here, %d bytes in sketches-go's encoding", len(values), len(own), len(lib))
}
