package main

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/nodewatch"
)

// hintsDeliveryWait bounds the wait, once the run has ended with node 2 serving again, for
// node 1 to have delivered every hint it stored: twice hintsDeliveryLag, since node 1 may have
// to close its hints file at one dispatch check and send it at the next.
const hintsDeliveryWait = 2 * hintsDeliveryLag

// hintsWatch reads a node's hints directory with the server evidence's own tally
// (nodewatch.HintTally) every 500 ms from before the run until the test has seen what it
// wants. Unlike the run's figures, which end with the measured window, it goes on after the
// run, so whether node 2 came back early or late in the window, the hints node 1 kept for it
// are seen stored and then delivered: the check does not depend on how fast the machine
// starts a node.
type hintsWatch struct {
	dir   string
	mu    sync.Mutex
	tally *nodewatch.HintTally
	read  bool // the directory was read at least once
	done  chan struct{}
	ended chan struct{}
}

func watchHints(dir string) *hintsWatch {
	w := &hintsWatch{dir: dir, tally: nodewatch.NewHintTally(dir), done: make(chan struct{}), ended: make(chan struct{})}
	go func() {
		defer close(w.ended)
		for {
			w.mu.Lock()
			if w.tally.Update() {
				w.read = true
			}
			w.mu.Unlock()
			select {
			case <-w.done:
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	return w
}

// counts are the hints stored and delivered since the first reading, and the hints files
// still in the directory.
func (w *hintsWatch) counts() (stored, delivered int64, files int, read bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	stored, delivered = w.tally.Counts()
	names, _ := filepath.Glob(filepath.Join(w.dir, "*.hints"))
	return stored, delivered, len(names), w.read
}

func (w *hintsWatch) stop() {
	select {
	case <-w.done:
	default:
		close(w.done)
	}
	<-w.ended
}

// checkDelivered waits up to limit for node 1's hints directory to hold no hints file, every
// hint stored since the watch began counted delivered, and fails when none was stored at all
// (node 1 acknowledged writes at ONE while node 2 was down) or they were not all delivered.
// A hints file written and delivered between two readings would be counted by neither side;
// at 200 writes/s, node 1 writes its buffers to the file every 10 s (hints_flush_period) and
// keeps the file until node 2 is back, so every file lives far longer than 500 ms.
func (w *hintsWatch) checkDelivered(t *testing.T, limit time.Duration) {
	t.Helper()
	start := time.Now()
	for {
		stored, delivered, files, read := w.counts()
		if read && stored > 0 && files == 0 && delivered >= stored {
			t.Logf("node 1's hints directory: %d hints stored and %d delivered, none left, %s after the run", stored, delivered, time.Since(start).Round(time.Second))
			return
		}
		if time.Since(start) > limit {
			t.Errorf("node 1's hints directory %s (read: %t): %d hints stored, %d delivered, %d files left %s after the run; want hints stored and all delivered",
				w.dir, read, stored, delivered, files, limit)
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}
