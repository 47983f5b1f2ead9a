package v1alpha1

// ReplicationLagResults is how long the writers' acknowledged inserts took to become readable
// in another datacenter of the cluster: an observer there read a sampled share of them back
// at LOCAL_ONE until it found each row, or gave up at a limit.
type ReplicationLagResults struct {
	// observedDatacenter is the datacenter the observer read in.
	// +required
	// +kubebuilder:validation:MaxLength=253
	ObservedDatacenter string `json:"observedDatacenter"`
	// sampleShare is the share of acknowledged inserts read back, as a decimal string.
	// +required
	// +kubebuilder:validation:MaxLength=32
	SampleShare string `json:"sampleShare"`
	// limitMillis is how long after its acknowledgement a key was looked for before it was
	// counted as censored.
	// +required
	LimitMillis int64 `json:"limitMillis"`
	// seen counts the keys read back within the limit: lag holds their times to visibility.
	// +required
	Seen int64 `json:"seen"`
	// censored counts the keys not readable within the limit: the datacenter was unreachable
	// or that far behind. They are not in lag's percentiles.
	// +required
	Censored int64 `json:"censored"`
	// dropped counts the sampled keys the observer never read because too many were waiting.
	// +optional
	Dropped int64 `json:"dropped,omitempty"`
	// readErrors counts the observer's reads that failed (a down replica, a timeout); their
	// keys were read again.
	// +optional
	ReadErrors int64 `json:"readErrors,omitempty"`
	// lag is the time from each seen key's acknowledgement to the first read that found
	// it, both on Cassandra's clock (each side corrected by its measured offset).
	// +optional
	Lag *Latency `json:"lag,omitempty"`
	// boundMicros is how far above the true time to visibility a figure of lag may be: the
	// longest gap between two reads of a key plus clockErrorMicros.
	// +optional
	BoundMicros int64 `json:"boundMicros,omitempty"`
	// clockErrorMicros is the largest sum of the writer's and the observer's clock offset
	// errors: how far below the true time a figure may be.
	// +optional
	ClockErrorMicros int64 `json:"clockErrorMicros,omitempty"`
}

// ConditionReplicationKeptUp, on a run with observers, says whether every sampled insert
// became readable in the observed datacenter within spec.replicationLag.limit: False names
// the keys not seen (censored), which an unreachable or lagging datacenter leaves.
const ConditionReplicationKeptUp = "ReplicationKeptUp"

// Reasons of ConditionReplicationKeptUp.
const (
	// ReasonKeysSeen: every sampled insert was read back within the limit.
	ReasonKeysSeen = "KeysSeen"
	// ReasonKeysNotSeen: some were not (censored); the message says how many, and where.
	ReasonKeysNotSeen = "KeysNotSeen"
)
