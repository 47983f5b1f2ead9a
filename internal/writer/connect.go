package writer

import (
	"context"
	"math/rand/v2"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/cql"
)

// connectWindow bounds how long a writer retries connecting while the cluster does not answer
// in time. A hundred writer pods starting together against a small datacenter time out on the
// nodes' first answers (each connection authenticates, and a node hashes every password it
// checks; test/local's 100-writer scenario lost 13 writers of 100 so on one node), and a
// writer that gives up at once fails the whole run, with the others waiting at the barrier.
const connectWindow = 2 * time.Minute

// connectRetrying connects, retrying with a growing, jittered pause while the failure is
// one of the cluster not answering in time or refusing the connection, for at most
// connectWindow (or limit, when shorter and set), as now tells time. Wrong credentials or a
// missing keyspace are returned at once.
func connectRetrying(ctx context.Context, o cql.Options, limit time.Duration, now func() time.Time) (*gocql.Session, *cql.Direct, error) {
	window := connectWindow
	if limit > 0 {
		window = min(window, limit)
	}
	deadline := now().Add(window)
	pause := time.Second
	for {
		s, d, err := cql.ConnectDirect(o)
		if err == nil || !retryableConnect(err) || ctx.Err() != nil || now().Add(pause).After(deadline) {
			return s, d, err
		}
		sleepCtx(ctx, pause/2+rand.N(pause))
		pause = min(2*pause, 10*time.Second)
	}
}

// retryableConnect tells whether a failure to connect may pass: the driver's session errors
// are strings, so they are matched by what they say.
func retryableConnect(err error) bool {
	msg := err.Error()
	// A headless service's name has no address while none of its pods is ready (a node
	// restarting under a run): test/local's setup met it once right after a restore.
	for _, transient := range []string{"within timeout", "no response", "i/o timeout", "connection refused", "connection reset", "failed to resolve", "no such host"} {
		if strings.Contains(msg, transient) {
			return true
		}
	}
	return false
}

// ConnectRetrying is connectRetrying for a caller that wants the session alone (setup).
func ConnectRetrying(ctx context.Context, o cql.Options, limit time.Duration) (*gocql.Session, error) {
	s, d, err := connectRetrying(ctx, o, limit, time.Now)
	if d != nil {
		d.Close()
	}
	return s, err
}
