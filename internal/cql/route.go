package cql

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Route carries one load goroutine's routing key to the session's host selection policy.
// The driver's token-aware policy allocates a handful of objects on every request (a
// closure, a map of hosts tried, the boxed token) and hashes a copy of the key; at tens of
// thousands of requests a second that garbage is a good part of the client's CPU. A statement
// executed with Route.Context and a key set instead gets a host iterator kept in the Route and
// reused, and the driver's policy is asked only when a retry wants a second host.
//
// A Route serves one execution at a time: the goroutine that sets its key runs the statement.
type Route struct {
	key   []byte
	token int64
	// keyed hands the driver's policy this Route's key instead of the statement's own, so the
	// statement needs no routing key of its own (the driver copies that on every request).
	keyed keyedStatement
	// first is the host the fast path chose; rest the driver's hosts after it, asked for
	// lazily.
	first  chosenHost
	rest   gocql.NextHost
	inner  gocql.HostSelectionPolicy
	served bool
	next   gocql.NextHost
}

// NewRoute returns a Route with no key.
func NewRoute() *Route {
	r := &Route{}
	r.next = r.nextHost
	return r
}

type routeKey struct{}

// Context returns parent carrying r, for executing statements with (Query.ExecContext).
func (r *Route) Context(parent context.Context) context.Context {
	return context.WithValue(parent, routeKey{}, r)
}

// SetKey sets the routing key (the serialized partition key) of the next execution; nil
// leaves routing to the driver. The Route keeps key, which must not change until then.
func (r *Route) SetKey(key []byte) {
	r.key = key
	if key != nil {
		r.token = murmur3Token(key)
	}
}

// start readies r's iterator to return h first.
func (r *Route) start(inner gocql.HostSelectionPolicy, h *gocql.HostInfo) gocql.NextHost {
	r.first.h, r.inner, r.rest, r.served = h, inner, nil, false
	return r.next
}

func (r *Route) nextHost() gocql.SelectedHost {
	if !r.served {
		r.served = true
		return &r.first
	}
	if r.rest == nil {
		r.rest = r.inner.Pick(&r.keyed)
	}
	// The driver's policy would have tried the same host first: skip it.
	for {
		h := r.rest()
		if h == nil || h.Info() != r.first.h {
			return h
		}
	}
}

// chosenHost is the driver's own selected host: marking it does nothing.
type chosenHost struct{ h *gocql.HostInfo }

func (c *chosenHost) Info() *gocql.HostInfo { return c.h }
func (c *chosenHost) Mark(error)            {}

type keyedStatement struct {
	gocql.ExecutableStatement
	key []byte
}

func (k *keyedStatement) GetRoutingKey() ([]byte, error) { return k.key, nil }

// routeOf returns the Route of the context a statement runs with, or nil.
func routeOf(s gocql.ExecutableStatement) *Route {
	c, ok := s.(interface{ Context() context.Context })
	if !ok {
		return nil
	}
	r, _ := c.Context().Value(routeKey{}).(*Route)
	return r
}

// routedPolicy is the driver's token-aware policy with a fast path for statements that
// carry a Route: their key's primary owner, when it is up and the driver's policy agrees it
// is the first choice for that token range, without asking the driver's policy.
type routedPolicy struct {
	gocql.HostSelectionPolicy

	mu          sync.Mutex
	hosts       []*gocql.HostInfo
	partitioner string
	ring        atomic.Pointer[tokenRing]
}

func newRoutedPolicy(tokenAware gocql.HostSelectionPolicy) *routedPolicy {
	return &routedPolicy{HostSelectionPolicy: tokenAware}
}

// tokenRing is the hosts' tokens in order; host[i] owns the range ending at token[i].
type tokenRing struct {
	tokens []int64
	hosts  []*gocql.HostInfo
	// agree[i] records whether the driver's policy picks hosts[i] first for range i: a
	// keyspace's replication may place no replica on the owner's datacenter, say. It is
	// learned on first use and forgotten on any topology or schema event.
	agree []atomic.Uint32
}

const (
	agreeUnknown = iota
	agreeYes
	agreeNo
)

func (t *tokenRing) owner(token int64) int {
	i, _ := slices.BinarySearch(t.tokens, token)
	if i == len(t.tokens) {
		return 0
	}
	return i
}

func (p *routedPolicy) Pick(qry gocql.ExecutableStatement) gocql.NextHost {
	r := routeOf(qry)
	if r == nil || r.key == nil {
		return p.HostSelectionPolicy.Pick(qry)
	}
	r.keyed = keyedStatement{ExecutableStatement: qry, key: r.key}
	ring := p.ring.Load()
	if ring == nil {
		return p.HostSelectionPolicy.Pick(&r.keyed)
	}
	i := ring.owner(r.token)
	h := ring.hosts[i]
	if !h.IsUp() {
		return p.HostSelectionPolicy.Pick(&r.keyed)
	}
	switch ring.agree[i].Load() {
	case agreeYes:
		return r.start(p.HostSelectionPolicy, h)
	case agreeNo:
		return p.HostSelectionPolicy.Pick(&r.keyed)
	}
	next := p.HostSelectionPolicy.Pick(&r.keyed)
	first := next()
	if first != nil && first.Info() == h {
		ring.agree[i].Store(agreeYes)
	} else {
		ring.agree[i].Store(agreeNo)
	}
	served := false
	return func() gocql.SelectedHost {
		if !served {
			served = true
			return first
		}
		return next()
	}
}

func (p *routedPolicy) SetPartitioner(partitioner string) {
	p.HostSelectionPolicy.SetPartitioner(partitioner)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partitioner = partitioner
	p.rebuild()
}

func (p *routedPolicy) AddHost(h *gocql.HostInfo) {
	p.HostSelectionPolicy.AddHost(h)
	p.add(h)
}

// AddHosts is the driver's bulk form of AddHost, used at connect time.
func (p *routedPolicy) AddHosts(hosts []*gocql.HostInfo) {
	if bulk, ok := p.HostSelectionPolicy.(interface{ AddHosts([]*gocql.HostInfo) }); ok {
		bulk.AddHosts(hosts)
	} else {
		for _, h := range hosts {
			p.HostSelectionPolicy.AddHost(h)
		}
	}
	p.add(hosts...)
}

func (p *routedPolicy) add(hosts ...*gocql.HostInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range hosts {
		// Like the driver's policy, the first host seen at an address stays.
		if !slices.ContainsFunc(p.hosts, h.Equal) {
			p.hosts = append(p.hosts, h)
		}
	}
	p.rebuild()
}

func (p *routedPolicy) RemoveHost(h *gocql.HostInfo) {
	p.HostSelectionPolicy.RemoveHost(h)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hosts = slices.DeleteFunc(p.hosts, func(o *gocql.HostInfo) bool { return o.ConnectAddress().Equal(h.ConnectAddress()) })
	p.rebuild()
}

func (p *routedPolicy) HostUp(h *gocql.HostInfo) {
	p.HostSelectionPolicy.HostUp(h)
	p.forget()
}

func (p *routedPolicy) HostDown(h *gocql.HostInfo) {
	p.HostSelectionPolicy.HostDown(h)
	p.forget()
}

func (p *routedPolicy) KeyspaceChanged(e gocql.KeyspaceUpdateEvent) {
	p.HostSelectionPolicy.KeyspaceChanged(e)
	p.forget()
}

// forget drops what was learned about the driver's choices.
func (p *routedPolicy) forget() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rebuild()
}

// rebuild replaces the ring; p.mu is held. Only Murmur3Partitioner rings get one: the fast
// path hashes keys itself.
func (p *routedPolicy) rebuild() {
	if !strings.HasSuffix(p.partitioner, "Murmur3Partitioner") {
		p.ring.Store(nil)
		return
	}
	type hostToken struct {
		token int64
		host  *gocql.HostInfo
	}
	var all []hostToken
	for _, h := range p.hosts {
		for _, s := range h.Tokens() {
			t, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				p.ring.Store(nil)
				return
			}
			all = append(all, hostToken{t, h})
		}
	}
	if len(all) == 0 {
		p.ring.Store(nil)
		return
	}
	slices.SortStableFunc(all, func(a, b hostToken) int { return cmp.Compare(a.token, b.token) })
	ring := &tokenRing{tokens: make([]int64, len(all)), hosts: make([]*gocql.HostInfo, len(all)), agree: make([]atomic.Uint32, len(all))}
	for i, ht := range all {
		ring.tokens[i], ring.hosts[i] = ht.token, ht.host
	}
	p.ring.Store(ring)
}
