package history

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gonum.org/v1/gonum/stat/distuv"
)

// flat is n runs at ops ops/s and p99 µs, with noise relative noise on each, then extra runs.
func flat(n int, ops, p99, noise float64, extra ...[2]float64) Series {
	rng := rand.New(rand.NewPCG(11, 11))
	var runs []Run
	add := func(ops, p99 float64) {
		i := len(runs)
		r, _ := FromRun(result(fmt.Sprintf("e-%02d", i), i, int64(ops*(1+noise*rng.NormFloat64())), int64(p99*(1+noise*rng.NormFloat64()))), "", "")
		runs = append(runs, r)
	}
	for range n {
		add(ops, p99)
	}
	for _, e := range extra {
		add(e[0], e[1])
	}
	return Group(runs)[0]
}

func TestGate(t *testing.T) {
	cases := map[string]struct {
		series   Series
		verdict  Verdict
		findings []string // figure: how, from run
		reason   string
	}{
		"too little history": {flat(5, 10000, 3000, 0.01), TooLittleHistory, nil, "4 runs of e came before e-04; the gate needs 9"},
		"steady":             {flat(30, 10000, 3000, 0.01), Passed, nil, "no figure of e-29 is a significant regression against 29 runs before it"},
		"drop three runs ago": {flat(20, 10000, 3000, 0.01, [2]float64{9000, 3000}, [2]float64{9000, 3000}, [2]float64{9000, 3000}),
			Regressed, []string{"ops/s: change point from e-20"}, "e-22 regressed against 22 runs before it"},
		"drop long ago": {flat(20, 10000, 3000, 0.01, [2]float64{9000, 3000}, [2]float64{9000, 3000}, [2]float64{9000, 3000},
			[2]float64{9000, 3000}, [2]float64{9000, 3000}, [2]float64{9000, 3000}, [2]float64{9000, 3000}), Passed, nil, ""},
		"newest run alone": {flat(20, 10000, 3000, 0.01, [2]float64{9200, 3900}), Regressed,
			[]string{"ops/s: newest run from e-20", "write p99: newest run from e-20"}, ""},
		"an improvement": {flat(20, 10000, 3000, 0.01, [2]float64{11000, 2500}, [2]float64{11000, 2500}), Passed, nil, ""},
		// 1.5% over a p99 that never moved by more than 0.2%: significant, but within twice
		// the sketch's accuracy.
		"within the sketch's accuracy": {flat(20, 10000, 3000, 0.002, [2]float64{10000, 3045}), Passed, nil, ""},
		"beyond the sketch's accuracy": {flat(20, 10000, 3000, 0.002, [2]float64{10000, 3090}), Regressed,
			[]string{"write p99: newest run from e-20"}, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := Gate(tc.series, DefaultGate)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Findings {
				got = append(got, fmt.Sprintf("%s: %s from %s", f.Figure, f.How, f.Run))
			}
			if res.Verdict != tc.verdict || !cmp.Equal(got, tc.findings) {
				t.Errorf("verdict %q, findings %q; want %q, %q\n%+v", res.Verdict, got, tc.verdict, tc.findings, res)
			}
			if tc.reason != "" && res.Reason != tc.reason {
				t.Errorf("reason %q, want %q", res.Reason, tc.reason)
			}
		})
	}
}

func TestGateRefusesBadOptions(t *testing.T) {
	for _, o := range []GateOptions{{MinHistory: 1, Window: 5}, {MinHistory: 9, Window: 0}} {
		o.Detect = DefaultGate.Detect
		if _, err := Gate(flat(10, 1, 1, 0), o); err == nil || !strings.Contains(err.Error(), "the gate needs a history of at least 2") {
			t.Errorf("%+v: %v", o, err)
		}
	}
	if _, err := Gate(Series{Experiment: "x"}, DefaultGate); err == nil {
		t.Error("a series without runs passed")
	}
}

func TestUpperTailIsStudentsT(t *testing.T) {
	for _, nu := range []float64{2, 5, 19, 99} {
		for _, x := range []float64{-4, -1.3, 0, 0.7, 2.5, 8} {
			want := 1 - distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.CDF(x)
			if got := upperTail(x, nu); math.Abs(got-want) > 1e-12 {
				t.Errorf("P(T > %g), %g degrees of freedom: %g, gonum's distribution says %g", x, nu, got, want)
			}
		}
	}
}
