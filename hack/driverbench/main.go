// Command driverbench measures the request path of two Go drivers for Cassandra on the same
// work: the Apache driver (github.com/apache/cassandra-gocql-driver/v2, what cassbench's writer
// is built on) and ScyllaDB's fork of its v1 line (github.com/scylladb/gocql, imported as
// github.com/gocql/gocql). The fork cannot stand in for the Apache driver through a replace
// directive: it is the v1 API under another module path, so the writer would have to be
// ported to it. This program asks first whether that would pay: the same prepared insert of a
// bigint key and a 100-byte blob, from the same number of goroutines, and what it reports is
// what bench-writer reports for the writer, writes per CPU-second the client used.
//
//	driverbench -driver apache|scylla -host 127.0.0.1 -keyspace k -duration 10s -concurrency 1 \
//	            [-username u -password p]
//
// It prints one JSON line: driver, writes, errors, seconds, cpu seconds (user+sys of this
// process, from getrusage) and peak RSS. hack/bench-driver.sh runs both alternately and
// reports the ratio.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	apache "github.com/apache/cassandra-gocql-driver/v2"
	scylla "github.com/gocql/gocql"
)

type result struct {
	Driver      string  `json:"driver"`
	Concurrency int     `json:"concurrency"`
	Writes      int64   `json:"writes"`
	Errors      int64   `json:"errors"`
	Seconds     float64 `json:"seconds"`
	CPUSeconds  float64 `json:"cpuSeconds"`
	MaxRSSKiB   int64   `json:"maxRssKiB"`
}

// insert is one synchronous write of key k; each driver's session hides behind it.
type insert func(ctx context.Context, k int64, v []byte) error

func main() {
	driver := flag.String("driver", "apache", "apache or scylla")
	host := flag.String("host", "127.0.0.1", "contact point")
	keyspace := flag.String("keyspace", "driverbench", "keyspace (created with RF 1 if missing)")
	duration := flag.Duration("duration", 10*time.Second, "measured time")
	concurrency := flag.Int("concurrency", 1, "goroutines, each with one request in flight")
	user := flag.String("username", "", "user, when the node authenticates (the local nodes' is cassandra)")
	password := flag.String("password", "", "password of -username")
	flag.Parse()

	ins, closeFn, err := open(*driver, *host, *keyspace, *user, *password)
	if err != nil {
		fmt.Fprintln(os.Stderr, "driverbench:", err)
		os.Exit(1)
	}
	defer closeFn()

	v := make([]byte, 100)
	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	var writes, errs, next atomic.Int64
	var wg sync.WaitGroup
	cpu0 := cpuSeconds()
	start := time.Now()
	for range *concurrency {
		wg.Go(func() {
			for ctx.Err() == nil {
				if err := ins(context.Background(), next.Add(1), v); err != nil {
					errs.Add(1)
					continue
				}
				writes.Add(1)
			}
		})
	}
	wg.Wait()
	r := result{Driver: *driver, Concurrency: *concurrency, Writes: writes.Load(), Errors: errs.Load(),
		Seconds: time.Since(start).Seconds(), CPUSeconds: cpuSeconds() - cpu0, MaxRSSKiB: maxRSS()}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		os.Exit(1)
	}
}

const (
	createKeyspace = "CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
	createTable    = "CREATE TABLE IF NOT EXISTS %s.kv (k bigint PRIMARY KEY, v blob)"
	insertRow      = "INSERT INTO %s.kv (k, v) VALUES (?, ?)"
)

// open connects with each driver's defaults and token-aware routing, as the writer's stock
// mode does, and creates the table.
func open(driver, host, ks, user, password string) (insert, func(), error) {
	switch driver {
	case "apache":
		c := apache.NewCluster(host)
		c.Timeout = 10 * time.Second
		c.PoolConfig.HostSelectionPolicy = apache.TokenAwareHostPolicy(apache.RoundRobinHostPolicy())
		if user != "" {
			c.Authenticator = apache.PasswordAuthenticator{Username: user, Password: password}
		}
		s, err := c.CreateSession()
		if err != nil {
			return nil, nil, err
		}
		if err := schema(ks, func(q string) error { return s.Query(q).Exec() }); err != nil {
			return nil, nil, err
		}
		stmt := fmt.Sprintf(insertRow, ks)
		return func(ctx context.Context, k int64, v []byte) error {
			return s.Query(stmt, k, v).Consistency(apache.One).ExecContext(ctx)
		}, s.Close, nil
	case "scylla":
		c := scylla.NewCluster(host)
		c.Timeout = 10 * time.Second
		c.PoolConfig.HostSelectionPolicy = scylla.TokenAwareHostPolicy(scylla.RoundRobinHostPolicy())
		if user != "" {
			c.Authenticator = scylla.PasswordAuthenticator{Username: user, Password: password}
		}
		s, err := c.CreateSession()
		if err != nil {
			return nil, nil, err
		}
		if err := schema(ks, func(q string) error { return s.Query(q).Exec() }); err != nil {
			return nil, nil, err
		}
		stmt := fmt.Sprintf(insertRow, ks)
		return func(ctx context.Context, k int64, v []byte) error {
			return s.Query(stmt, k, v).Consistency(scylla.One).WithContext(ctx).Exec()
		}, s.Close, nil
	}
	return nil, nil, fmt.Errorf("unknown driver %q: apache or scylla", driver)
}

// schema creates the keyspace and table through either driver's exec.
func schema(ks string, exec func(string) error) error {
	for _, q := range []string{fmt.Sprintf(createKeyspace, ks), fmt.Sprintf(createTable, ks)} {
		if err := exec(q); err != nil {
			return err
		}
	}
	return nil
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

func maxRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss
}
