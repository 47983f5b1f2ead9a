package localcassandra

import (
	"strconv"
	"strings"
)

// A cluster of several datacenters (--datacenters D) places node i in datacenter
// "dc<((i-1) mod D)+1>", rack "rack1": round robin, so that growing the cluster keeps every
// node where it was and adds nodes to each datacenter in turn. Its nodes run
// GossipingPropertyFileSnitch, each reading its own conf/cassandra-rackdc.properties (named by
// -Dcassandra-rackdc.properties, which Cassandra 5.0's SnitchProperties reads before the
// classpath). A cluster of one datacenter keeps SimpleSnitch and its "datacenter1".

// Snitch is the endpoint_snitch of a cluster of several datacenters.
const Snitch = "GossipingPropertyFileSnitch"

// NodeDatacenter is the datacenter of node i (1-based) in a cluster of dcs datacenters;
// "datacenter1", SimpleSnitch's, when dcs is 0 or 1.
func NodeDatacenter(i, dcs int) string {
	if dcs <= 1 {
		return "datacenter1"
	}
	return "dc" + strconv.Itoa((i-1)%dcs+1)
}

// DatacenterNodes lists the nodes of each datacenter of a cluster of n nodes in dcs
// datacenters, by datacenter name.
func DatacenterNodes(n, dcs int) map[string][]int {
	out := map[string][]int{}
	for i := 1; i <= n; i++ {
		dc := NodeDatacenter(i, dcs)
		out[dc] = append(out[dc], i)
	}
	return out
}

// datacenterTokens are node i's tokens in a cluster of n nodes in dcs datacenters, t tokens
// each: every datacenter's ring is balanced on its own (NetworkTopologyStrategy places each
// datacenter's replicas by that datacenter's tokens alone), and datacenter d's tokens are
// moved by d-1 so that no two nodes share one.
func datacenterTokens(i, n, dcs, t int) string {
	if dcs <= 1 {
		return InitialTokens(i, n, t)
	}
	d := (i - 1) % dcs
	perDC := len(DatacenterNodes(n, dcs)[NodeDatacenter(i, dcs)])
	tokens := strings.Split(InitialTokens((i-1)/dcs+1, perDC, t), ",")
	for j, tok := range tokens {
		// InitialTokens stays half a step below math.MaxInt64, far more than d.
		v, _ := strconv.ParseInt(tok, 10, 64)
		tokens[j] = strconv.FormatInt(v+int64(d), 10)
	}
	return strings.Join(tokens, ",")
}

// rackDCProperties is the cassandra-rackdc.properties of node i.
func rackDCProperties(i, dcs int) string {
	return "dc=" + NodeDatacenter(i, dcs) + "\nrack=rack1\n"
}
