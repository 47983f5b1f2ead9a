package cli

import (
	"os"
	"testing"
)

// The counts move with the process's own system calls: 100 writes to a pipe add at least 100
// write calls.
func TestSyscallCountsCountThisProcess(t *testing.T) {
	_, before, ok := syscallCounts()
	if !ok {
		t.Fatal("/proc/self/io has no syscr/syscw")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close(); _ = w.Close() }()
	go func() {
		buf := make([]byte, 64)
		for {
			if _, err := r.Read(buf); err != nil {
				return
			}
		}
	}()
	for range 100 {
		if _, err := w.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	_, after, _ := syscallCounts()
	if after-before < 100 {
		t.Errorf("write system calls went from %d to %d over 100 writes", before, after)
	}
}
