package writer

import (
	"runtime/debug"
	"testing"
)

func TestGCHeadroomIsSmallOnlyForALoneClosedLoop(t *testing.T) {
	for _, c := range []struct {
		name  string
		loads []gcLoad
		want  int64
	}{
		{"closed, 1 in flight", []gcLoad{{1, false}}, 8<<20 + 128<<10 + 16<<10},
		{"closed, 8 in flight", []gcLoad{{8, false}}, 9<<20 + 8*16<<10},
		{"closed, 128 in flight", []gcLoad{{128, false}}, 24<<20 + 2<<20},
		{"closed, 1024 in flight", []gcLoad{{1024, false}}, 24<<20 + 16<<20},
		{"open, 1 in flight", []gcLoad{{1, true}}, 24<<20 + 16<<10},
		{"six closed, 1 in flight each", []gcLoad{{1, false}, {1, false}, {1, false}, {1, false}, {1, false}, {1, false}}, 24<<20 + 6*16<<10},
	} {
		if got := gcHeadroom(c.loads); got != c.want {
			t.Errorf("%s: headroom %d, want %d", c.name, got, c.want)
		}
	}
	for n := 1; n < 2048; n++ {
		if gcHeadroom([]gcLoad{{n, false}}) < gcHeadroom([]gcLoad{{n - 1, false}}) {
			t.Fatalf("a closed loop's headroom shrinks from %d to %d in flight", n-1, n)
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

	first := tuneGC(1, false)
	lone := debug.SetMemoryLimit(-1)
	if got := debug.SetGCPercent(gcPercent); got != gcPercent {
		t.Fatalf("GC percent %d during a load, want %d", got, gcPercent)
	}
	second := tuneGC(1, false)
	both := debug.SetMemoryLimit(-1)
	if both-lone < gcMemoryLimit-gcMinimumLimit-1<<20 {
		t.Errorf("two loads have a limit of %d, only %d above one load's %d: a process with several loads keeps the larger headroom", both, both-lone, lone)
	}
	first()
	first() // a second call changes nothing
	if got := debug.SetMemoryLimit(-1); got != both-gcHeadroom([]gcLoad{{1, false}, {1, false}})+gcHeadroom([]gcLoad{{1, false}}) {
		t.Errorf("with one load still running the limit is %d, want the lone load's (%d less than the two's %d), not the one from before (%d)",
			got, gcHeadroom([]gcLoad{{1, false}, {1, false}})-gcHeadroom([]gcLoad{{1, false}}), both, int64(limitBefore))
	}
	second()
	if got := debug.SetMemoryLimit(-1); got != limitBefore {
		t.Errorf("after the last load the limit is %d, want %d as before", got, int64(limitBefore))
	}
	if got := debug.SetGCPercent(percentBefore); got != percentBefore {
		t.Errorf("after the last load the GC percent is %d, want %d as before", got, percentBefore)
	}
}
