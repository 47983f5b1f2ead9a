package main

import (
	"strings"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Lag flags that cannot measure anything are refused, each naming its option.
func TestLagFlagsRefuseWhatCannotBeMeasured(t *testing.T) {
	ok := lagFlags{observe: "dc2", sample: 0.01, limit: time.Second, poll: time.Millisecond}
	spec := func(batch, writes int32) *cbv1.BenchmarkRunSpec {
		return &cbv1.BenchmarkRunSpec{Workload: cbv1.WorkloadSpec{BatchSize: batch, WriteRatio: writes}}
	}
	for name, tc := range map[string]struct {
		flags     lagFlags
		local     string
		processes bool
		spec      *cbv1.BenchmarkRunSpec
		want      string
	}{
		"no lag asked":     {flags: lagFlags{}, spec: spec(5, 0)},
		"measurable":       {flags: ok, local: "dc1", spec: spec(1, 1)},
		"no local dc":      {flags: ok, spec: spec(1, 1), want: "--datacenter"},
		"same dc":          {flags: ok, local: "dc2", spec: spec(1, 1), want: "--observe-datacenter dc2 is the writers' own"},
		"processes":        {flags: ok, local: "dc1", processes: true, spec: spec(1, 1), want: "--processes"},
		"sample zero":      {flags: lagFlags{observe: "dc2", limit: time.Second, poll: time.Millisecond}, local: "dc1", spec: spec(1, 1), want: "--lag-sample 0"},
		"sample above one": {flags: lagFlags{observe: "dc2", sample: 2, limit: time.Second, poll: time.Millisecond}, local: "dc1", spec: spec(1, 1), want: "--lag-sample 2"},
		"no limit":         {flags: lagFlags{observe: "dc2", sample: 0.5, poll: time.Millisecond}, local: "dc1", spec: spec(1, 1), want: "--lag-limit"},
		"no poll":          {flags: lagFlags{observe: "dc2", sample: 0.5, limit: time.Second}, local: "dc1", spec: spec(1, 1), want: "--lag-poll"},
		"batches":          {flags: ok, local: "dc1", spec: spec(4, 1), want: "workload.batchSize is 4"},
		"no inserts":       {flags: ok, local: "dc1", spec: spec(1, 0), want: "workload.writeRatio"},
		"several datacenters": {flags: lagFlags{}, spec: &cbv1.BenchmarkRunSpec{Datacenters: []cbv1.RunDatacenter{{Name: "dc1", Writers: 1}, {Name: "dc2"}}},
			want: "spec.datacenters places writers and observers per datacenter"},
	} {
		t.Run(name, func(t *testing.T) {
			err := tc.flags.check(tc.spec, tc.local, tc.processes)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}
