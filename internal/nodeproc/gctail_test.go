package nodeproc

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A tail counts each pause once, in the sample whose time it was logged by: a pause before
// the window is not counted, a pause after the sample waits for the next, a line the JVM is
// still writing is read once ended, and a rotated (smaller) file is read from its start.
func TestGCTailCountsEachPauseOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gc.log")
	write := func(flag int, s string) {
		t.Helper()
		f, err := os.OpenFile(path, flag|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
		_ = f.Close()
	}
	line := func(sec int, ms string) string {
		return fmt.Sprintf("[2026-11-24T06:29:%02d.000+0000]", sec) + "[1.0s] GC(1) Pause Young (Normal) (G1 Evacuation Pause) 100M->20M(512M) " + ms + "ms\n"
	}
	at := func(sec int) time.Time { return time.Date(2026, 11, 24, 6, 29, sec, 0, time.UTC) }
	write(os.O_TRUNC, line(5, "100.000")+"[2026-11-24T06:29:11.000+0000][1.0s] Using G1\n"+line(12, "2.000")+line(15, "3.000")+line(21, "4.000"))
	tail := NewGCTail(path, at(10))
	check := func(to int, count, total int64) {
		t.Helper()
		got, err := tail.Next(at(to))
		if err != nil || got.Count != count || got.TotalMicros != total {
			t.Errorf("up to :%d: %+v, %v; want %d pauses, %d µs", to, got, err, count, total)
		}
	}
	check(15, 2, 5000)
	check(20, 0, 0)
	// The pause at :21 and one whose line is not ended yet.
	write(os.O_APPEND, line(22, "5.000")[:40])
	check(25, 1, 4000)
	write(os.O_APPEND, line(22, "5.000")[40:])
	check(25, 1, 5000)
	write(os.O_TRUNC, line(26, "6.000"))
	check(30, 1, 6000)
}
