// Package cql opens gocql sessions the way every cassbench command wants them: token-aware
// routing, no driver-side retries (the writer retries itself so it can count them), and
// connection errors a user can act on.
//
// The driver is the Apache one (github.com/apache/cassandra-gocql-driver/v2), with cassbench's
// batched sends and routing on top (conn.go, route.go), and Direct (direct.go) executing the
// writer's single-row inserts on connections of its own; Options.Stock turns all three off. ScyllaDB's
// fork (github.com/scylladb/gocql) has request-path savings the Apache driver has not merged,
// but it is the v1 API under the module path github.com/gocql/gocql, so it cannot be swapped in
// by a replace directive: adopting it means porting this package. hack/bench-driver.sh measures
// whether that would pay, both drivers stock on the same insert: the fork did 1.11 times the
// writes per client CPU-second at one goroutine (rounds 1.01 to 1.13) and 1.13 at 32, where the
// batched layer gives the writer 1.71 times the stock Apache driver's (hack/bench-writer.sh
// --stock). The layer is kept, on the Apache driver.
package cql

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Options say where Cassandra is and how to talk to it.
type Options struct {
	Hosts    []string
	Port     int
	Username string
	Password string
	// TLS turns on encryption; CAFile verifies the server against a CA, and
	// InsecureSkipVerify accepts any certificate (self-signed clusters).
	TLS                bool
	CAFile             string
	InsecureSkipVerify bool
	// LocalDatacenter keeps routing inside one datacenter when set.
	LocalDatacenter string
	// Timeout bounds one request; ConnectTimeout one connection attempt.
	Timeout        time.Duration
	ConnectTimeout time.Duration
	// ContextTimeouts turns the driver's per-request timer off: every request of the session
	// must run under a context with a deadline (see Deadlines). Connections are still given
	// up when silent (see batchConn).
	ContextTimeouts bool
	// NumConns is connections per host.
	NumConns int
	Keyspace string
	// Stock leaves sending and routing to the driver as it ships: no batched sends, no
	// routing of our own, the driver's per-request timer (ContextTimeouts is ignored). It is
	// there so that a result can be checked against the plain driver.
	Stock bool
	// Together sends every direct request through its connection's flusher, also one the
	// connection has nothing else in flight for, which is otherwise written at once by its
	// caller: a writer that wakes many requests at the same instant (writers.pacingTick) then
	// sends them in one write instead of the first alone and the rest after it.
	Together bool
}

// Cluster builds the driver configuration.
func (o Options) Cluster() (*gocql.ClusterConfig, error) {
	if len(o.Hosts) == 0 {
		return nil, errors.New("no Cassandra hosts given")
	}
	c := gocql.NewCluster(o.Hosts...)
	if o.Port != 0 {
		c.Port = o.Port
	}
	if o.Timeout > 0 {
		c.Timeout = o.Timeout
	}
	// Protocol v4, as latte and cassandra-stress speak it: v5 wraps every frame in a
	// checksummed segment, which the driver builds with two more allocations and a CRC per
	// request, and which adds nothing a benchmark measures.
	c.ProtoVersion = 4
	c.ConnectTimeout = 10 * time.Second
	if o.ConnectTimeout > 0 {
		c.ConnectTimeout = o.ConnectTimeout
	}
	if o.NumConns > 0 {
		c.NumConns = o.NumConns
	}
	c.Keyspace = o.Keyspace
	// The writer owns retries so that each one is counted and the final outcome classified.
	c.RetryPolicy = nil
	// A benchmark must not stall for a minute on a reconnect of a node it stopped on purpose.
	c.ReconnectInterval = 2 * time.Second
	c.ReconnectionPolicy = &gocql.ConstantReconnectionPolicy{MaxRetries: 10, Interval: time.Second}
	fallback := gocql.RoundRobinHostPolicy()
	if o.LocalDatacenter != "" {
		fallback = gocql.DCAwareRoundRobinPolicy(o.LocalDatacenter)
	}
	c.PoolConfig.HostSelectionPolicy = newRoutedPolicy(gocql.TokenAwareHostPolicy(fallback))
	if o.Username != "" {
		c.Authenticator = gocql.PasswordAuthenticator{Username: o.Username, Password: o.Password}
	}
	if o.Stock {
		c.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(fallback)
		if o.TLS || o.CAFile != "" {
			tc, err := o.tlsConfig()
			if err != nil {
				return nil, err
			}
			c.SslOpts = &gocql.SslOptions{Config: tc, EnableHostVerification: !o.InsecureSkipVerify}
		}
		return c, nil
	}
	d := &hostDialer{
		dialer:    net.Dialer{Timeout: c.ConnectTimeout, KeepAlive: c.SocketKeepalive},
		ioTimeout: max(5*c.Timeout, 15*time.Second),
		together:  o.Together,
	}
	if o.TLS || o.CAFile != "" {
		tc, err := o.tlsConfig()
		if err != nil {
			return nil, err
		}
		d.tls = tc
	}
	c.HostDialer = d
	if o.ContextTimeouts {
		c.Timeout, c.WriteTimeout = 0, 0
	}
	return c, nil
}

func (o Options) tlsConfig() (*tls.Config, error) {
	tc := &tls.Config{InsecureSkipVerify: o.InsecureSkipVerify, MinVersion: tls.VersionTLS12}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificate", o.CAFile)
		}
		tc.RootCAs = pool
	}
	return tc, nil
}

// Connect opens a session and explains the usual ways that fails.
func Connect(o Options) (*gocql.Session, error) {
	c, err := o.Cluster()
	if err != nil {
		return nil, err
	}
	s, err := c.CreateSession()
	if err != nil {
		return nil, explain(o, err)
	}
	return s, nil
}

// ConnectDirect opens a session and, unless o.Stock, a Direct beside it for the statements
// the caller executes directly (see Direct); the caller closes both.
func ConnectDirect(o Options) (*gocql.Session, *Direct, error) {
	c, err := o.Cluster()
	if err != nil {
		return nil, nil, err
	}
	s, err := c.CreateSession()
	if err != nil {
		return nil, nil, explain(o, err)
	}
	d := newDirect(o, c)
	if d != nil {
		d.meta = s.KeyspaceMetadata
	}
	return s, d, nil
}

// explain turns the driver's nested session errors into one sentence naming the cause.
func explain(o Options, err error) error {
	where := o.address()
	msg := err.Error()
	var cred *gocql.RequestErrCredentials
	switch {
	case errors.As(err, &cred), strings.Contains(msg, "Provided username"),
		strings.Contains(msg, "authentication"), strings.Contains(msg, "Authentication"):
		if o.Username == "" {
			return fmt.Errorf("connecting to Cassandra at %s: the cluster requires a username and password (--username/--password or %s): %w", where, "CASSBENCH_USERNAME/CASSBENCH_PASSWORD", err)
		}
		return fmt.Errorf("connecting to Cassandra at %s: authentication failed for user %q: wrong username or password: %w", where, o.Username, err)
	case errors.Is(err, syscall.ECONNREFUSED), strings.Contains(msg, "connection refused"):
		return fmt.Errorf("connecting to Cassandra at %s: connection refused: is Cassandra running and listening for CQL on port %d? %w", where, o.port(), err)
	case isTimeout(err), strings.Contains(msg, "i/o timeout"), strings.Contains(msg, "no route to host"):
		return fmt.Errorf("connecting to Cassandra at %s: host unreachable (no answer within %s): %w", where, o.connectTimeout(), err)
	}
	return fmt.Errorf("connecting to Cassandra at %s: %w", where, err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (o Options) port() int {
	if o.Port == 0 {
		return 9042
	}
	return o.Port
}

func (o Options) connectTimeout() time.Duration {
	if o.ConnectTimeout == 0 {
		return 10 * time.Second
	}
	return o.ConnectTimeout
}

func (o Options) address() string {
	addrs := make([]string, len(o.Hosts))
	for i, h := range o.Hosts {
		addrs[i] = net.JoinHostPort(h, strconv.Itoa(o.port()))
	}
	return strings.Join(addrs, ",")
}

// ParseConsistency reads a consistency level name; empty means LOCAL_ONE, the CRD default.
func ParseConsistency(s string) (gocql.Consistency, error) {
	if s == "" {
		return gocql.LocalOne, nil
	}
	c, err := gocql.ParseConsistencyWrapper(strings.ToUpper(s))
	if err != nil {
		return 0, fmt.Errorf("consistency %q: %w", s, err)
	}
	return c, nil
}

// SplitHosts reads a comma-separated host list, dropping blanks.
func SplitHosts(s string) []string {
	var out []string
	for _, h := range strings.Split(s, ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}
