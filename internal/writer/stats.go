package writer

import (
	"sync"
	"time"

	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/workload"
)

// Kind of operation: the workload's kinds, with inserts named writes.
type Kind uint8

const (
	Write    = Kind(workload.OpInsert)
	Read     = Kind(workload.OpRead)
	numKinds = Kind(workload.NumOpKinds)
)

func (k Kind) String() string {
	if k == Write {
		return "write"
	}
	return workload.OpKind(k).String()
}

// returnsRows says whether the kind's rows and value bytes are what it read back.
func (k Kind) returnsRows() bool { return k == Read || workload.OpKind(k).IsScan() }

// idempotent kinds may be sent again after a timeout: a lightweight transaction or a counter
// increment that timed out may have been applied, and sending it again could apply it twice
// (the driver's own retry policies retry only idempotent statements, for the same reason).
func (k Kind) idempotent() bool {
	return k != Kind(workload.OpInsertIfNotExists) && k != Kind(workload.OpCounterIncrement)
}

// lwtResult is what a lightweight transaction's [applied] column said.
type lwtResult uint8

const (
	lwtNone lwtResult = iota
	lwtApplied
	lwtNotApplied
)

// sumKinds adds up operations, failures and retries over every kind.
func sumKinds(t *[numKinds]totals) (ops, failed, retries int64) {
	for k := range t {
		ops += t[k].ops()
		failed += t[k].failed()
		retries += t[k].retries
	}
	return ops, failed, retries
}

// histBounds are the Prometheus histogram's upper bounds in microseconds: 100 µs to 10 s.
var histBounds = [...]float64{100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1e6, 2.5e6, 5e6, 1e7}

// opStats counts one kind of operation. The load goroutines share a few (statSlots): with
// two for each thread, goroutines of different threads seldom meet on one lock, and readers
// (progress, metrics) take it now and then.
type opStats struct {
	mu       sync.Mutex
	read     bool
	outcomes [numOutcomes]int64
	// attempts counts failed attempts by kind, retried or final.
	attempts [numOutcomes]int64
	retries  int64
	bytes    int64
	rows     int64
	misses   int64
	// pages a scan fetched; applied and notApplied count lightweight transactions.
	pages               int64
	applied, notApplied int64
	// response and service hold every operation, failed ones too; failure only those.
	response sketch.Sketch
	service  sketch.Sketch
	failure  sketch.Sketch
	// lag is send minus intended start, in an open loop only.
	lag                sketch.Sketch
	late1ms, lateTenth int64
	// hist counts response latencies per histBounds bucket (the last is +Inf); histSum is
	// their sum in microseconds.
	hist    [len(histBounds) + 1]uint64
	histSum float64
}

// sample is one operation as the load goroutine saw it.
type sample struct {
	outcome Outcome
	retries int
	// failed counts the operation's failed attempts by kind.
	failed             [numOutcomes]uint16
	bytes, rows, pages int
	lwt                lwtResult
	// response runs from the intended start, service from the first send.
	response, service time.Duration
	// paced is set in an open loop: lag is then send minus intended start, and lateTenth
	// says it was more than a tenth of the interval between operations.
	paced     bool
	lag       time.Duration
	lateTenth bool
}

func (s *opStats) record(x *sample) {
	r, sv := micros(x.response), micros(x.service)
	s.mu.Lock()
	s.outcomes[x.outcome]++
	s.retries += int64(x.retries)
	if x.retries > 0 || x.outcome != OK {
		for k, n := range x.failed {
			s.attempts[k] += int64(n)
		}
	}
	s.response.Add(r)
	s.service.Add(sv)
	if x.outcome == OK {
		s.bytes += int64(x.bytes)
		if s.read {
			s.rows += int64(x.rows)
			s.pages += int64(x.pages)
			if x.rows == 0 {
				s.misses++
			}
		}
		switch x.lwt {
		case lwtApplied:
			s.applied++
		case lwtNotApplied:
			s.notApplied++
		}
	} else {
		s.failure.Add(r)
	}
	if x.paced {
		s.lag.Add(micros(x.lag))
		if x.lag > time.Millisecond {
			s.late1ms++
		}
		if x.lateTenth {
			s.lateTenth++
		}
	}
	s.hist[bucket(r)]++
	s.histSum += r
	s.mu.Unlock()
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func bucket(us float64) int {
	for i, b := range histBounds {
		if us <= b {
			return i
		}
	}
	return len(histBounds)
}

// totals is a lock-free copy of opStats' counters.
type totals struct {
	outcomes [numOutcomes]int64
	retries  int64
	bytes    int64
	hist     [len(histBounds) + 1]uint64
	histSum  float64
}

func (t *totals) ops() int64 {
	var n int64
	for _, c := range t.outcomes {
		n += c
	}
	return n
}

func (t *totals) failed() int64 { return t.ops() - t.outcomes[OK] }

func (s *opStats) addTo(t *totals) {
	s.mu.Lock()
	for i, c := range s.outcomes {
		t.outcomes[i] += c
	}
	t.retries += s.retries
	t.bytes += s.bytes
	for i, c := range s.hist {
		t.hist[i] += c
	}
	t.histSum += s.histSum
	s.mu.Unlock()
}

// mergeResponse adds this goroutine's response sketch into dst.
func (s *opStats) mergeResponse(dst *sketch.Sketch) {
	s.mu.Lock()
	dst.Merge(&s.response)
	s.mu.Unlock()
}

// summarize merges many goroutines' stats of one kind into a summary.Ops.
func summarize(parts []*opStats) *summary.Ops {
	out := &summary.Ops{Response: sketch.New(), Service: sketch.New(), Failure: sketch.New()}
	for _, s := range parts {
		s.mu.Lock()
		out.OK += s.outcomes[OK]
		out.WriteTimeout += s.outcomes[WriteTimeout]
		out.ReadTimeout += s.outcomes[ReadTimeout]
		out.Unavailable += s.outcomes[Unavailable]
		out.Overloaded += s.outcomes[Overloaded]
		out.ClientTimeout += s.outcomes[ClientTimeout]
		out.Other += s.outcomes[Other]
		out.Attempts.Add(failures(&s.attempts))
		out.Retries += s.retries
		out.Bytes += s.bytes
		out.Rows += s.rows
		out.Misses += s.misses
		out.Response.Merge(&s.response)
		out.Service.Merge(&s.service)
		out.Failure.Merge(&s.failure)
		s.mu.Unlock()
	}
	if out.Failure.Count() == 0 {
		out.Failure = nil
	}
	return out
}

// summarizeKind is summarize for a kind of workload.operations, which keeps only the response
// sketch: six kinds add six sketches to the termination message, not eighteen.
func summarizeKind(k Kind, parts []*opStats) *summary.KindOps {
	out := &summary.KindOps{Kind: k.String(), Ops: *summarize(parts)}
	out.Service, out.Failure = nil, nil
	for _, s := range parts {
		s.mu.Lock()
		out.Pages += s.pages
		out.Applied += s.applied
		out.NotApplied += s.notApplied
		s.mu.Unlock()
	}
	return out
}

func failures(c *[numOutcomes]int64) summary.Failures {
	return summary.Failures{WriteTimeout: c[WriteTimeout], ReadTimeout: c[ReadTimeout], Unavailable: c[Unavailable],
		Overloaded: c[Overloaded], ClientTimeout: c[ClientTimeout], Other: c[Other]}
}

// summarizePace merges the schedule lag of every goroutine and kind: nil, with no counts,
// when nothing was paced.
func summarizePace(ps phaseStats) (*sketch.Sketch, int64, int64) {
	lag := sketch.New()
	var late1ms, lateTenth int64
	for i := range ps {
		for _, s := range ps[i] {
			s.mu.Lock()
			lag.Merge(&s.lag)
			late1ms += s.late1ms
			lateTenth += s.lateTenth
			s.mu.Unlock()
		}
	}
	if lag.Count() == 0 {
		return nil, 0, 0
	}
	return lag, late1ms, lateTenth
}
