package writer

import (
	"sync"
	"time"

	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// Kind of operation.
type Kind uint8

const (
	Write Kind = iota
	Read
	numKinds
)

func (k Kind) String() string {
	if k == Read {
		return "read"
	}
	return "write"
}

// histBounds are the Prometheus histogram's upper bounds in microseconds: 100 µs to 10 s.
var histBounds = [...]float64{100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1e6, 2.5e6, 5e6, 1e7}

// opStats counts one kind of operation. Each load goroutine owns its own, so the lock is
// uncontended on the hot path and only readers (progress, metrics) ever wait on it.
type opStats struct {
	mu       sync.Mutex
	outcomes [numOutcomes]int64
	retries  int64
	bytes    int64
	response sketch.Sketch
	service  sketch.Sketch
	// hist counts response latencies per histBounds bucket (the last is +Inf); histSum is
	// their sum in microseconds.
	hist    [len(histBounds) + 1]uint64
	histSum float64
}

func (s *opStats) record(o Outcome, retries int, bytes int, response, service time.Duration) {
	s.mu.Lock()
	s.outcomes[o]++
	s.retries += int64(retries)
	if o == OK {
		s.bytes += int64(bytes)
		r, sv := micros(response), micros(service)
		s.response.Add(r)
		s.service.Add(sv)
		s.hist[bucket(r)]++
		s.histSum += r
	}
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
	out := &summary.Ops{Response: sketch.New(), Service: sketch.New()}
	for _, s := range parts {
		s.mu.Lock()
		out.OK += s.outcomes[OK]
		out.WriteTimeout += s.outcomes[WriteTimeout]
		out.ReadTimeout += s.outcomes[ReadTimeout]
		out.Unavailable += s.outcomes[Unavailable]
		out.Overloaded += s.outcomes[Overloaded]
		out.ClientTimeout += s.outcomes[ClientTimeout]
		out.Other += s.outcomes[Other]
		out.Retries += s.retries
		out.Bytes += s.bytes
		out.Response.Merge(&s.response)
		out.Service.Merge(&s.service)
		s.mu.Unlock()
	}
	return out
}
