package writer

import "testing"

func TestGCHeadroomGrowsWithRequestsInFlight(t *testing.T) {
	for _, c := range []struct {
		inFlight int
		want     int64
	}{
		{1, 8<<20 + 128<<10 + 16<<10},
		{8, 9<<20 + 8*16<<10},
		{128, 24<<20 + 2<<20},
		{1024, 24<<20 + 16<<20},
	} {
		if got := gcHeadroom(c.inFlight, false); got != c.want {
			t.Errorf("gcHeadroom(%d) = %d, want %d", c.inFlight, got, c.want)
		}
	}
	// An open loop keeps the full headroom: a smaller one kept its collector running while
	// goroutines had to wake on time.
	if got, want := gcHeadroom(32, true), int64(24<<20+32*16<<10); got != want {
		t.Errorf("gcHeadroom(32, open) = %d, want %d", got, want)
	}
	for n := 1; n < 2048; n++ {
		if gcHeadroom(n, false) < gcHeadroom(n-1, false) {
			t.Fatalf("headroom shrinks from %d to %d in flight", n-1, n)
		}
	}
}
