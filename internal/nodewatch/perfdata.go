package nodewatch

import (
	"errors"

	"github.com/cassbench/cassbench/internal/nodeproc"
	"github.com/cassbench/cassbench/internal/summary"
)

// perfStart is a local JVM's collections at the window's start, read from its hsperfdata
// file (nodeproc.PerfData), or why they cannot be.
type perfStart struct {
	path    string
	at      nodeproc.PerfGC
	missing string // a summary.MissingGC* code
}

// startPerf reads a JVM's collections so far, where it logs none to a file.
func startPerf(p *nodeproc.Process) perfStart {
	path, err := p.PerfData()
	if errors.Is(err, nodeproc.ErrPerfDataOff) {
		return perfStart{missing: summary.MissingGCPerfOff}
	}
	if err != nil {
		return perfStart{missing: summary.MissingGCPerfUnreadable}
	}
	gc, err := nodeproc.GCCounters(path)
	if err != nil {
		return perfStart{missing: summary.MissingGCPerfUnreadable}
	}
	return perfStart{path: path, at: gc}
}

// perfPauses are the collections between two readings of the counters: their count and
// total, with no longest (the counters keep none).
func perfPauses(from, to nodeproc.PerfGC) *nodeproc.GCPauses {
	return &nodeproc.GCPauses{Count: max(to.Count-from.Count, 0), TotalMicros: max((to.Total - from.Total).Microseconds(), 0)}
}

// perfTail reads a JVM's counters sample by sample, giving the collections since the
// previous reading.
type perfTail struct {
	path string
	last nodeproc.PerfGC
}

func (t *perfTail) next() (nodeproc.GCPauses, error) {
	gc, err := nodeproc.GCCounters(t.path)
	if err != nil {
		return nodeproc.GCPauses{}, err
	}
	out := perfPauses(t.last, gc)
	t.last = gc
	return *out, nil
}
