package results

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cassbench/cassbench/internal/summary"
)

// A run across datacenters: each node keeps its datacenter, and the anomalies name it, so
// hints piling up in dc1 for an unreachable dc2 read as dc1's.
func TestMergeNamesEachNodesDatacenter(t *testing.T) {
	sums := []*summary.Summary{
		{Index: 0, Server: &summary.Server{Nodes: []summary.ServerNode{
			{Node: "10.0.0.1", Datacenter: "dc1", Mutations: 5000, Hints: 40},
			{Node: "10.1.0.1", Datacenter: "dc2", Mutations: 10},
		}}},
		{Index: 1, Server: &summary.Server{Nodes: []summary.ServerNode{
			{Node: "10.1.0.2", Datacenter: strings.Repeat("d", 70), Mutations: 10},
		}}},
	}
	got := MergeServer(sums)
	var dcs []string
	for _, n := range got.Nodes {
		dcs = append(dcs, n.Node+"="+n.Datacenter)
	}
	if diff := cmp.Diff([]string{"10.0.0.1=dc1", "10.1.0.1=dc2", "10.1.0.2=" + strings.Repeat("d", maxDatacenterName)}, dcs); diff != "" {
		t.Errorf("nodes' datacenters (-want +got):\n%s", diff)
	}
	if got.Total.Datacenter != "" {
		t.Errorf("the total names datacenter %q", got.Total.Datacenter)
	}
	if diff := cmp.Diff([]string{"node 10.0.0.1 (dc1) holds 40 hint files for other nodes"}, got.Anomalies); diff != "" {
		t.Errorf("anomalies (-want +got):\n%s", diff)
	}

	// Every node in one datacenter: nothing to tell apart, status and anomalies as before.
	one := MergeServer([]*summary.Summary{{Index: 0, Server: &summary.Server{Nodes: []summary.ServerNode{
		{Node: "10.0.0.1", Datacenter: "dc1", Hints: 40}, {Node: "10.0.0.2", Datacenter: "dc1"},
	}}}})
	for _, n := range one.Nodes {
		if n.Datacenter != "" {
			t.Errorf("one datacenter: node %s names %q", n.Node, n.Datacenter)
		}
	}
	if diff := cmp.Diff([]string{"node 10.0.0.1 holds 40 hint files for other nodes"}, one.Anomalies); diff != "" {
		t.Errorf("one datacenter: anomalies (-want +got):\n%s", diff)
	}
}
