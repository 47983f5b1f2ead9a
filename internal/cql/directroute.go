package cql

import (
	"fmt"
	"time"
)

// pick returns the skip-th live direct connection among those that may take r's request:
// the connections of the key's replicas by st's keyspace (replicaTable), in placement order
// (the primary owner first), only those of the local datacenter when one is set, each
// replica's connection for slot first and then its others; replicas the driver marks down
// are passed over. It returns nil, and why, when there is none: Direct never sends to a node
// that holds no replica of the key, nor out of the local datacenter.
//
// The driver's token-aware policy orders a key's hosts the same way (gocql policies.go,
// tokenAwareHostPolicy.Pick: the replicas of its replica map, local ones only unless
// nonLocalReplicasFallback, and then its fallback policy's hosts). Direct stops at the
// replicas and leaves the rest to the driver, which counts it (FallbackNoRoute): sending a
// LOCAL_ONE or LOCAL_QUORUM write to a remote replica would change what the consistency level
// means, since the coordinator's datacenter is the local one.
func (x *Direct) pick(r *Route, st *Statement, slot, skip int) (*dconn, Fallback) {
	ring := x.policy.ring.Load()
	if ring == nil || r == nil || r.key == nil {
		return nil, FallbackNoRoute
	}
	rp := x.pools4(ring)
	tab := rp.table(x, st)
	if tab.ranges == nil {
		return nil, FallbackNoRoute
	}
	why := FallbackNoRoute
	for _, j := range tab.ranges[ring.owner(r.token)] {
		if !ring.hosts[j].IsUp() {
			continue
		}
		p := rp.pools[j]
		for k := range p.slots {
			c := p.conn(slot + k)
			if c == nil {
				if f := p.failure.Load(); f != 0 && why == FallbackNoRoute {
					why = Fallback(f - 1)
				}
				continue
			}
			if skip == 0 {
				return c, 0
			}
			skip--
		}
	}
	return nil, why
}

// replicaRetry is how long a keyspace whose replication could not be read waits before it is
// read again.
const replicaRetry = time.Second

// table returns st's replica table on rp's ring, computing it on first use; a table whose
// keyspace could not be read has no ranges until it is read again, replicaRetry later.
func (rp *ringPools) table(x *Direct, st *Statement) *replicaTable {
	if t := rp.tables[st.index].Load(); t != nil && (t.ranges != nil || time.Now().Before(t.retry)) {
		return t
	}
	rp.tableMu.Lock()
	defer rp.tableMu.Unlock()
	if t := rp.tables[st.index].Load(); t != nil && (t.ranges != nil || time.Now().Before(t.retry)) {
		return t
	}
	// Another statement of the keyspace may have its table already.
	for i := range rp.tables {
		if t := rp.tables[i].Load(); t != nil && t.ranges != nil && t.keyspace == st.keyspace {
			rp.tables[st.index].Store(t)
			return t
		}
	}
	t, err := x.replicaTable(rp.ring, st.keyspace)
	if err != nil {
		x.lastErr.Store(&setupErr{fmt.Errorf("routing direct requests: %w", err)})
		t = &replicaTable{keyspace: st.keyspace, retry: time.Now().Add(replicaRetry)}
	}
	rp.tables[st.index].Store(t)
	return t
}

// replicaTable reads keyspace's replication and computes its replicas on ring.
func (x *Direct) replicaTable(ring *tokenRing, keyspace string) (*replicaTable, error) {
	if keyspace == "" {
		return nil, fmt.Errorf("the statement names no keyspace and the session has none")
	}
	if x.meta == nil {
		return nil, fmt.Errorf("no schema metadata to read keyspace %s's replication from", keyspace)
	}
	ks, err := x.meta(keyspace)
	if err != nil {
		return nil, fmt.Errorf("reading keyspace %s: %w", keyspace, err)
	}
	pl, err := placementOf(ks)
	if err != nil {
		return nil, err
	}
	t := ring.replicas(pl, x.local)
	t.keyspace = keyspace
	return t, nil
}
