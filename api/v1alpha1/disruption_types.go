package v1alpha1

// DisruptionResult is one fault made inside a run's measured window and what followed it,
// read off the run's merged timeline (whole intervals: the figures are as fine as its
// intervalMillis).
type DisruptionResult struct {
	// name is the fault as it was asked for, such as "stop-node 2 at 20s; start-node 2 at 40s".
	// +required
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name"`
	// startMillis and EndMillis are when the fault began and ended, from the measured
	// window's start: a stopped node's stop and its start again (once it served CQL), a
	// flush's or compaction's command and its return.
	// +required
	StartMillis int64 `json:"startMillis"`
	// endMillis is when the fault ended, from the measured window's start.
	// +required
	EndMillis int64 `json:"endMillis"`
	// errors counts the operations that failed in the intervals the fault overlapped.
	// +required
	Errors int64 `json:"errors"`
	// errorsAfter counts the operations that failed after the fault's last interval until
	// the p99 recovered (or the timeline ended).
	// +required
	ErrorsAfter int64 `json:"errorsAfter"`
	// baselineP99Micros is the p99 over the 5 s before the fault (the highest interval p99
	// in it: an upper bound); 0 when the timeline has no interval before the fault.
	// +required
	BaselineP99Micros int64 `json:"baselineP99Micros"`
	// peakP99Micros is the highest interval p99 from the fault's start until it recovered
	// (or the timeline ended).
	// +required
	PeakP99Micros int64 `json:"peakP99Micros"`
	// objectiveP99Micros is the p99 limit OverObjectiveMillis is counted against; 0 when
	// the run had none.
	// +optional
	ObjectiveP99Micros int64 `json:"objectiveP99Micros,omitempty"`
	// overObjectiveMillis is the time, in whole intervals from the fault's start until it
	// recovered (or the timeline ended), whose p99 was over ObjectiveP99Micros.
	// +optional
	OverObjectiveMillis int64 `json:"overObjectiveMillis,omitempty"`
	// recovered says whether the p99 came back within 10% of BaselineP99Micros after the
	// fault: p99 over a 5 s window stepped each interval, within for 10 s, inside the
	// timeline.
	// +required
	Recovered bool `json:"recovered"`
	// recoveryMillis is the time from the fault's end to the end of the first 5 s window of
	// that stable stretch; 0 when not Recovered.
	// +optional
	RecoveryMillis int64 `json:"recoveryMillis,omitempty"`
	// hintsStored is the hints the nodes stored (results.server.timeline) in the intervals
	// from the fault's start until the next fault's (or the timeline's end): those a stopped
	// node's replicas kept for it; absent when none were, or no node's hints could be read.
	// +optional
	HintsStored int64 `json:"hintsStored,omitempty"`
	// hintsDelivered is the hints the nodes delivered over the same intervals: those replayed
	// to the node once it was back.
	// +optional
	HintsDelivered int64 `json:"hintsDelivered,omitempty"`
}
