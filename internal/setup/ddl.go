package setup

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// staleTableMetrics is in the error a node gives when a table is created while the table of
// that name it has just dropped still holds its metrics' JMX names
// (javax.management.InstanceAlreadyExistsException: org.apache.cassandra.db:type=Tables,...).
// The drop's last step, releasing the table's metrics, can run after the schema change is
// agreed, so a keyspace dropped and created again at once can meet it (a CI run of the
// samples met it in 2 of 23 recreations). The create may then be half made on that node: the
// table in the schema without its store, so it is not run again as is.
const staleTableMetrics = "InstanceAlreadyExistsException"

// Recreating after a stale table's metrics: how many times in all, and the pause before each
// new attempt, in which the node finishes the drop.
const (
	ddlAttempts = 4
	ddlPause    = 2 * time.Second
)

// runDDL runs stmts in order through exec. When the first statement drops the keyspace
// (dropped), a create that meets the dropped table's metrics still registered starts the
// whole recreation again after a pause: the keyspace is dropped again, which takes any half
// made table with it, and created anew. Any other error ends it at once.
func runDDL(ctx context.Context, exec func(stmt string) error, stmts []string, dropped bool, log io.Writer) error {
	for attempt := 1; ; attempt++ {
		err := runEach(exec, stmts)
		if err == nil || !dropped || attempt == ddlAttempts || !strings.Contains(err.Error(), staleTableMetrics) {
			return err
		}
		fmt.Fprintf(log, "setup: %v: a node still held the metrics of the table it had just dropped; dropping the keyspace again and creating it anew in %s (attempt %d of %d)\n",
			err, ddlPause, attempt+1, ddlAttempts)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(ddlPause):
		}
	}
}

func runEach(exec func(stmt string) error, stmts []string) error {
	for _, stmt := range stmts {
		if err := exec(stmt); err != nil {
			return err
		}
	}
	return nil
}
