package podenv

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Writers observe the first datacenter with observers that is not their own; a writer in the
// observed datacenter, or beyond the placed writers, observes none.
func TestObservedDatacenter(t *testing.T) {
	dcs := []cbv1.RunDatacenter{{Name: "dc1", Writers: 2}, {Name: "dc2", Writers: 1, Observers: 1}, {Name: "dc3", Observers: 2}}
	for index, want := range map[int]string{0: "dc2", 1: "dc2", 2: "dc3", 3: ""} {
		got, ok := ObservedDatacenter(dcs, index)
		if got != want || ok != (want != "") {
			t.Errorf("writer %d observes %q (%v), want %q", index, got, ok, want)
		}
	}
	if got := ObserverReaders(dcs, "dc3"); got != 8 {
		t.Errorf("two observers in dc3 keep %d reads in flight, want 8", got)
	}
	if got, ok := ObservedDatacenter([]cbv1.RunDatacenter{{Name: "dc1", Writers: 1}}, 0); ok {
		t.Errorf("no observers anywhere, writer 0 observes %q", got)
	}
}

// spec.replicationLag's values win; what it leaves out (or a spec that was never admitted)
// takes the CRD's defaults.
func TestLagSettings(t *testing.T) {
	for name, tc := range map[string]struct {
		lag         *cbv1.ReplicationLagSpec
		sample      float64
		limit, poll time.Duration
	}{
		"none": {nil, 0.01, 30 * time.Second, 10 * time.Millisecond},
		"set": {&cbv1.ReplicationLagSpec{SampleShare: "0.5", Limit: &metav1.Duration{Duration: 5 * time.Second}, Poll: &metav1.Duration{Duration: time.Millisecond}},
			0.5, 5 * time.Second, time.Millisecond},
		"share only": {&cbv1.ReplicationLagSpec{SampleShare: "1"}, 1, 30 * time.Second, 10 * time.Millisecond},
	} {
		t.Run(name, func(t *testing.T) {
			s, l, p := LagSettings(&cbv1.BenchmarkRunSpec{ReplicationLag: tc.lag})
			if s != tc.sample || l != tc.limit || p != tc.poll {
				t.Errorf("got %g %s %s, want %g %s %s", s, l, p, tc.sample, tc.limit, tc.poll)
			}
		})
	}
}
