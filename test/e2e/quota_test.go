//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Writers held to half a CPU (limits.cpu: 500m) by the real kubelet's CFS quota: each runs
// Go code on one thread (GOMAXPROCS 1, which the writer Job sets from the limit), reads its
// 500m limit and its throttling from its own cgroup (on this cgroup v1 host,
// cpu/cpu.cfs_quota_us over cpu.cfs_period_us and cpu/cpu.stat, which the container sees at
// /sys/fs/cgroup), and the verdict names the quota for the writers it throttled.
// test/local cannot show it: its pods are processes without cgroups of their own, and
// internal/writer's quota test plays the cgroup's files.
func TestWritersHeldToHalfACPUReadTheirQuotaFromTheCgroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout+5*time.Minute)
	defer cancel()
	k := connect(t)
	run := k.sampleRun(t, func(r *cbv1.BenchmarkRun) {
		w := &r.Spec.Writers
		w.Rate, w.Concurrency = nil, 128 // closed loop: as fast as the writers can
		w.Resources = limits("500m", "256Mi")
	})
	before := k.start(ctx, t, run)
	done := k.waitFinished(ctx, t, run, nil)
	succeeded(t, done)
	k.checkRestored(ctx, t, done, before)

	r := done.Status.Results
	if r == nil || r.Bottleneck == nil {
		t.Fatalf("no results or verdict: %+v", r)
	}
	b := r.Bottleneck
	evidence := strings.Join(b.Evidence, "; ")
	t.Logf("%d ops/s; verdict %s (busiest writer at %d%% of its CPU, throttled in %d%% of periods): %s",
		r.OpsPerSecond, b.Verdict, b.WriterCPUPercent, b.WriterThrottledPercent, evidence)
	sums := k.writerSummaries(ctx, t, done)
	if len(sums) != int(run.Spec.Writers.Replicas) {
		t.Fatalf("%d writer summaries, want %d", len(sums), run.Spec.Writers.Replicas)
	}
	for i, s := range sums {
		if s.CPU == nil {
			t.Errorf("writer %d reported no CPU", i)
			continue
		}
		c := s.CPU
		t.Logf("writer %d: GOMAXPROCS %d, used %dm of a %dm limit, throttled in %d%% of %d periods (%d), scheduling delay p99 %d µs",
			i, c.Procs, c.UsedMillicores, c.LimitMillicores, c.ThrottledPercent, c.Periods, c.ThrottledPeriods, c.SchedP99Micros)
		if c.Procs != 1 || c.LimitMillicores != 500 {
			t.Errorf("writer %d ran with GOMAXPROCS %d and read a %dm limit; want 1 and its 500m", i, c.Procs, c.LimitMillicores)
		}
		// Periods count only where cpu.stat was read: proof the writer read its own cgroup.
		if c.Periods <= 0 || c.ThrottledPeriods <= 0 {
			t.Errorf("writer %d read %d scheduler periods, %d throttled, from its cgroup's cpu.stat; want some of each", i, c.Periods, c.ThrottledPeriods)
		}
	}
	// The verdict names the quota for what the figures show: a writer throttled in a fifth
	// of the periods, or using 90% of its limit.
	if b.WriterThrottledPercent >= 20 && !strings.Contains(evidence, "was CPU-throttled in") {
		t.Errorf("the writers were throttled in %d%% of periods, and the evidence does not say so: %s", b.WriterThrottledPercent, evidence)
	}
	if b.WriterCPUPercent >= 90 && !strings.Contains(evidence, "of its 500m CPU limit") {
		t.Errorf("a writer used %d%% of its limit, and the evidence does not name its 500m limit: %s", b.WriterCPUPercent, evidence)
	}
}
