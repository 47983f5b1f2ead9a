package mgmtapi

import (
	"fmt"
	"sort"
	"strings"
)

// checkConsistency judges whether reads at consistency level cl can succeed on a keyspace
// replicated rf times in every datacenter, as the agent's checkConsistencyLevel does
// (management-api-agent-5.0.x .../shim/CassandraAPI50x.java): a NetworkTopologyStrategy with
// rf in each datacenter that has nodes, and for every token range, enough live replicas. It
// returns the problems by range; none means the level can be met.
//
// The real check walks the token ring; gossip_info has no tokens, so this one judges each
// datacenter as a whole: a range there has min(rf, nodes) replicas, and the worst range is
// taken to hold every dead node among them. That is exact when every node replicates every
// range (rf >= nodes, the case of the small datacenters tests run) and errs towards
// "unhealthy" otherwise. Problems are keyed by datacenter ("[dc1]") instead of by range.
func checkConsistency(cl string, rf int, endpoints []map[string]string) (map[string][]string, error) {
	if rf <= 0 {
		return nil, fmt.Errorf("rf_per_dc must be > 0")
	}
	type dcState struct{ nodes, dead []string }
	dcs := map[string]*dcState{}
	localDC := ""
	for _, ep := range endpoints {
		if ep["IS_LOCAL"] == "true" {
			localDC = ep["DC"]
		}
		if !hasStatus(ep, "NORMAL") {
			continue
		}
		d := dcs[ep["DC"]]
		if d == nil {
			d = &dcState{}
			dcs[ep["DC"]] = d
		}
		d.nodes = append(d.nodes, ep["ENDPOINT_IP"])
		if ep["IS_ALIVE"] != "true" {
			d.dead = append(d.dead, ep["ENDPOINT_IP"])
		}
	}
	problems := map[string][]string{}
	judge := func(key string, replicas, blockFor int, dead []string) {
		switch {
		case len(dead) == 0 && replicas < blockFor:
			problems[key] = []string{fmt.Sprintf("%d replicas required, but only %d nodes in the ring", blockFor, replicas)}
		case replicas-min(len(dead), replicas) < blockFor:
			sort.Strings(dead)
			problems[key] = dead
		}
	}
	names := make([]string, 0, len(dcs))
	for n := range dcs {
		names = append(names, n)
	}
	sort.Strings(names)
	switch strings.ToUpper(cl) {
	case "LOCAL_ONE", "LOCAL_QUORUM", "LOCAL_SERIAL":
		d := dcs[localDC]
		if d == nil {
			d = &dcState{}
		}
		judge("["+localDC+"]", min(rf, len(d.nodes)), localBlockFor(cl, rf), d.dead)
	case "EACH_QUORUM":
		for _, n := range names {
			judge("["+n+"]", min(rf, len(dcs[n].nodes)), rf/2+1, dcs[n].dead)
		}
	case "ANY", "ONE", "TWO", "THREE", "QUORUM", "SERIAL", "ALL":
		replicas, total := 0, 0
		var dead []string
		for _, n := range names {
			replicas += min(rf, len(dcs[n].nodes))
			total += rf
			dead = append(dead, dcs[n].dead...)
		}
		judge("["+strings.Join(names, ",")+"]", replicas, globalBlockFor(cl, total), dead)
	default:
		// ConsistencyLevel.valueOf's message, which the real server answers with 500.
		//nolint:staticcheck // ST1005: the real server's message, verbatim
		return nil, fmt.Errorf("No enum constant org.apache.cassandra.db.ConsistencyLevel.%s", cl)
	}
	return problems, nil
}

func localBlockFor(cl string, rf int) int {
	if strings.EqualFold(cl, "LOCAL_ONE") {
		return 1
	}
	return rf/2 + 1
}

func globalBlockFor(cl string, total int) int {
	switch strings.ToUpper(cl) {
	case "TWO":
		return 2
	case "THREE":
		return 3
	case "QUORUM", "SERIAL":
		return total/2 + 1
	case "ALL":
		return total
	}
	return 1
}

// hasStatus is cass-operator's EndpointState.HasStatus (client.go): STATUS or
// STATUS_WITH_PORT starts with the status name ("NORMAL,-9223...").
func hasStatus(ep map[string]string, status string) bool {
	return strings.HasPrefix(ep["STATUS"], status) || strings.HasPrefix(ep["STATUS_WITH_PORT"], status)
}
