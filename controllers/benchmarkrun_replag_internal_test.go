package controllers

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// ReplicationKeptUp is False, with the counts and the datacenter, when keys were censored,
// True with the slowest lag when none was, and absent from a run without observers.
func TestReplicationKeptUp(t *testing.T) {
	for name, tc := range map[string]struct {
		res  *cbv1.Results
		want []string // status/reason: message
	}{
		"no observers": {res: &cbv1.Results{}},
		"every key seen": {
			res: &cbv1.Results{ReplicationLag: &cbv1.ReplicationLagResults{ObservedDatacenter: "dc2", LimitMillis: 30_000, Seen: 12,
				Lag: &cbv1.Latency{Max: 4_500}}},
			want: []string{"True/KeysSeen: all 12 sampled inserts were readable in dc2 within 30s, the slowest after 4.5ms"}},
		"keys censored": {
			res: &cbv1.Results{ReplicationLag: &cbv1.ReplicationLagResults{ObservedDatacenter: "dc2", LimitMillis: 5_000, Seen: 3, Censored: 9}},
			want: []string{"False/KeysNotSeen: 9 of 12 sampled inserts were not readable in dc2 within 5s (replicationLag.limit): " +
				"dc2 was unreachable (its writes then wait as hints in the writers' datacenter) or that far behind; see status.results.replicationLag"}},
	} {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, c := range replicationKeptUp(tc.res).conds {
				if c.typ != cbv1.ConditionReplicationKeptUp {
					t.Errorf("condition %s", c.typ)
				}
				got = append(got, string(c.status)+"/"+c.reason+": "+c.msg)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
