package localcassandra

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

func TestDatacenterNodes(t *testing.T) {
	tests := map[string]struct {
		n, dcs int
		want   map[string][]int
	}{
		"one datacenter keeps SimpleSnitch's name": {n: 3, dcs: 1, want: map[string][]int{"datacenter1": {1, 2, 3}}},
		"zero is one":   {n: 2, dcs: 0, want: map[string][]int{"datacenter1": {1, 2}}},
		"one node each": {n: 2, dcs: 2, want: map[string][]int{"dc1": {1}, "dc2": {2}}},
		"round robin":   {n: 5, dcs: 2, want: map[string][]int{"dc1": {1, 3, 5}, "dc2": {2, 4}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, DatacenterNodes(tc.n, tc.dcs)); diff != "" {
				t.Errorf("DatacenterNodes(%d, %d) (-want +got):\n%s", tc.n, tc.dcs, diff)
			}
		})
	}
}

// Each datacenter's ring is balanced on its own, and no token is taken twice in the cluster.
func TestDatacenterTokens(t *testing.T) {
	const n, dcs, per = 5, 2, 4
	seen := map[string]int{}
	for i := 1; i <= n; i++ {
		for _, tok := range strings.Split(datacenterTokens(i, n, dcs, per), ",") {
			if j, dup := seen[tok]; dup {
				t.Errorf("token %s given to nodes %d and %d", tok, j, i)
			}
			seen[tok] = i
		}
	}
	if len(seen) != n*per {
		t.Errorf("%d tokens, want %d", len(seen), n*per)
	}
	// dc2 (nodes 2 and 4) holds the tokens of a 2-node ring, each moved by one.
	for m, i := range []int{2, 4} {
		var want []string
		for _, tok := range strings.Split(InitialTokens(m+1, 2, per), ",") {
			v, _ := strconv.ParseInt(tok, 10, 64)
			want = append(want, strconv.FormatInt(v+1, 10))
		}
		if got := datacenterTokens(i, n, dcs, per); got != strings.Join(want, ",") {
			t.Errorf("node %d: tokens %s, want %s", i, got, strings.Join(want, ","))
		}
	}
	if got, want := datacenterTokens(3, n, dcs, per), InitialTokens(2, 3, per); got != want {
		t.Errorf("node 3 (second of dc1's three): tokens %s, want %s", got, want)
	}
	if got, want := datacenterTokens(2, 3, 1, per), InitialTokens(2, 3, per); got != want {
		t.Errorf("one datacenter: tokens %s, want InitialTokens' %s", got, want)
	}
}

// A node of a two-datacenter cluster runs GossipingPropertyFileSnitch and names its own
// datacenter in the properties file its JVM is pointed at; a cluster of one keeps SimpleSnitch.
func TestWriteNodeConfDatacenters(t *testing.T) {
	tests := map[string]struct {
		clusterConf string
		snitch, dc  string
	}{
		"two datacenters": {clusterConf: "version=5.0.9\nnodes=2\nheap=512M\nauth=0\ndatacenters=2\n", snitch: Snitch, dc: "dc2"},
		"one datacenter":  {clusterConf: "version=5.0.9\nnodes=2\nheap=512M\nauth=0\n", snitch: "SimpleSnitch", dc: "datacenter1"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			l := Layout{Cache: dir, Dir: dir, Version: "5.0.9", Offset: 10}
			for _, d := range []string{filepath.Join(l.Dist(), "conf"), l.NodeDir(2)} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for path, text := range map[string]string{
				filepath.Join(l.Dist(), "conf", "cassandra.yaml"): BaseYAML,
				filepath.Join(l.Nodes(), "cluster.conf"):          tc.clusterConf,
			} {
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := l.writeNodeConf(2); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(l.NodeDir(2), "conf", "cassandra.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := yaml.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if got["endpoint_snitch"] != tc.snitch {
				t.Errorf("endpoint_snitch = %v, want %s", got["endpoint_snitch"], tc.snitch)
			}
			props := readText(filepath.Join(l.NodeDir(2), "conf", "cassandra-rackdc.properties"))
			if props != "dc="+tc.dc+"\nrack=rack1" {
				t.Errorf("cassandra-rackdc.properties = %q, want dc=%s", props, tc.dc)
			}
			want := "-Dcassandra-rackdc.properties=file://" + l.NodeDir(2) + "/conf/cassandra-rackdc.properties"
			if args := l.jvmArgs(2, "512M", "/j.jar", nil); !slices.Contains(args, want) {
				t.Errorf("java arguments lack %s", want)
			}
		})
	}
}
