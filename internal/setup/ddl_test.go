package setup

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A keyspace recreated while a node still holds the dropped table's metrics is dropped and
// created again, whole; other errors, and a create that dropped nothing, end setup at once.
func TestRunDDLRecreatesAfterAStaleTable(t *testing.T) {
	stale := errors.New(`running "CREATE TABLE IF NOT EXISTS \"ks\".cassbench_barrier": java.lang.RuntimeException: javax.management.InstanceAlreadyExistsException: org.apache.cassandra.db:type=Tables,keyspace=ks,table=cassbench_barrier`)
	stmts := []string{"DROP KEYSPACE IF EXISTS ks", "CREATE KEYSPACE IF NOT EXISTS ks", "CREATE TABLE IF NOT EXISTS ks.t", "CREATE TABLE IF NOT EXISTS ks.cassbench_barrier"}
	tests := map[string]struct {
		dropped   bool
		failures  map[int]error // the nth statement run (from 0) fails with the error
		wantRun   int
		wantErr   string
		wantRetry int
	}{
		"stale once":       {dropped: true, failures: map[int]error{3: stale}, wantRun: 8, wantRetry: 1},
		"stale every time": {dropped: true, failures: map[int]error{3: stale, 7: stale, 11: stale, 15: stale}, wantRun: 16, wantErr: "InstanceAlreadyExistsException", wantRetry: 3},
		"other error":      {dropped: true, failures: map[int]error{2: errors.New("unauthorized")}, wantRun: 3, wantErr: "unauthorized"},
		"nothing dropped":  {failures: map[int]error{3: stale}, wantRun: 4, wantErr: "InstanceAlreadyExistsException"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var ran []string
			exec := func(stmt string) error {
				ran = append(ran, stmt)
				return tc.failures[len(ran)-1]
			}
			var log strings.Builder
			err := runDDL(context.Background(), exec, stmts, tc.dropped, &log)
			if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err %v, want one saying %q", err, tc.wantErr)
			}
			if len(ran) != tc.wantRun {
				t.Errorf("ran %d statements, want %d: %q", len(ran), tc.wantRun, ran)
			}
			for i := 0; i+len(stmts) <= len(ran); i += len(stmts) {
				if diff := cmp.Diff(stmts, ran[i:i+len(stmts)]); diff != "" {
					t.Errorf("attempt %d did not run the drop and every create in order:\n%s", i/len(stmts)+1, diff)
				}
			}
			if n := strings.Count(log.String(), "dropping the keyspace again"); n != tc.wantRetry {
				t.Errorf("%d retries said, want %d:\n%s", n, tc.wantRetry, log.String())
			}
		})
	}
}
