package summary

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/cassbench/cassbench/internal/sketch"
)

func wide(seed uint64, n int) *sketch.Sketch {
	r := rand.New(rand.NewPCG(seed, seed+1))
	s := sketch.New()
	for i := 0; i < n; i++ {
		// From tens of microseconds to tens of seconds: the widest a real run produces.
		s.Add(math.Exp(r.Float64()*math.Log(5e7)) + 10)
	}
	return s
}

func ops(seed uint64) *Ops {
	return &Ops{OK: 1e9, WriteTimeout: 123456, ReadTimeout: 77, Unavailable: 9, Overloaded: 3,
		ClientTimeout: 41, Other: 2, Retries: 99999, Bytes: 1 << 40,
		Attempts: Failures{WriteTimeout: 223456, ClientTimeout: 99},
		Response: wide(seed, 200000), Service: wide(seed+10, 200000), Failure: wide(seed+20, 20000)}
}

func timeline(n int) *Timeline {
	t := &Timeline{IntervalMillis: 1000}
	for i := range n {
		t.Add(Point{Ops: 1_000_000 + int64(i), Errors: int64(i % 7), P99: 4000 + int64(i)})
	}
	return t
}

func TestEncodeAlwaysFits(t *testing.T) {
	cases := map[string]*Summary{
		"seven wide sketches and a timeline": {Index: 63, Writers: 64, Start: 1e12, End: 1e12 + 6e5, Writes: ops(1), Reads: ops(2),
			Lag: wide(9, 100000), Timeline: timeline(MaxPoints), Schedule: &Schedule{Target: 7000, Due: 4.2e6, Missed: 3, Late1ms: 12345}},
		"and a long error": {Index: 1, Writers: 2, Writes: ops(3), Reads: ops(4),
			Error: strings.Repeat("node 127.0.0.2 timed out; ", 400)},
		"empty": {Index: 0, Writers: 1},
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := s.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > MaxBytes {
				t.Fatalf("%d bytes, limit %d", len(b), MaxBytes)
			}
			back, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if back.Index != s.Index || back.Writers != s.Writers {
				t.Errorf("index/writers changed: %d/%d", back.Index, back.Writers)
			}
			if s.Writes != nil {
				if back.Writes.OK != s.Writes.OK || back.Writes.Failed() != s.Writes.Failed() {
					t.Errorf("counts changed: %+v", back.Writes)
				}
				if back.Writes.Response.Count() != s.Writes.Response.Count() {
					t.Errorf("sketch lost values: %d of %d", back.Writes.Response.Count(), s.Writes.Response.Count())
				}
				t.Logf("%d bytes, sketches at level %d (accuracy %.1f%%)", len(b),
					back.Writes.Response.Level(), 100*back.Writes.Response.RelativeAccuracy())
			}
			if s.Writes != nil && s.Writes.Response.Level() != 0 {
				t.Error("Encode changed the caller's sketch")
			}
		})
	}
}

func TestDecodeRefusesOtherVersions(t *testing.T) {
	if _, err := Decode([]byte(`{"v":1,"i":0}`)); err == nil || !strings.Contains(err.Error(), "version 1") {
		t.Fatalf("got %v", err)
	}
	if _, err := Decode([]byte(`not json`)); err == nil {
		t.Fatal("decoded garbage")
	}
}

// A summary that must shrink to fit keeps p99 and above at 1%, says at what accuracy every
// sketch was kept, and marks the percentiles it collapsed as bounds.
func TestShrunkSummaryKeepsTheTail(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var values []float64
	exact := sketch.New()
	for range 300000 {
		v := 200 * math.Exp(2*r.NormFloat64())
		values = append(values, v)
		exact.Add(v)
	}
	s := &Summary{Index: 1, Writers: 2, Writes: &Ops{OK: 300000, Response: exact, Service: exact.Clone(), Failure: exact.Clone()},
		Reads: &Ops{OK: 300000, Response: exact.Clone(), Service: exact.Clone()}, Lag: exact.Clone(), Timeline: timeline(MaxPoints)}
	back, err := s.RoundTrip()
	if err != nil {
		t.Fatal(err)
	}
	got := back.Writes.Response
	if !got.Floored() {
		t.Fatal("the summary fitted without shrinking: make the input wider")
	}
	sort.Float64s(values)
	for _, q := range []float64{0.99, 0.999} {
		want := values[int(q*float64(len(values)-1))]
		v, bound := got.QuantileBound(q)
		if rel := math.Abs(v-want) / want; bound || rel > sketch.Accuracy+1e-9 {
			t.Errorf("q%v: %.1f (bound %v), exact %.1f, relative error %.4f", q, v, bound, want, rel)
		}
	}
	if got.Level() != 0 {
		t.Errorf("the tail was coarsened to level %d before the low end was collapsed", got.Level())
	}
	if len(back.Timeline.Points) >= MaxPoints {
		t.Errorf("timeline kept %d points", len(back.Timeline.Points))
	}
	_, p50bound := got.QuantileBound(0.5)
	t.Logf("shrunk: timeline %d points, p50 a bound: %v", len(back.Timeline.Points), p50bound)
}

func TestTimelineRoundTripAndMerge(t *testing.T) {
	a := timeline(MaxPoints + 1)
	if a.IntervalMillis != 2000 || len(a.Points) != MaxPoints/2+1 {
		t.Fatalf("a timeline past %d points should halve: %d points of %d ms", MaxPoints, len(a.Points), a.IntervalMillis)
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var back Timeline
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Points[3].Ops != a.Points[3].Ops || back.Points[3].P99 != QuantizeP99(float64(a.Points[3].P99)) {
		t.Errorf("point 3 changed: %+v -> %+v", a.Points[3], back.Points[3])
	}
}

func TestSetupReportFits(t *testing.T) {
	r := &SetupReport{CassandraVersion: "5.0.4", Nodes: 3, Error: strings.Repeat("x", 10000)}
	for i := 0; i < 500; i++ {
		r.SettingsVerified = append(r.SettingsVerified, "some_rather_long_setting_name")
	}
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > MaxBytes {
		t.Fatalf("%d bytes", len(b))
	}
	back, err := DecodeSetupReport(b)
	if err != nil || back.Nodes != 3 || back.Error == "" {
		t.Fatalf("%+v %v", back, err)
	}
}

// The result channel decision, measured: the largest summary a writer produces — writes and
// reads with failures, the schedule lag, a full timeline and a full server block — still fits
// the termination message with p99 and above at 1%, so the channel stays the termination
// message and no pod log is read.
func TestLargestSummaryKeepsTheTailAtOnePercent(t *testing.T) {
	server := &Server{}
	for i := range 64 {
		server.Nodes = append(server.Nodes, ServerNode{Node: fmt.Sprintf("10.0.%d.%d", i/250, i%250), Count: 1, Mutations: 123456789,
			Reads: 98765432, PendingPeak: 1234, PendingStage: "MutationStage", Dropped: 12345, Compactions: 12, Flushes: 34,
			TableMiBBefore: 1000, TableMiBAfter: 4000, DiskMiB: 50000, CoordWriteP99Micros: 4500, CoordReadP99Micros: 8200})
	}
	server.Timeline = fullServerTimeline()
	server.Bound()
	s := &Summary{Index: 63, Writers: 64, Start: 1e12, End: 1e12 + 36e5, SpanMicros: 36e8, OffsetMillis: -3, OffsetErrorMillis: 1,
		Writes: ops(21), Reads: ops(22), Lag: wide(23, 200000), Timeline: timeline(MaxPoints), Server: server,
		Schedule: &Schedule{Target: 70000, Due: 252e6, Missed: 1234, Backlog: 12, Late1ms: 5678, Late10pct: 9012, DrainMicros: 123456}}
	b, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for name, sk := range map[string]*sketch.Sketch{"write response": back.Writes.Response, "read failure": back.Reads.Failure, "lag": back.Lag} {
		if sk.Level() != 0 {
			t.Errorf("%s sketch at level %d (accuracy %.1f%%): the tail lost its 1%%", name, sk.Level(), 100*sk.RelativeAccuracy())
		}
		if _, bound := sk.QuantileBound(0.99); bound {
			t.Errorf("%s: p99 is only a bound", name)
		}
	}
	if back.Server.Timeline == nil || len(back.Server.Timeline.Points) < MaxServerPoints/2 {
		t.Errorf("the server timeline did not come back whole: %+v", back.Server.Timeline)
	}
	t.Logf("largest summary: %d of %d bytes; timeline %d points; server %d nodes listed, timeline %d points",
		len(b), MaxBytes, len(back.Timeline.Points), len(back.Server.Nodes), len(back.Server.Timeline.Points))
}

// Writes and reads with every sketch, six kinds of workload.operations each with a wide
// response sketch, the lag and a full timeline still fit: the kinds' sketches shrink with the
// others, and the tail keeps the accuracy Encode reports for it.
func TestSummaryWithEveryKindFits(t *testing.T) {
	s := &Summary{Index: 3, Writers: 4, Start: 1e12, End: 1e12 + 6e5, Writes: ops(31), Reads: ops(32),
		Lag: wide(33, 100000), Timeline: timeline(MaxPoints)}
	for i, k := range []string{"update", "delete", "insertIfNotExists", "counterIncrement", "scanPartition", "scanTokenRange"} {
		s.Kinds = append(s.Kinds, &KindOps{Kind: k, Ops: Ops{OK: 100000, Rows: 5, Response: wide(uint64(40+i), 100000)}, Pages: 7, Applied: 3, NotApplied: 4})
	}
	b, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > MaxBytes {
		t.Fatalf("%d bytes", len(b))
	}
	back, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Kinds) != 6 {
		t.Fatalf("%d kinds came back", len(back.Kinds))
	}
	for i, k := range back.Kinds {
		orig := s.Kinds[i]
		if k.Kind != orig.Kind || k.OK != orig.OK || k.Pages != 7 || k.Applied != 3 || k.NotApplied != 4 || k.Rows != 5 {
			t.Errorf("kind %d came back as %+v", i, k)
		}
		if k.Response == nil || k.Response.Count() != orig.Response.Count() {
			t.Fatalf("kind %s lost its response sketch", k.Kind)
		}
		want := orig.Response.Quantile(0.99)
		got, _ := k.Response.QuantileBound(0.99)
		if rel := math.Abs(got-want) / want; rel > k.Response.RelativeAccuracy()+1e-9 {
			t.Errorf("kind %s p99 %.0f, unshrunk %.0f: off by %.4f, more than the %.4f it claims", k.Kind, got, want, rel, k.Response.RelativeAccuracy())
		}
	}
	if s.Kinds[0].Response.Level() != 0 || s.Kinds[0].Response.Floored() {
		t.Error("Encode changed the caller's kind sketch")
	}
	t.Logf("%d bytes; kinds' response sketches at relative accuracy %.3f, writes' at %.3f",
		len(b), back.Kinds[0].Response.RelativeAccuracy(), back.Writes.Response.RelativeAccuracy())
}
