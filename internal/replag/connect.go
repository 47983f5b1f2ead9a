package replag

import (
	"errors"
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/cql"
)

// Connect opens an observer's session on the observed datacenter, o.LocalDatacenter, and on
// no other: LOCAL_ONE is local to the coordinator, so a session that fell back to another
// datacenter's coordinator (as the driver's DC-aware policy does when the local hosts are
// down) would read that datacenter's replica and see every key at once.
func Connect(o cql.Options) (*gocql.Session, error) {
	if o.LocalDatacenter == "" {
		return nil, errors.New("replag: an observer needs the datacenter it observes")
	}
	c, err := o.Cluster()
	if err != nil {
		return nil, err
	}
	c.HostFilter = gocql.DataCenterHostFilter(o.LocalDatacenter)
	s, err := c.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connecting an observer to datacenter %s: %w", o.LocalDatacenter, err)
	}
	return s, nil
}
