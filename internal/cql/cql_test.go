package cql

import (
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/go-cmp/cmp"
)

func TestParseConsistency(t *testing.T) {
	tests := map[string]struct {
		in   string
		want gocql.Consistency
		err  bool
	}{
		"default":    {in: "", want: gocql.LocalOne},
		"two":        {in: "TWO", want: gocql.Two},
		"lower case": {in: "local_quorum", want: gocql.LocalQuorum},
		"unknown":    {in: "MOST", err: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseConsistency(tc.in)
			if (err != nil) != tc.err || !tc.err && got != tc.want {
				t.Errorf("ParseConsistency(%q) = %v, %v; want %v, error %t", tc.in, got, err, tc.want, tc.err)
			}
		})
	}
}

func TestSplitHosts(t *testing.T) {
	if diff := cmp.Diff([]string{"a", "b:9043"}, SplitHosts(" a, ,b:9043,")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCluster(t *testing.T) {
	type view struct {
		Port, NumConns, Proto int
		Timeout, IOTimeout    time.Duration
		Retry, Auth, TLS      bool
	}
	tests := map[string]struct {
		opts Options
		want view
		err  bool
	}{
		"defaults": {
			opts: Options{Hosts: []string{"h"}},
			want: view{Port: 9042, NumConns: 2, Proto: 4, Timeout: 11 * time.Second, IOTimeout: 55 * time.Second},
		},
		"everything": {
			opts: Options{Hosts: []string{"h"}, Port: 19042, NumConns: 4, Timeout: time.Second, Username: "u", Password: "p", TLS: true, InsecureSkipVerify: true},
			want: view{Port: 19042, NumConns: 4, Proto: 4, Timeout: time.Second, IOTimeout: 15 * time.Second, Auth: true, TLS: true},
		},
		"context timeouts": {
			opts: Options{Hosts: []string{"h"}, Timeout: 10 * time.Second, ContextTimeouts: true},
			want: view{Port: 9042, NumConns: 2, Proto: 4, IOTimeout: 50 * time.Second},
		},
		"no hosts":        {opts: Options{}, err: true},
		"missing CA file": {opts: Options{Hosts: []string{"h"}, CAFile: "/nonexistent/ca.pem"}, err: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, err := tc.opts.Cluster()
			if tc.err {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d, ok := c.HostDialer.(*hostDialer)
			if !ok {
				t.Fatalf("connections are dialed by %T, not as batchConns", c.HostDialer)
			}
			got := view{
				Port: c.Port, NumConns: c.NumConns, Proto: c.ProtoVersion, Timeout: c.Timeout, IOTimeout: d.ioTimeout,
				Retry: c.RetryPolicy != nil, Auth: c.Authenticator != nil, TLS: d.tls != nil,
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if c.PoolConfig.HostSelectionPolicy == nil {
				t.Error("no host selection policy")
			}
		})
	}
}
