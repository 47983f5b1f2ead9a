package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/podenv"
)

// Each writer of a run across datacenters connects to its own datacenter: the spec's order
// of spec.datacenters gives the first indexes to the first datacenter's writers.
func TestPlaceConnectsEachWriterToItsDatacenter(t *testing.T) {
	spec := &cbv1.BenchmarkRunSpec{Datacenters: []cbv1.RunDatacenter{{Name: "east", Writers: 2}, {Name: "lag"}, {Name: "west", Writers: 1}}}
	placement := podenv.FormatPlacement([]podenv.PlacementEntry{
		{Name: "east", Datacenter: "dc-east", Host: "c1-east-service.db.svc", Port: 9042},
		{Name: "lag", Datacenter: "dc-lag", Host: "c1-lag-service.db.svc", Port: 9042},
		{Name: "west", Datacenter: "dc-west", Host: "c1-west-service.db.svc", Port: 9142},
	})
	type conn struct {
		Hosts, Datacenter string
		Port              int
	}
	cases := map[string]struct {
		index   int
		want    conn
		wantErr bool
	}{
		"writer 0: east":            {index: 0, want: conn{"c1-east-service.db.svc", "dc-east", 9042}},
		"writer 1: east":            {index: 1, want: conn{"c1-east-service.db.svc", "dc-east", 9042}},
		"writer 2: west, past lag":  {index: 2, want: conn{"c1-west-service.db.svc", "dc-west", 9142}},
		"writer 3: beyond them all": {index: 3, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := ConnFlags{hosts: "unset", port: 1, Datacenter: "unset"}
			err := c.Place(placement, spec, tc.index)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, conn{c.hosts, c.Datacenter, c.port}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A run of one datacenter, or a pod given no placement, keeps its connection flags.
func TestPlaceLeavesARunOfOneDatacenter(t *testing.T) {
	c := ConnFlags{hosts: "h", port: 9042, Datacenter: "dc1"}
	if err := c.Place("", &cbv1.BenchmarkRunSpec{Datacenters: []cbv1.RunDatacenter{{Name: "dc1", Writers: 1}}}, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Place("dc1=x@y:1", &cbv1.BenchmarkRunSpec{}, 0); err != nil {
		t.Fatal(err)
	}
	if c.hosts != "h" || c.port != 9042 || c.Datacenter != "dc1" {
		t.Errorf("changed: %+v", c)
	}
}

// A placement that is not name=datacenter@host:port is refused, naming the entry.
func TestParsePlacementRefusesMalformedEntries(t *testing.T) {
	for _, bad := range []string{"dc1", "dc1=dc1", "dc1=dc1@host", "dc1=dc1@host:port", "=dc1@h:1"} {
		if _, err := podenv.ParsePlacement(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A writer outside the observed datacenter gets a connection to it, with its Cassandra name
// as the local datacenter and the writer's credentials; a writer in it observes nothing.
func TestObservedConnectsToTheObservedDatacenter(t *testing.T) {
	spec := &cbv1.BenchmarkRunSpec{Datacenters: []cbv1.RunDatacenter{{Name: "east", Writers: 1}, {Name: "west", Writers: 1, Observers: 1}}}
	placement := podenv.FormatPlacement([]podenv.PlacementEntry{
		{Name: "east", Datacenter: "dc-east", Host: "c1-east-service.db.svc", Port: 9042},
		{Name: "west", Datacenter: "dc-west", Host: "c1-west-service.db.svc", Port: 9142},
	})
	c := ConnFlags{Username: "u"}
	if err := c.Place(placement, spec, 0); err != nil {
		t.Fatal(err)
	}
	obs, name, ok, err := c.Observed(placement, spec, 0)
	if err != nil || !ok || name != "west" {
		t.Fatalf("writer 0 observes %q (%v, %v), want west", name, ok, err)
	}
	if obs.hosts != "c1-west-service.db.svc" || obs.port != 9142 || obs.Datacenter != "dc-west" || obs.Username != "u" {
		t.Errorf("observer's connection %+v", obs)
	}
	if c.Datacenter != "dc-east" {
		t.Errorf("the writer's own connection moved to %s", c.Datacenter)
	}
	if _, name, ok, err := c.Observed(placement, spec, 1); ok || err != nil {
		t.Errorf("writer 1, in west, observes %q (%v)", name, err)
	}
	if _, _, _, err := c.Observed("east=dc-east@h:1", spec, 0); err == nil {
		t.Error("a placement without the observed datacenter was accepted")
	}
}
