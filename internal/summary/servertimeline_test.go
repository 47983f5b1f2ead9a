package summary

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fullServerTimeline is the largest a writer keeps: every point at its most digits.
func fullServerTimeline() *ServerTimeline {
	t := &ServerTimeline{FromMillis: 1.8e12, IntervalMillis: 5000}
	for i := range MaxServerPoints {
		t.Points = append(t.Points, ServerPoint{AtMillis: int64(i+1) * 5123, Pending: 123456, Compactions: 12345, Flushes: 12345, GCPauses: 1234, GCMillis: 123456})
	}
	return t
}

// Points travel as uvarints and come back as they were.
func TestServerTimelineRoundTrip(t *testing.T) {
	tl := fullServerTimeline()
	tl.Points[3] = ServerPoint{AtMillis: tl.Points[3].AtMillis}
	b, err := json.Marshal(tl)
	if err != nil {
		t.Fatal(err)
	}
	var back ServerTimeline
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*tl, back); diff != "" {
		t.Errorf("(-sent +got):\n%s", diff)
	}
	t.Logf("%d points in %d bytes", len(tl.Points), len(b))
	if len(b) > MaxServerBytes/2 {
		t.Errorf("a full server timeline takes %d bytes, over half the server section's %d", len(b), MaxServerBytes)
	}
	// Hints travel beside the points, only when some point has any: they add two uvarints a
	// point then, which Bound makes room for as for anything else.
	tl.Points[5].HintsStored, tl.Points[5].HintsDelivered = 123456, 123000
	if b, err = json.Marshal(tl); err != nil {
		t.Fatal(err)
	}
	back = ServerTimeline{}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*tl, back); diff != "" {
		t.Errorf("with hints (-sent +got):\n%s", diff)
	}
	t.Logf("with hints: %d bytes", len(b))
	// A writer's summary from before hints has no "h": its points have none. An "h" of
	// another length than the points' is refused.
	var old ServerTimeline
	if err := json.Unmarshal([]byte(`{"t0":1,"ms":1000,"p":"6AcBAgMEBQ"}`), &old); err != nil || len(old.Points) != 1 ||
		old.Points[0] != (ServerPoint{AtMillis: 1000, Pending: 1, Compactions: 2, Flushes: 3, GCPauses: 4, GCMillis: 5}) {
		t.Errorf("a timeline without hints decoded to %+v, %v", old, err)
	}
	for _, bad := range []string{`{"t0":1,"ms":1,"p":"!!"}`, `{"t0":1,"ms":1,"p":"gA"}`, `[1]`,
		`{"t0":1,"ms":1000,"p":"6AcBAgMEBQ","h":"AQIDBA"}`, `{"t0":1,"ms":1000,"p":"6AcBAgMEBQ","h":"AQ"}`, `{"t0":1,"ms":1000,"p":"6AcBAgMEBQ","h":"!"}`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
}

// A timeline past MaxServerPoints merges neighbours: the peak stays the highest, counts add,
// and the merged point ends where its second half did.
func TestServerTimelineHalves(t *testing.T) {
	tl := &ServerTimeline{IntervalMillis: 500}
	var compactions int64
	for i := range MaxServerPoints + 1 {
		tl.Add(ServerPoint{AtMillis: int64(i+1) * 500, Pending: int64(i % 7), Compactions: int64(i), Flushes: 1, GCPauses: 2, GCMillis: 3, HintsStored: 5, HintsDelivered: 1})
		compactions += int64(i)
	}
	if len(tl.Points) != MaxServerPoints/2+1 || tl.IntervalMillis != 1000 {
		t.Fatalf("%d points at %d ms", len(tl.Points), tl.IntervalMillis)
	}
	var sum, flushes int64
	for _, p := range tl.Points {
		sum += p.Compactions
		flushes += p.Flushes
	}
	if sum != compactions || flushes != MaxServerPoints+1 {
		t.Errorf("compactions %d of %d, flushes %d", sum, compactions, flushes)
	}
	if p := tl.Points[3]; p != (ServerPoint{AtMillis: 4000, Pending: 6, Compactions: 6 + 7, Flushes: 2, GCPauses: 4, GCMillis: 6, HintsStored: 10, HintsDelivered: 2}) {
		t.Errorf("point 3 merged to %+v", p)
	}
}

// Bound halves the timeline before it moves any node into Rest, and drops it only when even
// Rest alone does not leave it room.
func TestServerBoundShrinksTheTimelineFirst(t *testing.T) {
	s := Server{Timeline: fullServerTimeline()}
	for range 3 {
		s.Nodes = append(s.Nodes, ServerNode{Node: "10.0.0.1", Mutations: 123456789, Worst: strings.Repeat("w", 150)})
	}
	s.Bound()
	if b, _ := json.Marshal(&s); len(b) > MaxServerBytes {
		t.Fatalf("%d bytes", len(b))
	}
	if s.Timeline == nil || len(s.Timeline.Points) != MaxServerPoints/2 || s.Rest != nil {
		t.Errorf("3 nodes and a full timeline: %d nodes listed, rest %v, timeline %+v", len(s.Nodes), s.Rest, s.Timeline)
	}
	// An error as long as the section leaves no room for a timeline at all.
	s = Server{Timeline: fullServerTimeline(), Error: strings.Repeat("e", 256), Rest: &ServerNode{Worst: strings.Repeat("w", 700)}}
	s.Bound()
	if b, _ := json.Marshal(&s); len(b) > MaxServerBytes || s.Timeline != nil {
		t.Errorf("%d bytes, timeline %+v", len(b), s.Timeline)
	}
}
