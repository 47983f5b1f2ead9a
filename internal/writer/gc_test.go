package writer

import (
	"runtime/debug"
	"testing"
)

func TestGCHeadroomCoversEveryLoadsRequestsInFlight(t *testing.T) {
	for _, c := range []struct {
		name  string
		loads []gcLoad
		want  int64
	}{
		{"a lone closed loop, 1 in flight", []gcLoad{{inFlight: 1}}, 8<<20 + 128<<10 + 16<<10},
		{"a lone closed loop, 64 in flight", []gcLoad{{inFlight: 64}}, 16<<20 + 64*16<<10},
		{"a lone closed loop, 128 in flight", []gcLoad{{inFlight: 128}}, 24<<20 + 2<<20},
		{"a lone closed loop, 1024 in flight", []gcLoad{{inFlight: 1024}}, 24<<20 + 16<<20},
		{"1 in flight under a CPU quota", []gcLoad{{inFlight: 1, quota: true}}, 24<<20 + 16<<10},
		{"an open loop, 1 in flight", []gcLoad{{inFlight: 1, open: true}}, 24<<20 + 16<<10},
		{"six loads, 1 in flight each", []gcLoad{{inFlight: 1}, {inFlight: 1}, {inFlight: 1}, {inFlight: 1}, {inFlight: 1}, {inFlight: 1}}, 24<<20 + 6*16<<10},
	} {
		if got := gcHeadroom(c.loads); got != c.want {
			t.Errorf("%s: headroom %d, want %d", c.name, got, c.want)
		}
	}
}

// Loads of one process (cassbench run's writers) end in any order; whichever ends last puts
// back what was set before the first, and the ones still running keep a limit for all.
func TestGCSettingsAreTheProcesssAndPutBackByTheLastLoad(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	const limitBefore, percentBefore = 1 << 40, 150
	oldPercent := debug.SetGCPercent(percentBefore)
	oldLimit := debug.SetMemoryLimit(limitBefore)
	t.Cleanup(func() { debug.SetGCPercent(oldPercent); debug.SetMemoryLimit(oldLimit) })

	first := tuneGC(gcLoad{inFlight: 1})
	if got := debug.SetGCPercent(gcPercent); got != gcPercent {
		t.Fatalf("GC percent %d during a load, want %d", got, gcPercent)
	}
	second := tuneGC(gcLoad{inFlight: 1024})
	both := debug.SetMemoryLimit(-1)
	first()
	first() // a second call changes nothing
	got := debug.SetMemoryLimit(-1)
	if want := both - gcHeadroom([]gcLoad{{inFlight: 1}, {inFlight: 1024}}) + gcHeadroom([]gcLoad{{inFlight: 1024}}); got != want {
		t.Errorf("with the second load still running the limit is %d, want %d (its own headroom), not the one from before (%d)", got, want, int64(limitBefore))
	}
	second()
	if got := debug.SetMemoryLimit(-1); got != limitBefore {
		t.Errorf("after the last load the limit is %d, want %d as before", got, int64(limitBefore))
	}
	if got := debug.SetGCPercent(percentBefore); got != percentBefore {
		t.Errorf("after the last load the GC percent is %d, want %d as before", got, percentBefore)
	}
}
