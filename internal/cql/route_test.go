package cql

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// statement is what the driver hands a policy: a routing key (none when the key travels in a
// Route) and the context the statement runs with.
type statement struct {
	gocql.ExecutableStatement
	key []byte
	ctx context.Context
}

func (s *statement) GetRoutingKey() ([]byte, error)           { return s.key, nil }
func (s *statement) Keyspace() string                         { return "ks" }
func (s *statement) Context() context.Context                 { return s.ctx }
func (s *statement) GetHostID() string                        { return "" }
func (s *statement) IsIdempotent() bool                       { return true }
func (s *statement) Table() string                            { return "t" }
func (s *statement) Statement() gocql.Statement               { return nil }
func (s *statement) String() string                           { return fmt.Sprintf("key %x", s.key) }
func bigintKey(i int64) []byte                                { return binary.BigEndian.AppendUint64(nil, uint64(i)) }
func newStatement(ctx context.Context, key []byte) *statement { return &statement{key: key, ctx: ctx} }

// ring returns hosts with interleaved tokens, as internal/localcassandra gives its nodes.
func ring(t *testing.T, hosts, tokens int) []*gocql.HostInfo {
	t.Helper()
	var out []*gocql.HostInfo
	step := uint64(1<<64-1) / uint64(hosts*tokens)
	for h := range hosts {
		var toks []string
		for k := range tokens {
			toks = append(toks, strconv.FormatInt(-1<<63+int64(uint64(k*hosts+h)*step), 10))
		}
		info, err := gocql.NewTestHostInfoFromRow(map[string]any{
			"rpc_address": fmt.Sprintf("127.0.0.%d", h+1), "data_center": "dc1", "rack": "r1",
			"host_id": gocql.MustRandomUUID().String(), "tokens": toks,
		})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, info)
	}
	return out
}

func newPolicy(inner gocql.HostSelectionPolicy, hosts []*gocql.HostInfo) *routedPolicy {
	p := newRoutedPolicy(inner)
	p.SetPartitioner("org.apache.cassandra.dht.Murmur3Partitioner")
	p.AddHosts(hosts)
	return p
}

func drain(next gocql.NextHost) []*gocql.HostInfo {
	var out []*gocql.HostInfo
	for h := next(); h != nil; h = next() {
		out = append(out, h.Info())
	}
	return out
}

// The fast path picks what the driver's token-aware policy picks, and then the same hosts.
func TestRoutedPolicyAgreesWithTokenAware(t *testing.T) {
	hosts := ring(t, 3, 16)
	driver := gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	driver.SetPartitioner("org.apache.cassandra.dht.Murmur3Partitioner")
	for _, h := range hosts {
		driver.AddHost(h)
	}
	p := newPolicy(gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy()), hosts)
	r := NewRoute()
	ctx := r.Context(context.Background())
	for round := range 2 { // the first round learns, the second takes the fast path
		for i := range int64(2000) {
			key := bigintKey(i * 7919)
			want := drain(driver.Pick(newStatement(context.Background(), key)))
			r.SetKey(key)
			got := drain(p.Pick(newStatement(ctx, nil)))
			if len(got) != len(hosts) || got[0] != want[0] {
				t.Fatalf("round %d, key %d: picked %v, the driver's policy %v", round, i, got, want)
			}
			seen := map[*gocql.HostInfo]bool{}
			for _, h := range got {
				if seen[h] {
					t.Fatalf("key %d: %v tried twice in %v", i, h, got)
				}
				seen[h] = true
			}
		}
	}
}

// firstHost is a policy that sends everything to one host first, as the token-aware policy
// does when a keyspace has no replica where the token's owner is.
type firstHost struct {
	gocql.HostSelectionPolicy
	host *gocql.HostInfo
}

func (f firstHost) Pick(gocql.ExecutableStatement) gocql.NextHost {
	done := false
	return func() gocql.SelectedHost {
		if done {
			return nil
		}
		done = true
		return selected{f.host}
	}
}

type selected struct{ h *gocql.HostInfo }

func (s selected) Info() *gocql.HostInfo { return s.h }
func (s selected) Mark(error)            {}

func TestRoutedPolicyFollowsTheDriverWhereItDisagrees(t *testing.T) {
	hosts := ring(t, 3, 4)
	p := newPolicy(firstHost{gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy()), hosts[2]}, hosts)
	r := NewRoute()
	ctx := r.Context(context.Background())
	for i := range int64(200) {
		r.SetKey(bigintKey(i))
		if got := p.Pick(newStatement(ctx, nil))().Info(); got != hosts[2] {
			t.Fatalf("key %d went to %v, not the driver's choice %v", i, got, hosts[2])
		}
	}
}

func TestRoutedPolicyWithoutRoute(t *testing.T) {
	hosts := ring(t, 2, 4)
	p := newPolicy(gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy()), hosts)
	// No route, or a route without a key: the statement's own key decides, as without the
	// fast path.
	for name, ctx := range map[string]context.Context{"no route": context.Background(), "no key": NewRoute().Context(context.Background())} {
		for i := range int64(50) {
			key := bigintKey(i)
			got := p.Pick(newStatement(ctx, key))().Info()
			want := p.HostSelectionPolicy.Pick(newStatement(ctx, key))().Info()
			if got != want {
				t.Fatalf("%s, key %d: %v, want %v", name, i, got, want)
			}
		}
	}
}

func TestRoutedPolicyFastPathDoesNotAllocate(t *testing.T) {
	p := newPolicy(gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy()), ring(t, 3, 16))
	r := NewRoute()
	stmt := newStatement(r.Context(context.Background()), nil)
	keys := make([][]byte, 1000)
	for i := range keys {
		keys[i] = bigintKey(int64(i) * 104729)
		r.SetKey(keys[i])
		p.Pick(stmt)() // learn every range
	}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		r.SetKey(keys[i%len(keys)])
		i++
		if p.Pick(stmt)() == nil {
			t.Fatal("no host")
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per pick", allocs)
	}
}
