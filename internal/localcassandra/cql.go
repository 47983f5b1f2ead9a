package localcassandra

import (
	"context"
	"fmt"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Probe connects to one node with gocql and reads system.local. Without credentials, a node
// that asks for authentication counts as answering: it speaks CQL, which is what a starting
// node is waited for; with credentials, the login must succeed.
func Probe(ctx context.Context, host string, port int, username, password string) error {
	s, err := probeSession(host, port, username, password)
	if err != nil {
		// gocql's own error when the server asks for a login it was given none for.
		if username == "" && strings.Contains(err.Error(), "authentication required") {
			return nil
		}
		return err
	}
	defer s.Close()
	var version string
	return s.Query("SELECT release_version FROM system.local").ScanContext(ctx, &version)
}

// probeSession opens one connection to host, and no more.
func probeSession(host string, port int, username, password string) (*gocql.Session, error) {
	cfg := gocql.NewCluster(host)
	cfg.Port = port
	cfg.ProtoVersion = 4
	cfg.NumConns = 1
	cfg.Timeout = 5 * time.Second
	cfg.ConnectTimeout = 5 * time.Second
	// One node, one connection: no ring discovery, no event subscriptions, no retries.
	cfg.DisableInitialHostLookup = true
	cfg.HostFilter = gocql.WhiteListHostFilter(host)
	cfg.Events.DisableNodeStatusEvents = true
	cfg.Events.DisableTopologyEvents = true
	cfg.Events.DisableSchemaEvents = true
	cfg.ReconnectInterval = 0
	cfg.Logger = quiet{}
	if username != "" {
		cfg.Authenticator = gocql.PasswordAuthenticator{Username: username, Password: password}
	}
	return cfg.CreateSession()
}

// loginRounds is the bcrypt cost (log2 of the rounds) the nodes hash passwords with, set by
// jvmArgs. Cassandra caches a role's hash, not the outcome of checking it, so every
// connection's login runs bcrypt: at the default of 10 that is about 75 ms of a core per
// connection, and a run of 48 writers, each with a control connection and a pool to every
// node, kept both cores of a 2-core machine busy for 15 s before its start barrier. The
// local nodes are for development and tests; their superuser's password is public.
const loginRounds = 4

// rehashSuperuser hashes the superuser's password again when it was hashed at more rounds
// than loginRounds, as the superuser of a cluster created before jvmArgs set loginRounds was.
// It returns the cost the hash had and has, as bcrypt writes it ("10", "04").
func rehashSuperuser(ctx context.Context, host string, port int, username, password string) (was, is string, err error) {
	s, err := probeSession(host, port, username, password)
	if err != nil {
		return "", "", err
	}
	defer s.Close()
	cost := func() (string, error) {
		var hash string
		if err := s.Query("SELECT salted_hash FROM system_auth.roles WHERE role = ?", username).ScanContext(ctx, &hash); err != nil {
			return "", fmt.Errorf("reading the hash of %s's password: %w", username, err)
		}
		// $2a$10$<salt and hash>
		if f := strings.Split(hash, "$"); len(f) > 3 {
			return f[2], nil
		}
		return "", fmt.Errorf("the hash of %s's password is not bcrypt's", username)
	}
	if was, err = cost(); err != nil || was == fmt.Sprintf("%02d", loginRounds) {
		return was, was, err
	}
	// The role name is this package's constant, the password the public default.
	if err := s.Query(fmt.Sprintf("ALTER ROLE %s WITH PASSWORD = '%s'", username, password)).ExecContext(ctx); err != nil {
		return was, was, fmt.Errorf("hashing %s's password again: %w", username, err)
	}
	is, err = cost()
	return was, is, err
}

// quiet drops the driver's log: a starting node refuses connections many times, as expected.
type quiet struct{}

func (quiet) Error(string, ...gocql.LogField)   {}
func (quiet) Warning(string, ...gocql.LogField) {}
func (quiet) Info(string, ...gocql.LogField)    {}
func (quiet) Debug(string, ...gocql.LogField)   {}
