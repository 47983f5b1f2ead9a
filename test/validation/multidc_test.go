package validation_test

// Runs across datacenters: consistency levels that need a datacenter the run does not name or
// the keyspace does not replicate to, and observers where nothing is replicated, are refused
// on apply with the field named. They join rejectedRuns, so that the API server and the
// offline admission are both held to them. (A replication map naming a datacenter that is not
// in the cluster needs the cluster to see: the controller fails such a run InvalidSpec before
// it takes any datacenter, TestRunReplicatedOutsideItsClusterFailsBeforeEitherDatacenterIsTouched.)
func init() {
	for name, row := range multiDatacenterRefusals {
		if _, dup := rejectedRuns[name]; dup {
			panic("rejected run " + name + " is listed twice")
		}
		rejectedRuns[name] = row
	}
}

// replicatedTo replicates the keyspace to each datacenter at factor 1.
func replicatedTo(dcs ...string) mutation {
	var list []any
	for _, dc := range dcs {
		list = append(list, map[string]any{"name": dc, "factor": int64(1)})
	}
	return set(map[string]any{"strategy": "NetworkTopologyStrategy", "datacenters": list}, "spec", "schema", "replication")
}

// acrossTwo names dc1 with the run's writer and dc2 with an observer, in place of datacenterRef.
var acrossTwo = []mutation{
	remove("spec", "datacenterRef"),
	set([]any{map[string]any{"name": "dc1", "writers": int64(1)}, map[string]any{"name": "dc2", "observers": int64(1)}}, "spec", "datacenters"),
	set(int64(1), "spec", "writers", "replicas"),
}

var multiDatacenterRefusals = map[string]rejectedRun{
	"EACH_QUORUM writes over a datacenter the run does not name": {
		mutate: []mutation{replicatedTo("dc1", "dc2"), set("EACH_QUORUM", "spec", "workload", "writeConsistency")},
		field:  "spec", phrase: "workload.writeConsistency EACH_QUORUM waits for a quorum in every datacenter of schema.replication.datacenters, and the run does not name one of them",
	},
	"EACH_QUORUM reads over a datacenter the run does not name": {
		mutate: []mutation{replicatedTo("dc1", "east"), set("EACH_QUORUM", "spec", "workload", "readConsistency")},
		field:  "spec", phrase: "workload.readConsistency EACH_QUORUM waits for a quorum in every datacenter of schema.replication.datacenters",
	},
	"LOCAL_QUORUM writes in a datacenter the keyspace leaves out": {
		mutate: append([]mutation{replicatedTo("dc2"), set("LOCAL_QUORUM", "spec", "workload", "writeConsistency")}, acrossTwo...),
		field:  "spec", phrase: "workload.writeConsistency LOCAL_ONE and LOCAL_QUORUM need replicas in the datacenter each writer runs in",
	},
	"LOCAL_ONE reads in the one datacenter the keyspace leaves out": {
		mutate: []mutation{replicatedTo("dc2"), set("LOCAL_ONE", "spec", "workload", "readConsistency")},
		field:  "spec", phrase: "workload.readConsistency LOCAL_ONE and LOCAL_QUORUM need replicas in the datacenter each writer runs in",
	},
	"observers in a datacenter the keyspace leaves out": {
		mutate: append([]mutation{replicatedTo("dc1")}, acrossTwo...),
		field:  "spec", phrase: "datacenters[].observers read at LOCAL_ONE in their datacenter, which schema.replication.datacenters leaves out",
	},
	"a replication datacenter named twice": {
		mutate: []mutation{replicatedTo("dc1", "dc1")},
		field:  "spec.schema.replication.datacenters[1]", phrase: "Duplicate value",
	},
}
