// Package summary defines what a writer or setup pod reports through its termination message.
// The writer produces these types and the controller consumes them; both import this package
// so the contract lives in one place.
package summary

import (
	"encoding/json"
	"fmt"

	"github.com/cassbench/cassbench/internal/sketch"
)

// Version of the summary format. A consumer refuses summaries of a version it does not know.
const Version = 1

// MaxBytes is the most a termination message may hold.
const MaxBytes = 4096

// maxLevel bounds how far Encode coarsens sketches to fit MaxBytes: level 4 is about 16%
// relative accuracy, and no summary needs more than that to fit.
const maxLevel = 6

// Summary is one writer's result over its measured window.
type Summary struct {
	Version int `json:"v"`
	// Index of this writer, of Writers.
	Index   int32 `json:"i"`
	Writers int32 `json:"n"`
	// Start and End of the measured window, Unix milliseconds.
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	// Writes and Reads; nil when the workload has none of that kind.
	Writes *Ops `json:"w,omitempty"`
	Reads  *Ops `json:"r,omitempty"`
	// Error says why the writer failed; empty when it succeeded.
	Error string `json:"err,omitempty"`
	// Server is what the nodes this writer watched did in its window (bounded by
	// MaxServerBytes); CPU is the writer's own CPU use. Both feed the bottleneck verdict.
	Server *Server    `json:"srv,omitempty"`
	CPU    *WriterCPU `json:"cpu,omitempty"`
}

// Ops counts one kind of operation by outcome.
type Ops struct {
	OK            int64 `json:"ok"`
	WriteTimeout  int64 `json:"wto,omitempty"`
	ReadTimeout   int64 `json:"rto,omitempty"`
	Unavailable   int64 `json:"una,omitempty"`
	Overloaded    int64 `json:"ovl,omitempty"`
	ClientTimeout int64 `json:"cto,omitempty"`
	Other         int64 `json:"oth,omitempty"`
	Retries       int64 `json:"rty,omitempty"`
	Bytes         int64 `json:"b,omitempty"`
	// Response latency from the intended start (open loop) or the send (closed loop), and
	// Service latency from the send, in microseconds, of successful operations.
	Response *sketch.Sketch `json:"rl,omitempty"`
	Service  *sketch.Sketch `json:"sl,omitempty"`
}

// Failed is the number of operations that did not succeed after retries.
func (o *Ops) Failed() int64 {
	return o.WriteTimeout + o.ReadTimeout + o.Unavailable + o.Overloaded + o.ClientTimeout + o.Other
}

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
	o.Bytes += other.Bytes
}

// Timeouts is the number of operations that failed by a server or client timeout.
func (o *Ops) Timeouts() int64 { return o.WriteTimeout + o.ReadTimeout + o.ClientTimeout }

// Encode renders the summary as JSON of at most MaxBytes, coarsening its sketches as far as
// needed and then truncating Error. It fails only if even that cannot fit.
func (s *Summary) Encode() ([]byte, error) {
	out := *s
	out.Version = Version
	out.Writes, out.Reads = out.Writes.clone(), out.Reads.clone()
	for level := uint8(0); ; level++ {
		out.forEachSketch(func(sk *sketch.Sketch) { sk.Coarsen(level) })
		b, err := json.Marshal(&out)
		if err != nil {
			return nil, fmt.Errorf("encoding summary: %w", err)
		}
		if len(b) <= MaxBytes {
			return b, nil
		}
		if len(out.Error) > 256 {
			out.Error = out.Error[:256]
			level--
			continue
		}
		if level >= maxLevel {
			return nil, fmt.Errorf("summary is %d bytes even with sketches at level %d", len(b), level)
		}
	}
}

// Decode parses a summary and checks its version.
func Decode(b []byte) (*Summary, error) {
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("parsing writer summary: %w", err)
	}
	if s.Version != Version {
		return nil, fmt.Errorf("writer summary has version %d, this controller reads version %d", s.Version, Version)
	}
	return &s, nil
}

func (s *Summary) forEachSketch(f func(*sketch.Sketch)) {
	for _, o := range []*Ops{s.Writes, s.Reads} {
		if o == nil {
			continue
		}
		for _, sk := range []*sketch.Sketch{o.Response, o.Service} {
			if sk != nil {
				f(sk)
			}
		}
	}
}

func (o *Ops) clone() *Ops {
	if o == nil {
		return nil
	}
	c := *o
	if o.Response != nil {
		c.Response = o.Response.Clone()
	}
	if o.Service != nil {
		c.Service = o.Service.Clone()
	}
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
	var r SetupReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("parsing setup report: %w", err)
	}
	if r.Version != Version {
		return nil, fmt.Errorf("setup report has version %d, this controller reads version %d", r.Version, Version)
	}
	return &r, nil
}
