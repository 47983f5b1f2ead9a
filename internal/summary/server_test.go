package summary

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Server figures travel in the summary and come back as they were.
func TestServerRoundTrip(t *testing.T) {
	s := &Summary{Index: 0, Writers: 2, Start: 1, End: 2,
		Server: &Server{Nodes: []ServerNode{{Node: "10.0.0.1", Mutations: 5, PendingPeak: 9, PendingStage: "MutationStage", Logs: true, GCPauses: 1, GCMaxMillis: 300}}},
		CPU:    &WriterCPU{UsedMillicores: 950, LimitMillicores: 1000, ThrottledPercent: 30, SchedP99Micros: 7000, Procs: 1, Concurrency: 64}}
	b, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s.Server, got.Server); diff != "" {
		t.Errorf("server (-sent +got):\n%s", diff)
	}
	if diff := cmp.Diff(s.CPU, got.CPU); diff != "" {
		t.Errorf("cpu (-sent +got):\n%s", diff)
	}
}

// Bound sums what does not fit into Rest: counts add up, peaks keep the highest.
func TestServerBoundKeepsTotals(t *testing.T) {
	var s Server
	var mutations int64
	for i := range 12 {
		n := ServerNode{Node: strings.Repeat("n", 40), Mutations: int64(1000 + i), PendingPeak: int64(i), PendingStage: "ReadStage", Worst: strings.Repeat("w", 150)}
		mutations += n.Mutations
		s.Nodes = append(s.Nodes, n)
	}
	s.Bound()
	b, _ := json.Marshal(&s)
	if len(b) > MaxServerBytes || s.Rest == nil {
		t.Fatalf("%d bytes, rest %+v", len(b), s.Rest)
	}
	var sum int64
	for _, n := range s.Nodes {
		sum += n.Mutations
	}
	sum += s.Rest.Mutations
	if sum != mutations || int(s.Rest.Count)+len(s.Nodes) != 12 || s.Rest.PendingPeak != 11 || s.Rest.Worst != "" {
		t.Errorf("after Bound: %d mutations of %d, %d listed + rest %+v", sum, mutations, len(s.Nodes), *s.Rest)
	}
}
