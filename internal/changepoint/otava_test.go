package changepoint

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cassbench/cassbench/internal/testutil/oracle"
)

type otavaResult struct {
	First struct {
		Index int     `json:"index"`
		Q     float64 `json:"q"`
	} `json:"first"`
	Changes []struct {
		Index  int     `json:"index"`
		Q      float64 `json:"q"`
		PValue float64 `json:"pvalue"`
	} `json:"changes"`
}

// otava runs Apache Otava (pinned in hack/oracle-venv.sh, which installs it from PyPI into a
// cached virtual environment) on the series.
func otava(t *testing.T, opt Options, series [][]float64) []otavaResult {
	t.Helper()
	venv := oracle.Venv(t, "apache-otava")
	in, _ := json.Marshal(map[string]any{"alpha": opt.Alpha, "permutations": opt.Permutations, "series": series})
	cmd := exec.Command(filepath.Join(venv, "bin", "python"), "testdata/otava_oracle.py")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("running Otava: %v\n%s", err, stderr.String())
	}
	var res []otavaResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("reading Otava's answer: %v", err)
	}
	if len(res) != len(series) {
		t.Fatalf("Otava answered for %d series of %d", len(res), len(series))
	}
	return res
}

// TestOtavaFindsTheSameChanges runs Apache Otava's own E-divisive means on a sample of the
// simulated series (simulation_test.go) and a few with several changes. The strongest split of
// each series is deterministic, and must be the same run with the same statistic. The change
// points both keep depend on each side's random permutations, so they may differ where a
// p-value is close to alpha: all but a few series must agree exactly.
func TestOtavaFindsTheSameChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 37))
	var series [][]float64
	for range 20 {
		c := dropRun(rng)
		series = append(series, draw(rng, simulatedNoise, c+runsAfter, c), draw(rng, simulatedNoise, simulatedRuns, -1))
	}
	for range 10 {
		s := steps(rng, 0.01, [2]float64{5000, float64(8 + rng.IntN(10))}, [2]float64{4700, float64(8 + rng.IntN(10))},
			[2]float64{5200, float64(8 + rng.IntN(10))})
		series = append(series, s)
	}
	// 50 series and 199 permutations rather than 499 keep Otava's share of the test near 15 s
	// on an idle machine.
	opt := Options{Alpha: Defaults.Alpha, Permutations: 199}
	want := otava(t, opt, series)
	agree := 0
	for k, s := range series {
		opt.Seed = uint64(k)
		got, err := Detect(s, opt)
		if err != nil {
			t.Fatal(err)
		}
		first := bestInSegment(s, make([]float64, (len(s)+1)*(len(s)+1)))
		if first.tau != want[k].First.Index || math.Abs(first.q-want[k].First.Q) > 1e-9*math.Abs(want[k].First.Q) {
			t.Errorf("series %d: strongest split at %d (q %.6g), Otava's at %d (q %.6g)", k, first.tau, first.q,
				want[k].First.Index, want[k].First.Q)
		}
		var ours, theirs []int
		for _, c := range got {
			ours = append(ours, c.Index)
		}
		for _, c := range want[k].Changes {
			theirs = append(theirs, c.Index)
		}
		slices.Sort(theirs)
		if slices.Equal(ours, theirs) {
			agree++
		} else {
			t.Logf("series %d: changes at %v, Otava's at %v (%+v)", k, ours, theirs, want[k].Changes)
		}
	}
	t.Logf("Otava found the same change points in %d of %d series", agree, len(series))
	if agree < len(series)*95/100 {
		t.Errorf("Otava found the same change points in only %d of %d series", agree, len(series))
	}
}
