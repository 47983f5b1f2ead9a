package writer_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/writer"
)

// Every write is timestamped by the writer's clock, whichever path carries it: the direct
// path's inserts and the driver's updates and deletes alike, with driverIO Batched and Stock
// alike. The writer's clock is set a minute ahead of the node's, so a write the coordinator
// timestamped would show; one writer with one request in flight runs the same mix of inserts,
// updates and deletes over 40 keys on both, and both leave the same rows.
func TestWritesCarryTheWritersClockOnEveryPath(t *testing.T) {
	c := cluster(t)
	const skew = time.Minute
	db := session(t, c, time.Minute)
	left := map[cbv1.DriverIO]map[int64][]byte{}
	for _, io := range []cbv1.DriverIO{cbv1.DriverIOBatched, cbv1.DriverIOStock} {
		ks := "it_ts_" + strings.ToLower(string(io))
		s := spec(ks, func(b *builders.BenchmarkRunBuilder) { b.Operations(900).Concurrency(1) })
		s.Workload.Partitions = 40
		s.Workload.Operations = []cbv1.Operation{
			{Kind: cbv1.OperationUpdate, Weight: 1, Columns: []string{"value"}},
			{Kind: cbv1.OperationDelete, Weight: 1},
		}
		s.Writers.DriverIO = io
		setUp(t, c, s)
		from := time.Now().Add(skew)
		sums := mustRun(t, c, s, func(cfg *writer.Config) { cfg.Now = func() time.Time { return time.Now().Add(skew) } })
		to := time.Now().Add(skew)
		// The inserts went direct on Batched, the updates and deletes through the driver.
		if p := sums[0].Paths; p == nil || p.FellBack() != 0 || (p.Direct > 0) != (io == cbv1.DriverIOBatched) || p.Driver == 0 {
			t.Errorf("driverIO %s: write paths %+v", io, p)
		}

		rows := map[int64][]byte{}
		iter := db.Query(fmt.Sprintf("SELECT key, value, WRITETIME(value) FROM %q.key_value", ks)).Consistency(gocql.All).Iter()
		var (
			k  int64
			v  []byte
			wt int64
		)
		for iter.Scan(&k, &v, &wt) {
			rows[k] = append([]byte(nil), v...)
			if at := time.UnixMicro(wt); at.Before(from) || at.After(to) {
				t.Errorf("driverIO %s: key %d written at %s, %s from the writer's clock during the run (%s to %s): not the writer's timestamp",
					io, k, at.Format(time.RFC3339Nano), at.Sub(from).Round(time.Millisecond), from.Format(time.TimeOnly), to.Format(time.TimeOnly))
			}
		}
		if err := iter.Close(); err != nil {
			t.Fatalf("reading %s.key_value: %v", ks, err)
		}
		if len(rows) == 0 || len(rows) == 40 {
			t.Fatalf("driverIO %s: %d of 40 keys left; the mix should leave some deleted and some present", io, len(rows))
		}
		left[io] = rows
	}
	batched, stock := left[cbv1.DriverIOBatched], left[cbv1.DriverIOStock]
	for k, v := range stock {
		if w, ok := batched[k]; !ok {
			t.Errorf("key %d is present after the Stock run, deleted after the Batched one", k)
		} else if !bytes.Equal(v, w) {
			t.Errorf("key %d holds different values after the Stock and Batched runs", k)
		}
	}
	for k := range batched {
		if _, ok := stock[k]; !ok {
			t.Errorf("key %d is present after the Batched run, deleted after the Stock one", k)
		}
	}
	t.Logf("both runs left %d and %d of 40 keys", len(batched), len(stock))
}
