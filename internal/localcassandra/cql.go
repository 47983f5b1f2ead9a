package localcassandra

import (
	"context"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Probe connects to one node with gocql and reads system.local. Without credentials, a node
// that asks for authentication counts as answering: it speaks CQL, which is what a starting
// node is waited for; with credentials, the login must succeed.
func Probe(ctx context.Context, host string, port int, username, password string) error {
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
	s, err := cfg.CreateSession()
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

// quiet drops the driver's log: a starting node refuses connections many times, as expected.
type quiet struct{}

func (quiet) Error(string, ...gocql.LogField)   {}
func (quiet) Warning(string, ...gocql.LogField) {}
func (quiet) Info(string, ...gocql.LogField)    {}
func (quiet) Debug(string, ...gocql.LogField)   {}
