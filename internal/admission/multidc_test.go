package admission

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// twoDCs is a run across dc1 and dc2 of one cluster: three writers in dc1, one observer in dc2,
// the keyspace replicated three times in each.
const twoDCs = `datacenters:
- {name: dc1, writers: 3}
- {name: dc2, observers: 1}
schema:
  replication:
    strategy: NetworkTopologyStrategy
    datacenters: [{name: dc1, factor: 3}, {name: dc2, factor: 3}]
workload: {writeConsistency: LOCAL_QUORUM}
writers: {replicas: 3, duration: 1m}
`

// The CRD admits a run across datacenters and defaults its replication lag settings, and it
// refuses, naming the field, what the spec alone shows cannot work: a datacenter named twice,
// writers that do not add up, a consistency level that needs a datacenter the run does not
// name or the replication leaves out, observers with nothing to observe.
func TestRunSpecAcrossDatacenters(t *testing.T) {
	spec, err := RunSpec(context.Background(), []byte(twoDCs+"replicationLag: {}\n"))
	if err != nil {
		t.Fatalf("two datacenters refused: %v", err)
	}
	if diff := cmp.Diff([]cbv1.RunDatacenter{{Name: "dc1", Writers: 3}, {Name: "dc2", Observers: 1}}, spec.Datacenters); diff != "" {
		t.Errorf("datacenters (-want +got):\n%s", diff)
	}
	if l := spec.ReplicationLag; l == nil || l.SampleShare != "0.01" || l.Limit.Duration.String() != "30s" || l.Poll.Duration.String() != "10ms" {
		t.Errorf("replicationLag defaults: %+v", l)
	}
	if got := spec.Schema.Replication.Datacenters; len(got) != 2 || got[1] != (cbv1.DatacenterReplication{Name: "dc2", Factor: 3}) {
		t.Errorf("replication datacenters: %+v", got)
	}

	tests := map[string]struct {
		yaml string
		err  string
	}{
		"both datacenterRef and datacenters": {
			yaml: "datacenterRef: {name: dc1}\n" + twoDCs,
			err:  "spec: Invalid value: spec takes exactly one of datacenterRef (one datacenter) or datacenters",
		},
		"neither": {
			yaml: "writers: {replicas: 1, duration: 1m}\n",
			err:  "spec takes exactly one of datacenterRef (one datacenter) or datacenters",
		},
		"a datacenter named twice": {
			yaml: strings.Replace(twoDCs, "- {name: dc2, observers: 1}", "- {name: dc1, observers: 1}", 1),
			err:  `spec.datacenters[1]: Duplicate value: {"name":"dc1"}`,
		},
		"a replication datacenter named twice": {
			yaml: strings.Replace(twoDCs, "{name: dc2, factor: 3}]", "{name: dc1, factor: 2}]", 1),
			err:  `spec.schema.replication.datacenters[1]: Duplicate value: {"name":"dc1"}`,
		},
		"writers that do not add up": {
			yaml: strings.Replace(twoDCs, "replicas: 3", "replicas: 4", 1),
			err:  "the writers of spec.datacenters must add up to writers.replicas",
		},
		"LOCAL_QUORUM writers in a datacenter without replicas": {
			yaml: strings.Replace(twoDCs, "datacenters: [{name: dc1, factor: 3}, {name: dc2, factor: 3}]", "datacenters: [{name: dc2, factor: 3}]", 1),
			err:  "workload.writeConsistency LOCAL_ONE and LOCAL_QUORUM need replicas in the datacenter each writer runs in",
		},
		"LOCAL_ONE reads in a datacenter without replicas": {
			yaml: strings.Replace(strings.Replace(twoDCs, "{name: dc1, factor: 3}, ", "", 1), "writeConsistency: LOCAL_QUORUM", "writeConsistency: ONE, readConsistency: LOCAL_ONE", 1),
			err:  "workload.readConsistency LOCAL_ONE and LOCAL_QUORUM need replicas in the datacenter each writer runs in",
		},
		"EACH_QUORUM over a datacenter the run does not name": {
			yaml: strings.Replace(strings.Replace(twoDCs, "{name: dc2, factor: 3}]", "{name: dc2, factor: 3}, {name: dc3, factor: 1}]", 1), "LOCAL_QUORUM", "EACH_QUORUM", 1),
			err:  "workload.writeConsistency EACH_QUORUM waits for a quorum in every datacenter of schema.replication.datacenters, and the run does not name one of them",
		},
		"EACH_QUORUM reads over a datacenter a single-datacenter run does not name": {
			yaml: "datacenterRef: {name: dc1}\nschema: {replication: {strategy: NetworkTopologyStrategy, datacenters: [{name: dc1, factor: 1}, {name: dc2, factor: 1}]}}\nworkload: {readRatio: 1, readConsistency: EACH_QUORUM}\nwriters: {replicas: 1, duration: 1m}\n",
			err:  "workload.readConsistency EACH_QUORUM waits for a quorum in every datacenter of schema.replication.datacenters",
		},
		"observers where the replication never writes": {
			yaml: strings.Replace(strings.Replace(twoDCs, ", {name: dc2, factor: 3}]", "]", 1), "LOCAL_QUORUM", "ONE", 1),
			err:  "datacenters[].observers read at LOCAL_ONE in their datacenter, which schema.replication.datacenters leaves out",
		},
		"observers and no writers elsewhere": {
			yaml: strings.Replace(twoDCs, "- {name: dc1, writers: 3}", "- {name: dc1, writers: 3, observers: 1}\n- {name: dc3}", 1),
			err:  "spec.datacenters: Invalid value: datacenters[].observers measure how long other datacenters' writes take to reach theirs",
		},
		"observers of batches": {
			yaml: strings.Replace(twoDCs, "writeConsistency: LOCAL_QUORUM", "writeConsistency: LOCAL_QUORUM, batchSize: 10", 1),
			err:  "datacenters[].observers read back single-row inserts: set workload.writeRatio above 0 and workload.batchSize to 1",
		},
		"replicationLag without observers": {
			yaml: "datacenterRef: {name: dc1}\nreplicationLag: {}\nwriters: {replicas: 1, duration: 1m}\n",
			err:  "replicationLag applies to observers",
		},
		"a zero sample share": {
			yaml: twoDCs + "replicationLag: {sampleShare: \"0\"}\n",
			err:  "replicationLag.sampleShare must be above 0",
		},
		"a replication map without NetworkTopologyStrategy": {
			yaml: strings.Replace(twoDCs, "strategy: NetworkTopologyStrategy", "strategy: SimpleStrategy", 1),
			err:  "spec.schema.replication: Invalid value: schema.replication.datacenters sets a factor per datacenter, which only NetworkTopologyStrategy takes",
		},
		"a factor above the size the run gives its datacenters": {
			yaml: twoDCs + "datacenter: {size: 2}\n",
			err:  "a factor of schema.replication.datacenters is above datacenter.size",
		},
		"one service for writers in several datacenters": {
			yaml: twoDCs + "connection: {service: cassandra.db, credentialsSecretRef: {name: creds}}\n",
			err:  "connection.service sends every writer to one host",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := RunSpec(context.Background(), []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v; want one containing %q", err, tc.err)
			}
		})
	}
}

// A consistency level that Cassandra would refuse only when replicas are missing is admitted
// when the replication covers every datacenter it needs, and TWO counts a map's replicas,
// not the default factor of 1.
func TestRunSpecAcrossDatacentersAdmitsWhatWorks(t *testing.T) {
	tests := map[string]string{
		"EACH_QUORUM over the datacenters the run names": strings.Replace(twoDCs, "LOCAL_QUORUM", "EACH_QUORUM", 1),
		"LOCAL_QUORUM replicated in a third datacenter":  strings.Replace(twoDCs, "{name: dc2, factor: 3}]", "{name: dc2, factor: 3}, {name: dc3, factor: 1}]", 1),
		"TWO on a map of two replicas":                   strings.Replace(twoDCs, "LOCAL_QUORUM", "TWO", 1),
		"SimpleStrategy across datacenters":              "datacenters: [{name: dc1, writers: 1}, {name: dc2, observers: 1}]\nschema: {replication: {factor: 2}}\nworkload: {writeConsistency: ONE}\nwriters: {replicas: 1, duration: 1m}\n",
		"a single datacenter's LOCAL_ONE on its own map": "datacenterRef: {name: dc1}\nschema: {replication: {strategy: NetworkTopologyStrategy, datacenters: [{name: dc1, factor: 1}]}}\nwriters: {replicas: 1, duration: 1m}\n",
	}
	for name, yaml := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := RunSpec(context.Background(), []byte(yaml)); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}

// A run stored before spec.datacenters existed decodes and admits as it did: its
// datacenterRef is kept, and it has no datacenters, replication map or lag settings.
func TestRunSpecFromBeforeDatacenters(t *testing.T) {
	old := `{"apiVersion":"cassbench.io/v1alpha1","kind":"BenchmarkRun","metadata":{"name":"old","namespace":"bench"},
"spec":{"datacenterRef":{"name":"dc1","namespace":"db"},"schema":{"replication":{"strategy":"NetworkTopologyStrategy","factor":3}},
"workload":{"writeConsistency":"LOCAL_QUORUM"},"writers":{"replicas":2,"duration":"5m"}}}`
	spec, err := RunSpec(context.Background(), []byte(old))
	if err != nil {
		t.Fatalf("an old run is refused: %v", err)
	}
	if spec.DatacenterRef == nil || *spec.DatacenterRef != (cbv1.DatacenterReference{Name: "dc1", Namespace: "db"}) || spec.Datacenters != nil ||
		spec.Schema.Replication.Datacenters != nil || spec.ReplicationLag != nil || spec.Schema.Replication.Factor != 3 {
		t.Errorf("old run read as %+v", spec)
	}
	var run cbv1.BenchmarkRun
	if err := json.Unmarshal([]byte(old), &run); err != nil {
		t.Fatalf("decoding an old run: %v", err)
	}
	back, err := json.Marshal(run.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(back), "datacenters") || strings.Contains(string(back), "replicationLag") {
		t.Errorf("an old run encodes new fields: %s", back)
	}
}

// A sweep across datacenters restores them after each point: restore atEnd, which holds one
// datacenter for all the points, is refused naming the template's field.
func TestSweepAcrossDatacentersRestoresAfterEachPoint(t *testing.T) {
	a, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	sweep := func(restore string) string {
		return "apiVersion: cassbench.io/v1alpha1\nkind: BenchmarkSweep\nmetadata: {name: s}\nspec:\n  restore: " + restore +
			"\n  axes: [{path: writers.concurrency, values: [8, 16]}]\n  template:\n    " + strings.ReplaceAll(strings.TrimSpace(twoDCs), "\n", "\n    ") + "\n"
	}
	if _, err := a.Admit(context.Background(), []byte(sweep("afterEach"))); err != nil {
		t.Errorf("a sweep across datacenters restoring after each point refused: %v", err)
	}
	_, err = a.Admit(context.Background(), []byte(sweep("atEnd")))
	if want := "spec: Invalid value: spec.template.datacenters: a sweep holds one datacenter with restore atEnd"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("restore atEnd across datacenters: error %v; want one containing %q", err, want)
	}
}
