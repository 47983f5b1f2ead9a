package mgmtapi

import (
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"time"
)

// gossipColumns are the columns of system_views.gossip_info that are not application states
// (Cassandra 5.0 db/virtual/GossipInfoTable.java: address, port, hostname, generation,
// heartbeat; then one text column per ApplicationState but TOKENS, named in lower case, and
// one int column per ApplicationState suffixed _version).
var gossipColumns = map[string]bool{"address": true, "port": true, "hostname": true, "generation": true, "heartbeat": true}

// EndpointsFromGossip turns rows of `SELECT * FROM system_views.gossip_info` read on the node
// at local into the maps of the real getEndpointStates
// (management-api-agent-5.0.x .../shim/CassandraAPI50x.java): every application state under
// its upper-case name, then ENDPOINT_IP, IS_ALIVE, IS_LOCAL, PARTITIONER and CLUSTER_NAME.
// TOKENS is missing (the virtual table leaves it out; cass-operator does not read it).
// alive judges each endpoint (see Liveness). Rows come out sorted by address.
func EndpointsFromGossip(rows []map[string]any, local, partitioner, clusterName string, alive func(addr string, generation, heartbeat int) bool) []map[string]string {
	var out []map[string]string
	for _, row := range rows {
		addr := addrString(row["address"])
		ep := map[string]string{}
		for col, v := range row {
			// Application states are the text columns; their versions are int columns.
			if s, ok := v.(string); ok && s != "" && !gossipColumns[col] {
				ep[strings.ToUpper(col)] = s
			}
		}
		gen, _ := row["generation"].(int)
		hb, _ := row["heartbeat"].(int)
		ep["ENDPOINT_IP"] = addr
		ep["IS_ALIVE"] = fmt.Sprint(addr == local || alive(addr, gen, hb))
		ep["IS_LOCAL"] = fmt.Sprint(addr == local)
		ep["PARTITIONER"] = partitioner
		ep["CLUSTER_NAME"] = clusterName
		out = append(out, ep)
	}
	sort.Slice(out, func(i, j int) bool { return out[i]["ENDPOINT_IP"] < out[j]["ENDPOINT_IP"] })
	return out
}

func addrString(v any) string {
	if ip, ok := v.(net.IP); ok {
		return ip.String()
	}
	return fmt.Sprint(v)
}

// Liveness plays Gossiper's EndpointState.isAlive, which no virtual table shows: a live
// endpoint's heartbeat version grows every second, a dead one's stands still. An endpoint
// counts as alive while its (generation, heartbeat) changed within Window of now; one seen
// for the first time gets the benefit of the doubt for Window. Cassandra's failure detector
// convicts a silent endpoint after about 8 to 10 s at the default phi_convict_threshold, so
// Window defaults to 10 s.
type Liveness struct {
	Window time.Duration
	Now    func() time.Time

	mu   sync.Mutex
	seen map[string]beat
}

type beat struct {
	generation, heartbeat int
	changed               time.Time
}

// Alive records endpoint addr's heartbeat and tells whether it is alive.
func (l *Liveness) Alive(addr string, generation, heartbeat int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if l.Now != nil {
		now = l.Now()
	}
	window := l.Window
	if window == 0 {
		window = 10 * time.Second
	}
	if l.seen == nil {
		l.seen = map[string]beat{}
	}
	b, ok := l.seen[addr]
	if !ok || b.generation != generation || b.heartbeat != heartbeat {
		b = beat{generation: generation, heartbeat: heartbeat, changed: now}
		l.seen[addr] = b
	}
	return now.Sub(b.changed) < window
}
