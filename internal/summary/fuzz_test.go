package summary

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// seedSummaries are summaries as writers encode them: the fixtures of the tests above.
func seedSummaries(f *testing.F) {
	for _, s := range []*Summary{
		{Index: 63, Writers: 64, Start: 1e12, End: 1e12 + 6e5, Writes: ops(1), Reads: ops(2),
			Lag: wide(9, 1000), Timeline: timeline(MaxPoints), Schedule: &Schedule{Target: 7000, Due: 4.2e6, Missed: 3, Late1ms: 12345}},
		{Index: 1, Writers: 2, Writes: ops(3), Error: "node 127.0.0.2 timed out", Load: &Load{Rows: 5, Wanted: 10, Millis: 7}},
		{Index: 0, Writers: 1},
		{Index: 0, Writers: 2, Start: 1, End: 2,
			Server: &Server{Nodes: []ServerNode{{Node: "10.0.0.1", Mutations: 5, PendingPeak: 9, PendingStage: "MutationStage", Logs: true, GCPauses: 1, GCMaxMillis: 300}}},
			CPU:    &WriterCPU{UsedMillicores: 950, LimitMillicores: 1000, ThrottledPercent: 30, Procs: 1, Concurrency: 64},
			Kinds:  []*KindOps{{Kind: "update", Ops: Ops{OK: 10, Response: wide(4, 100)}, Pages: 2}}},
	} {
		b, err := s.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzDecode: a termination message is whatever the pod wrote. Decode returns an error or a
// summary within the documented bounds, and a decoded summary encodes to a fixed point.
func FuzzDecode(f *testing.F) {
	seedSummaries(f)
	f.Add([]byte(`{"v":2,"tl":{"ms":1000,"p":"AAAA"}}`))
	f.Add([]byte(`{"v":2,"w":{"ok":1,"rsp":"AgAAAQAAAAAAAAA"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b)
		if err != nil {
			return
		}
		if len(b) > MaxBytes {
			t.Fatalf("decoded %d bytes, more than MaxBytes", len(b))
		}
		if s.Timeline != nil && len(s.Timeline.Points) > MaxPoints {
			t.Fatalf("timeline of %d points", len(s.Timeline.Points))
		}
		enc, err := s.Encode()
		if err != nil {
			return // a summary can decode and still not fit once its omitted fields are written
		}
		if len(enc) > MaxBytes {
			t.Fatalf("Encode wrote %d bytes", len(enc))
		}
		back, err := Decode(enc)
		if err != nil {
			t.Fatalf("decoding what Encode wrote: %v\n%s", err, enc)
		}
		enc2, err := back.Encode()
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not a fixed point (%v):\n%s\n%s", err, enc, enc2)
		}
	})
}

// FuzzTimeline: the packed points decode within MaxPoints, and round-trip exactly.
func FuzzTimeline(f *testing.F) {
	for _, n := range []int{0, 1, 7, MaxPoints} {
		b, _ := json.Marshal(timeline(n))
		f.Add(b)
	}
	f.Add([]byte(`{"ms":1,"p":"//////////////8B"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var tl Timeline
		if err := json.Unmarshal(b, &tl); err != nil {
			return
		}
		if len(tl.Points) > MaxPoints {
			t.Fatalf("%d points", len(tl.Points))
		}
		enc, err := json.Marshal(&tl)
		if err != nil {
			t.Fatal(err)
		}
		var back Timeline
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatalf("decoding what MarshalJSON wrote: %v", err)
		}
		if diff := cmp.Diff(tl, back); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		tl.ShrinkTo(MaxPoints / 4)
	})
}

// FuzzServer: a server block decodes to what it encodes back to, and Bound keeps the totals.
func FuzzServer(f *testing.F) {
	f.Add([]byte(`{"n":[{"a":"10.0.0.1","m":5,"pp":9,"ps":"MutationStage","l":true,"gc":1,"gcm":300}]}`))
	f.Add([]byte(`{"n":[{"a":"10.0.0.1","m":5},{"a":"10.0.0.2","rd":7,"q":"` + strings.Repeat("w", 150) + `"}],"r":{"k":3,"m":9},"err":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Server
		if err := json.Unmarshal(b, &s); err != nil {
			return
		}
		enc, _ := json.Marshal(&s)
		var back Server
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatalf("decoding what Marshal wrote: %v", err)
		}
		// An empty list is written as none (omitempty): the two mean the same.
		if diff := cmp.Diff(s, back, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		var before, after int64
		for _, n := range s.Nodes {
			before += n.Mutations
		}
		if s.Rest != nil {
			before += s.Rest.Mutations
		}
		s.Bound()
		for _, n := range s.Nodes {
			after += n.Mutations
		}
		if s.Rest != nil {
			after += s.Rest.Mutations
		}
		if before != after {
			t.Fatalf("Bound changed the mutations from %d to %d", before, after)
		}
	})
}

// FuzzDecodeSetupReport: setup and preflight Jobs report through this; what decodes encodes
// back to itself within MaxBytes.
func FuzzDecodeSetupReport(f *testing.F) {
	for _, r := range []*SetupReport{
		{CassandraVersion: "4.1.5", Nodes: 3, SettingsVerified: []string{"concurrent_writes", "jvm-server-options.max_heap_size"}},
		{Nodes: 1, Unverified: []string{"jvm11-server-options: not readable"}, Snapshots: 2},
		{Error: "node 10.0.0.1: concurrent_writes is 32, want 64"},
	} {
		b, _ := r.Encode()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeSetupReport(b)
		if err != nil {
			return
		}
		enc, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeSetupReport(enc)
		if err != nil {
			t.Fatalf("decoding what Encode wrote: %v", err)
		}
		if len(enc) <= len(b) && !cmp.Equal(r, back, cmpopts.EquateEmpty()) {
			t.Fatalf("round trip changed the report:\n%s", cmp.Diff(r, back, cmpopts.EquateEmpty()))
		}
	})
}

// A message longer than any writer or setup Job writes is refused before it is parsed, so a
// pod cannot make the manager hold more than MaxBytes per report.
func TestDecodeRefusesMoreThanMaxBytes(t *testing.T) {
	pad := strings.Repeat(" ", MaxBytes)
	if _, err := Decode([]byte(`{"v":2}` + pad)); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("summary of %d bytes: %v", MaxBytes+7, err)
	}
	if _, err := DecodeSetupReport([]byte(`{"v":2}` + pad)); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("setup report of %d bytes: %v", MaxBytes+7, err)
	}
	if _, err := Decode([]byte(`{"v":2}`)); err != nil {
		t.Errorf("control: %v", err)
	}
}

// The largest stored p99 step decodes to a positive value, and the next one is refused.
func TestTimelineP99StepBound(t *testing.T) {
	enc := func(q uint64) []byte {
		b := binary.AppendUvarint(binary.AppendUvarint(binary.AppendUvarint(nil, 1), 0), q)
		return []byte(`{"ms":1000,"p":"` + base64.RawStdEncoding.EncodeToString(b) + `"}`)
	}
	var tl Timeline
	if err := json.Unmarshal(enc(maxQuantized), &tl); err != nil || tl.Points[0].P99 <= 0 {
		t.Errorf("step %d: %v, %+v", maxQuantized, err, tl.Points)
	}
	if err := json.Unmarshal(enc(maxQuantized+1), &tl); err == nil {
		t.Errorf("step %d decoded", maxQuantized+1)
	}
}
