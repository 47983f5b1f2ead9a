package writer

import (
	"errors"
	"testing"
)

func TestRetryableConnect(t *testing.T) {
	for msg, want := range map[string]bool{
		"connecting to Cassandra at svc:9042: gocql: unable to create session: unable to connect to initial hosts: gocql: no response received from cassandra within timeout period": true,
		"connecting to Cassandra at svc:9042: connection refused: is Cassandra running and listening for CQL on port 9042? dial tcp: connect: connection refused":                    true,
		`connecting to Cassandra at svc:9042: authentication failed for user "x": wrong username or password`:                                                                        false,
		"keyspace \"ks\" does not exist": false,
		"connecting to Cassandra at cluster1-dc1-service.default.svc:9042: gocql: unable to create session: failed to resolve any of the provided hostnames": true,
	} {
		if got := retryableConnect(errors.New(msg)); got != want {
			t.Errorf("retryableConnect(%q) = %v, want %v", msg, got, want)
		}
	}
}
