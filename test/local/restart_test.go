package local

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

// TestNextRestart: the played kubelet restarts a container at once the first time, then
// after 10 s, 20 s, ... up to 5 minutes, and forgets the back-off once the container ran for
// over 10 minutes.
func TestNextRestart(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type out struct {
		Delay time.Duration
		Next  restartBackOff
	}
	for name, tc := range map[string]struct {
		b        restartBackOff
		finished time.Time
		want     out
	}{
		"first exit: at once": {finished: t0,
			want: out{0, restartBackOff{period: 10 * time.Second, updated: t0}}},
		"second exit soon after: 10s": {b: restartBackOff{period: 10 * time.Second, updated: t0}, finished: t0.Add(time.Minute),
			want: out{10 * time.Second, restartBackOff{period: 20 * time.Second, updated: t0.Add(time.Minute + 10*time.Second)}}},
		"doubling stops at 5m": {b: restartBackOff{period: 4 * time.Minute, updated: t0}, finished: t0.Add(time.Minute),
			want: out{4 * time.Minute, restartBackOff{period: 5 * time.Minute, updated: t0.Add(5 * time.Minute)}}},
		"ran over 10 minutes: forgotten": {b: restartBackOff{period: 5 * time.Minute, updated: t0}, finished: t0.Add(11 * time.Minute),
			want: out{0, restartBackOff{period: 10 * time.Second, updated: t0.Add(11 * time.Minute)}}},
	} {
		t.Run(name, func(t *testing.T) {
			d, next := nextRestart(tc.b, tc.finished)
			if diff := cmp.Diff(tc.want, out{d, next}, cmp.AllowUnexported(restartBackOff{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestRestarts: Never keeps every container ended, OnFailure restarts failed ones, Always
// (and the default) every one.
func TestRestarts(t *testing.T) {
	for name, tc := range map[string]struct {
		policy corev1.RestartPolicy
		code   int
		want   bool
	}{
		"Never, failed":        {corev1.RestartPolicyNever, 1, false},
		"OnFailure, succeeded": {corev1.RestartPolicyOnFailure, 0, false},
		"OnFailure, failed":    {corev1.RestartPolicyOnFailure, 137, true},
		"Always, succeeded":    {corev1.RestartPolicyAlways, 0, true},
		"unset, killed":        {"", 137, true},
	} {
		t.Run(name, func(t *testing.T) {
			if got := restarts(tc.policy, tc.code); got != tc.want {
				t.Errorf("restarts(%q, %d) = %v, want %v", tc.policy, tc.code, got, tc.want)
			}
		})
	}
}
