package cli

import (
	"fmt"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/podenv"
)

// Place connects a writer of a run across several datacenters to its own: the datacenter
// spec.datacenters gives its index (the first datacenter's writers take the first indexes,
// and so on, in the spec's order), with that datacenter's contact point and name from
// placement (podenv.Placement). A run of one datacenter, or no placement, leaves c as it is.
func (c *ConnFlags) Place(placement string, spec *cbv1.BenchmarkRunSpec, index int) error {
	if placement == "" || len(spec.Datacenters) == 0 {
		return nil
	}
	name, ok := podenv.WriterDatacenter(spec.Datacenters, index)
	if !ok {
		return fmt.Errorf("writer %d is beyond the writers spec.datacenters places", index)
	}
	return c.placeIn(placement, name, fmt.Sprintf("writer %d runs", index))
}

// Observed is c connected to the datacenter whose replication lag writer index observes
// (podenv.ObservedDatacenter) and its name in spec.datacenters; ok is false when the writer
// observes none.
func (c ConnFlags) Observed(placement string, spec *cbv1.BenchmarkRunSpec, index int) (_ ConnFlags, name string, ok bool, _ error) {
	name, ok = podenv.ObservedDatacenter(spec.Datacenters, index)
	if !ok || placement == "" {
		return c, "", false, nil
	}
	err := c.placeIn(placement, name, fmt.Sprintf("writer %d observes", index))
	return c, name, err == nil, err
}

// placeIn connects c to the datacenter spec.datacenters names name, as placement gives it;
// what says why c needs it.
func (c *ConnFlags) placeIn(placement, name, what string) error {
	entries, err := podenv.ParsePlacement(placement)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name == name {
			c.hosts, c.port, c.Datacenter = e.Host, int(e.Port), e.Datacenter
			return nil
		}
	}
	return fmt.Errorf("%s names no contact point for datacenter %s, where %s", podenv.Placement, name, what)
}
