//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A writer whose memory limit its load cannot fit in is OOM-killed by the kernel (the real
// kubelet's memory cgroup): the run fails naming OOMKilled and the limit to raise, keeps the
// row of the writer that left no report, and gives the datacenter back. test/local cannot
// show it: its pods are processes without limits.
//
// 4,096 requests in flight hold some 64 MiB of goroutines (16 KiB each) and buffers the
// collector cannot free, which no 32Mi container holds.
func TestWriterOOMKilledFailsTheRunNamingItAndRestores(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout+5*time.Minute)
	defer cancel()
	k := connect(t)
	run := k.sampleRun(t, func(r *cbv1.BenchmarkRun) {
		w := &r.Spec.Writers
		w.Replicas, w.Concurrency, w.Rate = 1, 4096, nil
		w.Resources = limits("", "32Mi")
		w.Duration = ptr.To(metav1.Duration{Duration: 20 * time.Second})
	})
	before := k.start(ctx, t, run)
	done := k.waitFinished(ctx, t, run, nil)

	cond := meta.FindStatusCondition(done.Status.Conditions, cbv1.ConditionSucceeded)
	t.Logf("Succeeded: %s %s: %s", cond.Status, cond.Reason, cond.Message)
	if cond.Status != metav1.ConditionFalse || cond.Reason != cbv1.ReasonWriterFailed {
		t.Errorf("Succeeded is %s (%s), want False (%s)", cond.Status, cond.Reason, cbv1.ReasonWriterFailed)
	}
	for _, want := range []string{"OOMKilled", "writers.resources.limits.memory"} {
		if !strings.Contains(cond.Message, want) {
			t.Errorf("the run's message does not name %s: %s", want, cond.Message)
		}
	}
	if len(done.Status.WriterReports) != 1 {
		t.Fatalf("writer reports %+v, want the one writer's", done.Status.WriterReports)
	}
	if w := done.Status.WriterReports[0]; w.Reason != "OOMKilled" || w.ExitCode != 137 {
		t.Errorf("writer 0 ended %s with exit code %d, want OOMKilled with 137", w.Reason, w.ExitCode)
	}
	k.checkRestored(ctx, t, done, before)
}
