// Package summary defines what a writer or setup pod reports through its termination message.
//
// The channel stays the termination message (4096 bytes), not the pod's log: the largest
// summary a writer makes (writes and reads with failures, the schedule lag, a 120-point
// timeline and a full server block) encodes to about 3.7 KB with p99 and above still at 1%
// (TestLargestSummaryKeepsTheTailAtOnePercent), because Encode folds the low end of the
// sketches before it touches their tail. A log would need pods/log access and a kubelet.
// The writer produces these types and the controller consumes them; both import this package
// so the contract lives in one place.
package summary

import (
	"encoding/json"
	"fmt"

	"github.com/cassbench/cassbench/internal/sketch"
)

// Version of the summary format. A consumer refuses summaries of a version it does not know.
// Version 2 measures windows, counts every attempt, keeps failed operations in the latency
// and adds the schedule and the timeline.
const Version = 2

// MaxBytes is the most a termination message may hold.
const MaxBytes = 4096

// Summary is one writer's result over its measured window.
type Summary struct {
	Version int `json:"v"`
	// Index of this writer, of Writers.
	Index   int32 `json:"i"`
	Writers int32 `json:"n"`
	// Start and End of the measured window as this writer measured it: its first send and
	// its last completion, Unix milliseconds on its own clock. Zero when it sent nothing.
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	// SpanMicros is End - Start on the monotonic clock, which no clock step can move.
	SpanMicros int64 `json:"span,omitempty"`
	// OffsetMillis is this writer's clock minus Cassandra's (positive: the writer is ahead),
	// measured at the start barrier; OffsetErrorMillis bounds its error (half the round trip).
	OffsetMillis      int64 `json:"off,omitempty"`
	OffsetErrorMillis int64 `json:"offe,omitempty"`
	// Writes and Reads; nil when the workload has none of that kind.
	Writes *Ops `json:"w,omitempty"`
	Reads  *Ops `json:"r,omitempty"`
	// Kinds are the kinds of workload.operations, in the order of the mix's kinds.
	Kinds []*KindOps `json:"k,omitempty"`
	// Lag is the schedule lag of an open loop (actual send minus intended start), in
	// microseconds; nil in a closed loop.
	Lag *sketch.Sketch `json:"lag,omitempty"`
	// Schedule is how an open loop kept to its rate; nil in a closed loop.
	Schedule *Schedule `json:"sch,omitempty"`
	// Timeline counts the window interval by interval.
	Timeline *Timeline `json:"tl,omitempty"`
	// Error says why the writer failed; empty when it succeeded.
	Error string `json:"err,omitempty"`
	// Server is what the nodes this writer watched did in its window (bounded by
	// MaxServerBytes); CPU is the writer's own CPU use. Both feed the bottleneck verdict.
	Server *Server    `json:"srv,omitempty"`
	CPU    *WriterCPU `json:"cpu,omitempty"`
	// Load is this writer's load stage, before the window; nil without one.
	Load *Load `json:"load,omitempty"`
	// Paths counts the write requests by the path that carried them; nil when the writer
	// sent none.
	Paths *Paths `json:"path,omitempty"`
	// Capacity is what a capacity search found, on writer 0's summary only.
	Capacity *Capacity `json:"cap,omitempty"`
	// Replag is what this writer's replication-lag observer saw in another datacenter of a
	// run across several (spec.datacenters[].observers); nil without one.
	Replag *Replag `json:"rl,omitempty"`
}

// Paths counts one writer's write requests (every attempt, warm-up included) by the path that
// carried them: Direct (driverIO Batched's own connections, single-row inserts) or the
// driver, which also carries what Direct was given and could not send, counted by cause.
type Paths struct {
	Direct int64 `json:"d,omitempty"`
	Driver int64 `json:"drv,omitempty"`
	// What Direct left to the driver, by cause (internal/cql.Fallback).
	NoRoute   int64 `json:"nr,omitempty"`
	Dial      int64 `json:"dial,omitempty"`
	Handshake int64 `json:"hs,omitempty"`
	Auth      int64 `json:"auth,omitempty"`
	Streams   int64 `json:"st,omitempty"`
}

// FellBack is what Direct left to the driver, every cause together.
func (p *Paths) FellBack() int64 { return p.NoRoute + p.Dial + p.Handshake + p.Auth + p.Streams }

// Add adds o's counts to p's.
func (p *Paths) Add(o *Paths) {
	p.Direct += o.Direct
	p.Driver += o.Driver
	p.NoRoute += o.NoRoute
	p.Dial += o.Dial
	p.Handshake += o.Handshake
	p.Auth += o.Auth
	p.Streams += o.Streams
}

// Load is what one writer's load stage did.
type Load struct {
	// Rows inserted, of Wanted (this writer's share of the dataset); Failed inserts.
	Rows   int64 `json:"rows"`
	Wanted int64 `json:"want"`
	Failed int64 `json:"fail,omitempty"`
	Bytes  int64 `json:"b,omitempty"`
	// Millis is how long the stage took.
	Millis int64 `json:"ms"`
}

// Measured tells whether the writer measured a window at all: a writer that failed before
// its first send has none, and must not move the merged window.
func (s *Summary) Measured() bool { return s.Start > 0 && s.End >= s.Start }

// Failures counts failed operations or attempts by kind.
type Failures struct {
	WriteTimeout  int64 `json:"wto,omitempty"`
	ReadTimeout   int64 `json:"rto,omitempty"`
	Unavailable   int64 `json:"una,omitempty"`
	Overloaded    int64 `json:"ovl,omitempty"`
	ClientTimeout int64 `json:"cto,omitempty"`
	Other         int64 `json:"oth,omitempty"`
}

// Total of the failures of every kind.
func (f Failures) Total() int64 {
	return f.WriteTimeout + f.ReadTimeout + f.Unavailable + f.Overloaded + f.ClientTimeout + f.Other
}

// Timeouts are the server's and the client's timeouts.
func (f Failures) Timeouts() int64 { return f.WriteTimeout + f.ReadTimeout + f.ClientTimeout }

// Add adds other's counts.
func (f *Failures) Add(other Failures) {
	f.WriteTimeout += other.WriteTimeout
	f.ReadTimeout += other.ReadTimeout
	f.Unavailable += other.Unavailable
	f.Overloaded += other.Overloaded
	f.ClientTimeout += other.ClientTimeout
	f.Other += other.Other
}

// Ops counts one kind of operation by final outcome (what the application sees), and its
// attempts by outcome (what the cluster did).
type Ops struct {
	OK            int64 `json:"ok"`
	WriteTimeout  int64 `json:"wto,omitempty"`
	ReadTimeout   int64 `json:"rto,omitempty"`
	Unavailable   int64 `json:"una,omitempty"`
	Overloaded    int64 `json:"ovl,omitempty"`
	ClientTimeout int64 `json:"cto,omitempty"`
	Other         int64 `json:"oth,omitempty"`
	// Retries are attempts after the first; attempts = operations + retries.
	Retries int64 `json:"rty,omitempty"`
	// Attempts counts the failed attempts by kind, retried or final.
	Attempts Failures `json:"a"`
	Bytes    int64    `json:"b,omitempty"`
	// Rows returned by reads, and Misses: reads that returned no row.
	Rows   int64 `json:"rows,omitempty"`
	Misses int64 `json:"miss,omitempty"`
	// Mismatches are rows read that differed from the rows written (workload.verifyReads).
	Mismatches int64 `json:"mism,omitempty"`
	// Response latency from the intended start (open loop) or the first send (closed loop),
	// and Service latency from the first send, in microseconds, of every operation whatever
	// its outcome; Failure is the response latency of the failed ones alone.
	Response *sketch.Sketch `json:"rl,omitempty"`
	Service  *sketch.Sketch `json:"sl,omitempty"`
	Failure  *sketch.Sketch `json:"fl,omitempty"`
}

// KindOps is one kind of workload.operations. It keeps only the Response sketch (Service and
// Failure are nil): the status reports a kind's response latency, and six kinds then add six
// sketches to the termination message rather than eighteen.
type KindOps struct {
	// Kind is the operation kind as workload.operations names it.
	Kind string `json:"kind"`
	Ops
	// Pages fetched by scans.
	Pages int64 `json:"pg,omitempty"`
	// Applied and NotApplied count the lightweight transactions that succeeded by their
	// [applied] column.
	Applied    int64 `json:"ap,omitempty"`
	NotApplied int64 `json:"na,omitempty"`
}

// AddCounts adds other's counts (not its sketch) to k.
func (k *KindOps) AddCounts(other *KindOps) {
	k.Ops.AddCounts(&other.Ops)
	k.Pages += other.Pages
	k.Applied += other.Applied
	k.NotApplied += other.NotApplied
}

// AllOps are the writes, reads and every kind of workload.operations the summary has.
func (s *Summary) AllOps() []*Ops {
	var out []*Ops
	for _, o := range []*Ops{s.Writes, s.Reads} {
		if o != nil {
			out = append(out, o)
		}
	}
	for _, k := range s.Kinds {
		out = append(out, &k.Ops)
	}
	return out
}

// Final is the operations' final failures by kind.
func (o *Ops) Final() Failures {
	return Failures{o.WriteTimeout, o.ReadTimeout, o.Unavailable, o.Overloaded, o.ClientTimeout, o.Other}
}

// Failed is the number of operations that did not succeed after retries.
func (o *Ops) Failed() int64 { return o.Final().Total() }

// Operations is the number of operations that ended, whatever their outcome.
func (o *Ops) Operations() int64 { return o.OK + o.Failed() }

// AddCounts adds other's counts (not its sketches) to o; a nil other adds nothing.
func (o *Ops) AddCounts(other *Ops) {
	if other == nil {
		return
	}
	o.OK += other.OK
	o.WriteTimeout += other.WriteTimeout
	o.ReadTimeout += other.ReadTimeout
	o.Unavailable += other.Unavailable
	o.Overloaded += other.Overloaded
	o.ClientTimeout += other.ClientTimeout
	o.Other += other.Other
	o.Retries += other.Retries
	o.Attempts.Add(other.Attempts)
	o.Bytes += other.Bytes
	o.Rows += other.Rows
	o.Misses += other.Misses
	o.Mismatches += other.Mismatches
}

// Timeouts is the number of operations that failed by a server or client timeout.
func (o *Ops) Timeouts() int64 { return o.Final().Timeouts() }

// Schedule is how an open loop kept to its timetable.
type Schedule struct {
	// Target is this writer's share of the rate, operations per second.
	Target int64 `json:"t"`
	// Due is the number of operations the timetable had in the window.
	Due int64 `json:"due"`
	// Missed operations were due but never started: they fell more than the backlog bound
	// behind, or were still waiting when the window closed. They are not run late.
	Missed int64 `json:"miss,omitempty"`
	// Backlog is the part of Missed still waiting when the window closed.
	Backlog int64 `json:"bl,omitempty"`
	// Late1ms and Late10pct count operations sent more than 1 ms, and more than a tenth of
	// the interval between operations, after their intended start.
	Late1ms   int64 `json:"l1,omitempty"`
	Late10pct int64 `json:"l10,omitempty"`
	// DrainMicros is how long the operations in flight at the window's end took to finish.
	DrainMicros int64 `json:"dr,omitempty"`
}

// Add adds other's counts; targets add up too.
func (s *Schedule) Add(o *Schedule) {
	if o == nil {
		return
	}
	s.Target += o.Target
	s.Due += o.Due
	s.Missed += o.Missed
	s.Backlog += o.Backlog
	s.Late1ms += o.Late1ms
	s.Late10pct += o.Late10pct
	s.DrainMicros = max(s.DrainMicros, o.DrainMicros)
}

// Encode renders the summary as JSON of at most MaxBytes. When it does not fit, it shrinks
// what matters least first: the low end of the latency sketches below the median (which
// changes no percentile a result reports), an error text past 256 bytes, the timeline's
// resolution, the low end up to p90 and then p99 (those percentiles become upper bounds), and
// only then the accuracy of the tail, level by level. It fails only if even that cannot fit.
func (s *Summary) Encode() ([]byte, error) {
	out := *s
	out.Version = Version
	out.Writes, out.Reads = out.Writes.clone(), out.Reads.clone()
	out.Kinds = make([]*KindOps, len(s.Kinds))
	for i, k := range s.Kinds {
		c := *k
		c.Ops = *k.clone()
		out.Kinds[i] = &c
	}
	if len(out.Kinds) == 0 {
		out.Kinds = nil
	}
	out.Lag = out.Lag.Clone()
	out.Replag = out.Replag.clone()
	out.Timeline = out.Timeline.Clone()
	steps := []func(){
		func() {},
		func() { out.forEachSketch(func(sk *sketch.Sketch) { sk.CollapseBelow(0.5) }) },
		func() { out.Error = out.Error[:min(len(out.Error), 256)] },
		func() { out.Timeline.ShrinkTo(60) },
		func() { out.forEachSketch(func(sk *sketch.Sketch) { sk.CollapseBelow(0.9) }) },
		func() { out.Timeline.ShrinkTo(30) },
		func() { out.forEachSketch(func(sk *sketch.Sketch) { sk.CollapseBelow(0.99) }) },
	}
	for level := uint8(1); level <= maxLevel; level++ {
		steps = append(steps, func() { out.forEachSketch(func(sk *sketch.Sketch) { sk.Coarsen(level) }) })
	}
	var size int
	for _, step := range steps {
		step()
		b, err := json.Marshal(&out)
		if err != nil {
			return nil, fmt.Errorf("encoding summary: %w", err)
		}
		if len(b) <= MaxBytes {
			return b, nil
		}
		size = len(b)
	}
	return nil, fmt.Errorf("summary is %d bytes even with sketches at level %d", size, maxLevel)
}

// maxLevel bounds how far Encode coarsens sketches: level 6 is about 56% relative accuracy,
// which nothing measured so far has needed.
const maxLevel = 6

// Decode parses a summary and checks its version. It refuses more than MaxBytes, which no
// summary Encode wrote can exceed: the bytes come from a pod, whose image may be the user's.
func Decode(b []byte) (*Summary, error) {
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("writer summary is %d bytes, more than the %d a writer writes", len(b), MaxBytes)
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("parsing writer summary: %w", err)
	}
	if s.Version != Version {
		return nil, fmt.Errorf("writer summary has version %d, this controller reads version %d", s.Version, Version)
	}
	// A null kind ("k":[null]) decodes to a nil entry that Encode and results.Merge would
	// dereference: the manager crashed on it (found by FuzzDecode).
	for i, k := range s.Kinds {
		if k == nil {
			return nil, fmt.Errorf("writer summary: k[%d] (kinds) is null", i)
		}
	}
	return &s, nil
}

// RoundTrip is what a reader of the summary gets: the summary encoded as a writer pod
// reports it and decoded again. Local runs go through it so that they give exactly the
// figures a Kubernetes run would.
func (s *Summary) RoundTrip() (*Summary, error) {
	b, err := s.Encode()
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

func (s *Summary) forEachSketch(f func(*sketch.Sketch)) {
	for _, o := range s.AllOps() {
		for _, sk := range []*sketch.Sketch{o.Response, o.Service, o.Failure} {
			if sk != nil {
				f(sk)
			}
		}
	}
	if s.Lag != nil {
		f(s.Lag)
	}
	if s.Replag != nil && s.Replag.Lag != nil {
		f(s.Replag.Lag)
	}
}

func (o *Ops) clone() *Ops {
	if o == nil {
		return nil
	}
	c := *o
	c.Response, c.Service, c.Failure = o.Response.Clone(), o.Service.Clone(), o.Failure.Clone()
	return &c
}

// SetupReport is what the setup Job reports through its termination message.
type SetupReport struct {
	Version int `json:"v"`
	// CassandraVersion is the release_version of the nodes.
	CassandraVersion string `json:"cassandraVersion,omitempty"`
	// Nodes is the number of nodes seen up.
	Nodes int32 `json:"nodes,omitempty"`
	// SettingsVerified lists the cassandra-yaml settings found with the wanted value on every
	// node, then the jvm*-server-options keys (heap, collector) found so, named with their
	// section ("jvm-server-options.max_heap_size").
	SettingsVerified []string `json:"settingsVerified,omitempty"`
	// Unverified says which jvm*-server-options keys could not be read on some node, and why.
	Unverified []string `json:"unverified,omitempty"`
	// Snapshots is the number of nodes that keep snapshots of the benchmark keyspace after a
	// recreating run dropped it (auto_snapshot): they fill disks over a sweep.
	Snapshots int `json:"snapshots,omitempty"`
	// Error says why setup failed: a setting that did not apply names the node, the setting,
	// the value wanted and the value found.
	Error string `json:"err,omitempty"`
}

// Encode renders the report within MaxBytes, truncating the error if it must.
func (r *SetupReport) Encode() ([]byte, error) {
	out := *r
	out.Version = Version
	b, err := json.Marshal(&out)
	if err != nil {
		return nil, fmt.Errorf("encoding setup report: %w", err)
	}
	for len(b) > MaxBytes && len(out.Unverified) > 0 {
		out.Unverified = out.Unverified[:len(out.Unverified)/2]
		b, _ = json.Marshal(&out)
	}
	for len(b) > MaxBytes && len(out.SettingsVerified) > 0 {
		out.SettingsVerified = out.SettingsVerified[:len(out.SettingsVerified)/2]
		b, _ = json.Marshal(&out)
	}
	if len(b) > MaxBytes {
		out.Error = out.Error[:min(len(out.Error), 1024)]
		b, _ = json.Marshal(&out)
	}
	return b, nil
}

// DecodeSetupReport parses a setup report and checks its version.
func DecodeSetupReport(b []byte) (*SetupReport, error) {
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("setup report is %d bytes, more than the %d a setup Job writes", len(b), MaxBytes)
	}
	var r SetupReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("parsing setup report: %w", err)
	}
	if r.Version != Version {
		return nil, fmt.Errorf("setup report has version %d, this controller reads version %d", r.Version, Version)
	}
	return &r, nil
}
