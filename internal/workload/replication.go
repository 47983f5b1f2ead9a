package workload

import (
	"fmt"
	"strconv"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/workload/ddl"
)

// dcFactor is a keyspace's replication factor in one datacenter.
type dcFactor struct {
	name   string
	factor int32
}

// ntsFactors are the datacenters a NetworkTopologyStrategy keyspace replicates to, with their
// factors: each of schema.replication.datacenters (a run across datacenters, named as the
// CassandraDatacenters, which are the Cassandra datacenters' names unless a datacenter sets
// spec.datacenterName), or else datacenter, the local one, at schema.replication.factor.
func ntsFactors(s cbv1.SchemaSpec, datacenter string) ([]dcFactor, error) {
	if m := s.Replication.Datacenters; len(m) > 0 {
		out := make([]dcFactor, len(m))
		for i, d := range m {
			out[i] = dcFactor{name: d.Name, factor: d.Factor}
		}
		return out, nil
	}
	if datacenter == "" {
		return nil, fmt.Errorf("schema.replication NetworkTopologyStrategy needs the datacenter name")
	}
	return []dcFactor{{name: datacenter, factor: s.Replication.Factor}}, nil
}

// ntsCQL renders the factors as a replication map's entries: 'dc1': 3, 'dc2': 3.
func ntsCQL(fs []dcFactor) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = fmt.Sprintf("%s: %d", ddl.QuoteString(f.name), f.factor)
	}
	return strings.Join(parts, ", ")
}

// ntsWant is the replication map Cassandra keeps for the factors, as system_schema holds it.
func ntsWant(fs []dcFactor) map[string]string {
	out := map[string]string{"class": "NetworkTopologyStrategy"}
	for _, f := range fs {
		out[f.name] = strconv.Itoa(int(f.factor))
	}
	return out
}
