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
		{"1 in flight", []gcLoad{{1}}, 24<<20 + 16<<10},
		{"128 in flight", []gcLoad{{128}}, 24<<20 + 2<<20},
		{"1024 in flight", []gcLoad{{1024}}, 24<<20 + 16<<20},
		{"six loads, 1 in flight each", []gcLoad{{1}, {1}, {1}, {1}, {1}, {1}}, 24<<20 + 6*16<<10},
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

	first := tuneGC(1)
	if got := debug.SetGCPercent(gcPercent); got != gcPercent {
		t.Fatalf("GC percent %d during a load, want %d", got, gcPercent)
	}
	second := tuneGC(1024)
	both := debug.SetMemoryLimit(-1)
	first()
	first() // a second call changes nothing
	got := debug.SetMemoryLimit(-1)
	if want := both - gcHeadroom([]gcLoad{{1}, {1024}}) + gcHeadroom([]gcLoad{{1024}}); got != want {
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
