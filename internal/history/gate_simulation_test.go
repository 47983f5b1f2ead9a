package history

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The gate as CI runs it: after every run, on the series so far. On 1,000 simulated series of
// 30 runs (as internal/changepoint's simulation makes them: throughput 10,000 ops/s with
// run-to-run noise gateNoise, a 5% drop at run c, c uniform in 10..25), the drop must fail
// the gate at one of runs c..c+4, in at least 90% of the series; and in series without change
// the gate, run after each of runs 10..30, may fail in at most 5% of the series in all.
const (
	gateSeries = 1000
	gateRuns   = 30
	gateNoise  = 0.015
	gateDrop   = 0.05
)

func simulatedSeries(rng *rand.Rand, dropAt int) Series {
	s := Series{Experiment: "sim"}
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range gateRuns {
		level := 10000.0
		if dropAt >= 0 && i >= dropAt {
			level *= 1 - gateDrop
		}
		v := level * (1 + gateNoise*rng.NormFloat64())
		s.Runs = append(s.Runs, Run{Name: fmt.Sprintf("sim-%d", i), Time: t0.Add(time.Duration(i) * 24 * time.Hour),
			Values: map[string]float64{"ops_per_second": v}})
	}
	return s
}

func prefix(s Series, n int) Series {
	return Series{Experiment: s.Experiment, Runs: s.Runs[:n]}
}

func TestGateOnSimulatedSeries(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 37))
	opt := DefaultGate
	var detected, atOnce, alarms int
	for k := range gateSeries {
		opt.Detect.Seed = uint64(k)
		c := 10 + rng.IntN(gateRuns-5-10+1)
		s := simulatedSeries(rng, c)
		for j := range 5 {
			res, err := Gate(prefix(s, c+j+1), opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict == Regressed {
				detected++
				if j == 0 {
					atOnce++
				}
				break
			}
		}
		quiet := simulatedSeries(rng, -1)
		for n := opt.MinHistory + 1; n <= gateRuns; n++ {
			res, err := Gate(prefix(quiet, n), opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict == Regressed {
				alarms++
				break
			}
		}
	}
	d, once, fa := float64(detected)/gateSeries, float64(atOnce)/gateSeries, float64(alarms)/gateSeries
	t.Logf("gate after every run, %d series of %d runs, noise %.1f%%: a 5%% drop failed it within 5 runs in %.1f%% (at the run itself in %.1f%%); series without change failed it at least once in %.1f%%",
		gateSeries, gateRuns, 100*gateNoise, 100*d, 100*once, 100*fa)
	if d < 0.90 {
		t.Errorf("the drop failed the gate within 5 runs in %.1f%% of series, want at least 90%%", 100*d)
	}
	if fa > 0.05 {
		t.Errorf("%.1f%% of series without change failed the gate at least once, want at most 5%%", 100*fa)
	}
}
