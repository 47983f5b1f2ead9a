package changepoint

import (
	"math/rand/v2"
	"os"
	"testing"
)

// The evidence that the detection is fit for a CI gate on throughput (issue 37): on 1,000
// simulated series of 30 runs, a 5% drop must be found within 5 runs in at least 90% of the
// series, and at most 5% of the series with no change may raise any alarm.
//
// How the series are made: run i's throughput is 10,000 ops/s times (1 + noise·e_i), e_i
// independent standard normal draws, noise = simulatedNoise (the run-to-run coefficient of
// variation; why that value is in docs/gitops.md#how-much-noise). A series with a change drops
// to 95% from run c on, c uniform in 10..25 so that at least 10 runs come before it and 5
// after. What CI would have seen 5 runs after the change is the first c+5 runs: the drop is
// detected when Detect, given those, reports a drop at a run within 2 of c. A series without
// a change raises an alarm when Detect, given all 30 runs, reports any change.
const (
	simulatedSeries = 1000
	simulatedRuns   = 30
	simulatedDrop   = 0.05
	simulatedNoise  = 0.015
	runsAfter       = 5
	placeTolerance  = 2
)

type rates struct {
	detected, falseAlarms float64
}

func simulate(noise float64, series int, opt Options, seed uint64) rates {
	rng := rand.New(rand.NewPCG(seed, 1))
	var detected, alarms int
	for k := range series {
		opt.Seed = uint64(k)
		c := dropRun(rng)
		changes, err := Detect(draw(rng, noise, c+runsAfter, c), opt)
		if err != nil {
			panic(err)
		}
		for _, ch := range changes {
			if ch.Relative() < 0 && abs(ch.Index-c) <= placeTolerance {
				detected++
				break
			}
		}
		if changes, _ := Detect(draw(rng, noise, simulatedRuns, -1), opt); len(changes) > 0 {
			alarms++
		}
	}
	return rates{float64(detected) / float64(series), float64(alarms) / float64(series)}
}

// dropRun is where a simulated drop happens: at least 10 runs before it and 5 after.
func dropRun(rng *rand.Rand) int {
	return 10 + rng.IntN(simulatedRuns-runsAfter-10+1)
}

// draw makes a simulated series of n runs that drops by simulatedDrop from run dropAt on
// (never, if dropAt < 0).
func draw(rng *rand.Rand, noise float64, n, dropAt int) []float64 {
	s := make([]float64, n)
	for i := range s {
		level := 10000.0
		if dropAt >= 0 && i >= dropAt {
			level *= 1 - simulatedDrop
		}
		s[i] = level * (1 + noise*rng.NormFloat64())
	}
	return s
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

func TestSimulatedFivePercentDrop(t *testing.T) {
	r := simulate(simulatedNoise, simulatedSeries, Defaults, 2026)
	t.Logf("%d series of %d runs, noise %.1f%%, %.0f%% drop: detected within %d runs in %.1f%%, false alarms in %.1f%% of series without change",
		simulatedSeries, simulatedRuns, 100*simulatedNoise, 100*simulatedDrop, runsAfter, 100*r.detected, 100*r.falseAlarms)
	if r.detected < 0.90 {
		t.Errorf("detected %.1f%% of the drops within %d runs, want at least 90%%", 100*r.detected, runsAfter)
	}
	if r.falseAlarms > 0.05 {
		t.Errorf("false alarms in %.1f%% of the series without change, want at most 5%%", 100*r.falseAlarms)
	}
}

// TestSimulatedNoiseSweep prints how detection depends on the noise (CASSBENCH_SWEEP=1): the
// table in docs/gitops.md.
func TestSimulatedNoiseSweep(t *testing.T) {
	if os.Getenv("CASSBENCH_SWEEP") == "" {
		t.Skip("set CASSBENCH_SWEEP=1 to print detection against noise")
	}
	last := 1.0
	for _, noise := range []float64{0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05} {
		r := simulate(noise, simulatedSeries, Defaults, 2026)
		t.Logf("noise %.1f%%: detected %.1f%%, false alarms %.1f%%", 100*noise, 100*r.detected, 100*r.falseAlarms)
		if r.detected > last {
			t.Errorf("more noise, more detections: %.1f%% at noise %.1f%%", 100*r.detected, 100*noise)
		}
		last = r.detected
	}
}
