//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Writers held by a CPU limit, which the real kubelet makes a CFS quota: each writer runs Go
// code on one thread (GOMAXPROCS 1, which the writer Job sets from the limit), reads its limit
// and its throttling from its own cgroup (on this cgroup v1 host cpu/cpu.cfs_quota_us over
// cpu.cfs_period_us and cpu/cpu.stat, which the container sees at /sys/fs/cgroup), and the
// verdict names the quota for the writers it throttled. test/local cannot show it: its pods
// are processes without cgroups of their own, and internal/writer's quota test plays the
// cgroup's files.
//
// At 500m the writers' periods are read but they are not throttled: the node is the limit
// (the verdict names its queue). At 50m the same closed loop throttles them, and the verdict
// says so. The test held them at 100m until a machine with a slower node: there the writers
// were throttled in 18% of periods and used 76% of their limit, and the verdict named the
// node. How much of the loop is the writers' at a given limit depends on the node's speed;
// half that limit binds on either machine.
func TestWritersHeldByACPULimitReadTheirQuotaFromTheCgroup(t *testing.T) {
	for _, tc := range []struct {
		limit     string
		millis    int64
		throttled bool // the writers must have been throttled
	}{
		{limit: "500m", millis: 500},
		{limit: "50m", millis: 50, throttled: true},
	} {
		t.Run(tc.limit, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout+5*time.Minute)
			defer cancel()
			k := connect(t)
			run := k.sampleRun(t, func(r *cbv1.BenchmarkRun) {
				w := &r.Spec.Writers
				w.Rate, w.Concurrency = nil, 128 // closed loop: as fast as the writers can
				w.Resources = limits(tc.limit, "256Mi")
			})
			before := k.start(ctx, t, run)
			done := k.waitFinished(ctx, t, run, nil)
			succeeded(t, done)
			k.checkRestored(ctx, t, done, before)
			checkQuota(ctx, t, k, done, tc.millis, tc.throttled)
		})
	}
}

// checkQuota: every writer ran with GOMAXPROCS 1 and read its limit and its window's CFS
// periods from its cgroup (periods are counted only where cpu.stat was read), throttled ones
// where required; and the verdict names the quota where the figures show it held a writer
// back (throttled in a fifth of the periods, or 90% of the limit used).
func checkQuota(ctx context.Context, t *testing.T, k *cluster, done *cbv1.BenchmarkRun, millis int64, throttled bool) {
	t.Helper()
	r := done.Status.Results
	if r == nil || r.Bottleneck == nil {
		t.Fatalf("no results or verdict: %+v", r)
	}
	b := r.Bottleneck
	evidence := strings.Join(b.Evidence, "; ")
	t.Logf("%d ops/s; verdict %s (busiest writer at %d%% of its CPU, throttled in %d%% of periods): %s",
		r.OpsPerSecond, b.Verdict, b.WriterCPUPercent, b.WriterThrottledPercent, evidence)
	sums := k.writerSummaries(ctx, t, done)
	if len(sums) != int(done.Spec.Writers.Replicas) {
		t.Fatalf("%d writer summaries, want %d", len(sums), done.Spec.Writers.Replicas)
	}
	for i, s := range sums {
		if s.CPU == nil {
			t.Errorf("writer %d reported no CPU", i)
			continue
		}
		c := s.CPU
		t.Logf("writer %d: GOMAXPROCS %d, used %dm of a %dm limit, throttled in %d of %d periods (%d%%), scheduling delay p99 %d µs",
			i, c.Procs, c.UsedMillicores, c.LimitMillicores, c.ThrottledPeriods, c.Periods, c.ThrottledPercent, c.SchedP99Micros)
		if c.Procs != 1 || c.LimitMillicores != millis {
			t.Errorf("writer %d ran with GOMAXPROCS %d and read a %dm limit; want 1 and its %dm", i, c.Procs, c.LimitMillicores, millis)
		}
		if c.Periods <= 0 {
			t.Errorf("writer %d read no scheduler periods from its cgroup's cpu.stat", i)
		}
		if throttled && c.ThrottledPeriods <= 0 {
			t.Errorf("writer %d held to %dm was throttled in none of its %d periods", i, millis, c.Periods)
		}
		if c.ThrottledPercent >= 20 && !strings.Contains(evidence, fmt.Sprintf("writer %d was CPU-throttled in", i)) {
			t.Errorf("writer %d was throttled in %d%% of periods, and the evidence does not say so: %s", i, c.ThrottledPercent, evidence)
		}
		if c.UsedMillicores*100 >= 90*millis && !strings.Contains(evidence, fmt.Sprintf("of its %dm CPU limit", millis)) {
			t.Errorf("writer %d used %dm of its %dm, and the evidence does not name its limit: %s", i, c.UsedMillicores, millis, evidence)
		}
	}
	if throttled && b.WriterThrottledPercent < 20 && b.WriterCPUPercent < 90 {
		t.Errorf("the writers held to %dm were throttled in %d%% of periods and used %d%% of it: the verdict cannot name the quota", millis, b.WriterThrottledPercent, b.WriterCPUPercent)
	}
}
