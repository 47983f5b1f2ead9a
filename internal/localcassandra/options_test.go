package localcassandra

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseOptions(t *testing.T) {
	def := DefaultOptions()
	tests := map[string]struct {
		args    []string
		want    Options
		wantErr string
	}{
		"none": {want: def},
		"start options, both spellings": {
			args: []string{"--nodes", "3", "--heap=1G", "--set", "a=1", "--set=b={x: y}", "--jvm-opt", "-Dk=v", "--auth", "--timeout=30", "--reset"},
			want: Options{Nodes: 3, Heap: "1G", HeapSet: true, Sets: []string{"a=1", "b={x: y}"}, JVMOpts: []string{"-Dk=v"}, Auth: true, Timeout: 30 * time.Second, Reset: true},
		},
		"two datacenters": {
			args: []string{"--nodes", "2", "--datacenters=2"},
			want: Options{Nodes: 2, Datacenters: 2, Heap: "512M", Timeout: def.Timeout},
		},
		"more datacenters than nodes": {args: []string{"--nodes", "2", "--datacenters", "3"}, wantErr: "--datacenters must be 1..--nodes"},
		"zero datacenters":            {args: []string{"--datacenters", "0"}, wantErr: "--datacenters must be 1..--nodes"},
		"stop options": {
			args: []string{"--node", "2", "--kill", "--force"},
			want: Options{Nodes: 1, Heap: "512M", Timeout: def.Timeout, Node: 2, Kill: true, Force: true},
		},
		"removing a key":  {args: []string{"--set", "concurrent_writes="}, want: Options{Nodes: 1, Heap: "512M", Timeout: def.Timeout, Sets: []string{"concurrent_writes="}}},
		"unknown option":  {args: []string{"--nodez", "2"}, wantErr: "unknown option: --nodez"},
		"flag with value": {args: []string{"--auth=1"}, wantErr: "unknown option: --auth=1"},
		"missing value":   {args: []string{"--nodes"}, wantErr: "--nodes needs a value"},
		"zero nodes":      {args: []string{"--nodes", "0"}, wantErr: "--nodes must be 1..254"},
		"too many nodes":  {args: []string{"--nodes", "255"}, wantErr: "--nodes must be 1..254"},
		"bad heap":        {args: []string{"--heap", "512"}, wantErr: "--heap must look like 512M or 2G"},
		"bad timeout":     {args: []string{"--timeout", "3m"}, wantErr: "--timeout must be seconds"},
		"bad node":        {args: []string{"--node", "x"}, wantErr: "--node must be a node number"},
		"bad set":         {args: []string{"--set", "1a=2"}, wantErr: "--set wants key=value, got: 1a=2"},
		"set without =":   {args: []string{"--set", "concurrent_writes"}, wantErr: "--set wants key=value, got: concurrent_writes"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseOptions(tc.args)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// The stored text is what the earlier script wrote to nodes/cluster.conf: a cluster started by
// either must count as the same cluster for the other.
func TestConfTextAndArgsRoundTrip(t *testing.T) {
	o, err := ParseOptions([]string{"--nodes", "2", "--auth", "--set", "endpoint_snitch=GossipingPropertyFileSnitch", "--jvm-opt", "-Dx=y"})
	if err != nil {
		t.Fatal(err)
	}
	want := "version=5.0.9\nnodes=2\nheap=512M\nauth=1\nset=endpoint_snitch=GossipingPropertyFileSnitch\njvm_opt=-Dx=y"
	if got := o.ConfText("5.0.9"); got != want {
		t.Errorf("ConfText =\n%s\nwant\n%s", got, want)
	}
	back, err := ParseOptions(o.Args())
	if err != nil {
		t.Fatal(err)
	}
	if back.ConfText("5.0.9") != want {
		t.Errorf("Args() %q parse to another cluster:\n%s", o.Args(), back.ConfText("5.0.9"))
	}
	// Two datacenters are another cluster, and their option survives Args.
	o.Datacenters = 2
	two := o.ConfText("5.0.9")
	if !strings.Contains(two, "\ndatacenters=2") {
		t.Errorf("ConfText of two datacenters lacks datacenters=2:\n%s", two)
	}
	if back, err = ParseOptions(o.Args()); err != nil || back.ConfText("5.0.9") != two {
		t.Errorf("Args() %q parse to another cluster (%v):\n%s", o.Args(), err, back.ConfText("5.0.9"))
	}
	conf := want + "\nnode2.set=a=1\nset=late"
	if got := confValue(conf, "set"); got != "late" {
		t.Errorf("confValue(set) = %q, want the last one", got)
	}
	// A node's restart options are recorded as node<i>.set and are not cluster options.
	if diff := cmp.Diff([]string{"a=1", "late"}, confValues("set=a=1\nnode2.set=x=1\nset=late", "set")); diff != "" {
		t.Errorf("confValues (-want +got):\n%s", diff)
	}
}
