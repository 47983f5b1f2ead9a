package cql

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// placement is a keyspace's replication, as its nodes place replicas: SimpleStrategy's one
// factor, or NetworkTopologyStrategy's factor per datacenter.
//
// The driver computes the same thing for its token-aware policy (gocql's topology.go:
// getStrategy reads the keyspace's strategy options, and each placementStrategy's
// replicaMap walks the ring); its map is private to the driver, so Direct keeps its own.
type placement struct {
	simple bool
	rf     int            // SimpleStrategy's replication_factor
	dcs    map[string]int // NetworkTopologyStrategy's factor by datacenter
}

// placementOf reads ks's replication; other strategies (LocalStrategy, EverywhereStrategy,
// a class of the user's) are refused: Direct leaves such keyspaces to the driver.
func placementOf(ks *gocql.KeyspaceMetadata) (placement, error) {
	class := ks.StrategyClass
	switch {
	case strings.HasSuffix(class, "SimpleStrategy"):
		rf, err := replicationFactor(ks.StrategyOptions["replication_factor"])
		if err != nil {
			return placement{}, fmt.Errorf("keyspace %s: %w", ks.Name, err)
		}
		return placement{simple: true, rf: rf}, nil
	case strings.HasSuffix(class, "NetworkTopologyStrategy"):
		dcs := map[string]int{}
		for dc, v := range ks.StrategyOptions {
			if dc == "class" {
				continue
			}
			rf, err := replicationFactor(v)
			if err != nil {
				return placement{}, fmt.Errorf("keyspace %s, datacenter %s: %w", ks.Name, dc, err)
			}
			dcs[dc] = rf
		}
		return placement{dcs: dcs}, nil
	}
	return placement{}, fmt.Errorf("keyspace %s: replication class %q is neither SimpleStrategy nor NetworkTopologyStrategy", ks.Name, class)
}

// replicationFactor reads a factor as the schema gives it: "3", or "3/1" with transient
// replicas (all of which receive writes, so all count).
func replicationFactor(v any) (int, error) {
	switch f := v.(type) {
	case int:
		if f >= 0 {
			return f, nil
		}
	case string:
		full, _, _ := strings.Cut(f, "/")
		if n, err := strconv.Atoi(full); err == nil && n >= 0 {
			return n, nil
		}
	}
	return 0, fmt.Errorf("replication factor %v is not a count", v)
}

// replicaTable holds, for each range of a ring (the range ending at token i), the positions
// on the ring of the nodes a request for that range may go to, in the order Direct tries
// them: the key's replicas in placement order (the primary owner first), only those of the
// local datacenter when one is set. A range with none is empty.
type replicaTable struct {
	ranges   [][]int32
	keyspace string
	// retry is when a keyspace that could not be read (ranges nil) is read again.
	retry time.Time
}

// replicas computes ring's replica table for pl, keeping only nodes of local when set.
//
// The walk is Cassandra 5's own (NetworkTopologyStrategy.calculateNaturalReplicas and its
// DatacenterEndpoints): clockwise from the range's token, a datacenter takes a node from a
// rack it has not used yet, and a node from a rack already used only while it has more
// factor than racks (rf - racks such repeats); it needs min(rf, its nodes) replicas.
// SimpleStrategy takes the first rf distinct nodes. The driver's replicaMap (gocql
// topology.go) instead holds repeat-rack nodes back until every rack was seen; the set is
// the same, the order within it may differ.
func (t *tokenRing) replicas(pl placement, local string) *replicaTable {
	n := len(t.hosts)
	first := firstPositions(t)
	need, repeats := t.needs(pl)
	tab := &replicaTable{ranges: make([][]int32, n)}
	for i := range n {
		w := newReplicaWalk(need, repeats)
		var out []int32
		for k := 0; k < n && !w.done(); k++ {
			j := (i + k) % n
			h := t.hosts[j]
			if !w.take(h, pl.simple) {
				continue
			}
			if local == "" || h.DataCenter() == local {
				out = append(out, first[h])
			}
		}
		tab.ranges[i] = out
	}
	return tab
}

// firstPositions maps each host to its first position on the ring, the one whose pool
// Direct uses for it.
func firstPositions(t *tokenRing) map[*gocql.HostInfo]int32 {
	first := make(map[*gocql.HostInfo]int32, len(t.hosts))
	for j, h := range t.hosts {
		if _, ok := first[h]; !ok {
			first[h] = int32(j)
		}
	}
	return first
}

// needs returns how many replicas each datacenter takes (SimpleStrategy: all under ""), at
// most its nodes, and how many nodes of a rack already used it may take (its factor less its
// racks, as Cassandra counts them).
func (t *tokenRing) needs(pl placement) (need map[string]int, repeats map[string]int) {
	nodes := map[string]map[*gocql.HostInfo]bool{}
	rackSets := map[string]map[string]bool{}
	for _, h := range t.hosts {
		dc := h.DataCenter()
		if pl.simple {
			dc = ""
		}
		if nodes[dc] == nil {
			nodes[dc], rackSets[dc] = map[*gocql.HostInfo]bool{}, map[string]bool{}
		}
		nodes[dc][h] = true
		rackSets[dc][h.Rack()] = true
	}
	need, repeats = map[string]int{}, map[string]int{}
	for dc, hs := range nodes {
		rf := pl.rf
		if !pl.simple {
			rf = pl.dcs[dc]
		}
		if rf > 0 {
			need[dc], repeats[dc] = min(rf, len(hs)), rf-len(rackSets[dc])
		}
	}
	return need, repeats
}

// replicaWalk is one range's walk: what each datacenter still needs.
type replicaWalk struct {
	left    map[string]int // replicas still needed by datacenter
	repeats map[string]int // nodes of a used rack a datacenter may still take
	seen    map[*gocql.HostInfo]bool
	used    map[string]bool // datacenter + "\x00" + rack
	pending int
}

func newReplicaWalk(need, repeats map[string]int) *replicaWalk {
	w := &replicaWalk{left: map[string]int{}, repeats: map[string]int{}, seen: map[*gocql.HostInfo]bool{}, used: map[string]bool{}}
	for dc, rf := range need {
		w.left[dc], w.repeats[dc] = rf, repeats[dc]
		w.pending += rf
	}
	return w
}

func (w *replicaWalk) done() bool { return w.pending == 0 }

// take reports whether h is the walk's next replica, and counts it.
func (w *replicaWalk) take(h *gocql.HostInfo, simple bool) bool {
	dc := h.DataCenter()
	if simple {
		dc = ""
	}
	if w.left[dc] == 0 || w.seen[h] {
		return false
	}
	if !simple {
		rack := dc + "\x00" + h.Rack()
		if w.used[rack] {
			if w.repeats[dc] <= 0 {
				return false
			}
			w.repeats[dc]--
		}
		w.used[rack] = true
	}
	w.seen[h] = true
	w.left[dc]--
	w.pending--
	return true
}
