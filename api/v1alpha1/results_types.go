package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Results are the writers' measurements, merged. Counts are exact; every percentile comes
// from merged sketches and carries the relative accuracy it was computed at.
type Results struct {
	// windowStart and WindowEnd bound the measured window that every measuring writer
	// shares: the latest first send to the earliest last completion, on Cassandra's clock
	// (each writer's clock corrected by its measured offset). A writer that failed before
	// sending cannot move it.
	// +required
	WindowStart metav1.Time `json:"windowStart"`
	// windowEnd is the end of the merged measured window, on the same clock as WindowStart.
	// +required
	WindowEnd metav1.Time `json:"windowEnd"`
	// windowMillis is the length of that window.
	// +required
	WindowMillis int64 `json:"windowMillis"`
	// startSpreadMillis is how far apart the writers' first sends were, on Cassandra's clock.
	// +optional
	StartSpreadMillis int64 `json:"startSpreadMillis,omitempty"`
	// maxClockOffsetMillis is the largest offset of a writer's clock from Cassandra's, as
	// measured at the start barrier (already corrected for in the window).
	// +optional
	MaxClockOffsetMillis int64 `json:"maxClockOffsetMillis,omitempty"`
	// writersReported counts the writers that reported, of the replicas.
	// +required
	WritersReported int32 `json:"writersReported"`
	// operations that succeeded: writes, reads and workload.operations.
	// +required
	Operations int64 `json:"operations"`
	// opsPerSecond is the achieved throughput: the successful operations that completed
	// inside the window every writer measured (windowStart..windowEnd), over that window
	// (a writer's completions are placed in time by its timeline). Never the target.
	// +required
	OpsPerSecond int64 `json:"opsPerSecond"`
	// operationsOutsideWindow are the successful operations that completed before or after
	// the common window (writers that started or ended apart): counted in operations, not
	// in opsPerSecond. Each writer's own rate over its own window is in perWriter.
	// +optional
	OperationsOutsideWindow int64 `json:"operationsOutsideWindow,omitempty"`
	// schedule tells how an open loop kept to its rate; absent in a closed loop.
	// +optional
	Schedule *ScheduleResults `json:"schedule,omitempty"`
	// load is the load stage's figures (workload.dataset.load), none of which count in the
	// window's.
	// +optional
	Load *LoadResults `json:"load,omitempty"`
	// writes and Reads, each with their own latencies.
	// +optional
	Writes *OperationResults `json:"writes,omitempty"`
	// reads are the counts and latencies of the reads.
	// +optional
	Reads *OperationResults `json:"reads,omitempty"`
	// operationsByKind has the figures of each kind of workload.operations; Operations,
	// OpsPerSecond, Errors and the other totals count them too.
	// +optional
	// +listType=map
	// +listMapKey=kind
	// +kubebuilder:validation:MaxItems=6
	OperationsByKind []KindResults `json:"operationsByKind,omitempty"`
	// errors counts failed operations by kind: what the application saw after retries.
	// +required
	Errors ErrorCounts `json:"errors"`
	// attemptErrors counts failed attempts by kind, retried or not: what the cluster did.
	// +required
	AttemptErrors ErrorCounts `json:"attemptErrors"`
	// attempts made in all: operations plus retries.
	// +required
	Attempts int64 `json:"attempts"`
	// timeoutsPerOperation is operations that ended in a timeout (write, read or client)
	// over operations that ended, as a decimal string: the share the application sees.
	// +required
	// +kubebuilder:validation:MaxLength=32
	TimeoutsPerOperation string `json:"timeoutsPerOperation"`
	// timeoutsPerAttempt is attempts that timed out over attempts: the share of requests
	// the cluster did not answer in time, which retries hide from TimeoutsPerOperation.
	// +required
	// +kubebuilder:validation:MaxLength=32
	TimeoutsPerAttempt string `json:"timeoutsPerAttempt"`
	// retries made after a timeout or refusal.
	// +required
	Retries int64 `json:"retries"`
	// bytes written and read in values.
	// +required
	Bytes int64 `json:"bytes"`
	// fastest and Slowest writer by operations per second.
	// +optional
	Fastest *WriterResult `json:"fastest,omitempty"`
	// slowest is the writer with the lowest throughput.
	// +optional
	Slowest *WriterResult `json:"slowest,omitempty"`
	// datacenters are, for a run across several datacenters, the results of each one's
	// writers, in the order of spec.datacenters (those without writers left out).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	Datacenters []DatacenterResults `json:"datacenters,omitempty"`
	// perWriter lists every writer's own figures. Atomic for the reason writerReports is.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1000
	PerWriter []WriterResult `json:"perWriter,omitempty"`
	// timeline is the window interval by interval, all writers together.
	// +optional
	Timeline *Timeline `json:"timeline,omitempty"`
	// sketches are the merged latency sketches, encoded, so that repeats and experiments can
	// be merged and compared later without the writers.
	// +optional
	Sketches *ResultSketches `json:"sketches,omitempty"`
	// server is what the Cassandra nodes did during the window.
	// +optional
	Server *ServerResults `json:"server,omitempty"`
	// bottleneck says whether the writers or the cluster limited the run, and why.
	// +optional
	Bottleneck *Bottleneck `json:"bottleneck,omitempty"`
	// writePaths counts the writers' write requests by the path that carried them.
	// +optional
	WritePaths *WritePathResults `json:"writePaths,omitempty"`
	// capacity is what a capacity search found (spec.capacity).
	// +optional
	Capacity *CapacityResults `json:"capacity,omitempty"`
	// cost is what the window cost at spec.pricing, or, when the run gives none, at the
	// prices of the manager's pricing ConfigMap (the chart's pricing values); nil without
	// prices.
	// +optional
	Cost *CostResults `json:"cost,omitempty"`
	// replicationLag is what observers in another datacenter saw of the writers' inserts
	// (spec.datacenters[].observers, or cassbench run --observe-datacenter).
	// +optional
	ReplicationLag *ReplicationLagResults `json:"replicationLag,omitempty"`
	// disruptions are the faults the run made inside its window and how it recovered from
	// each (only cassbench run --disrupt fills them for now; runs in Kubernetes do not
	// disrupt yet).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Disruptions []DisruptionResult `json:"disruptions,omitempty"`
}

// ScheduleResults is how an open loop kept to its rate, over all writers.
type ScheduleResults struct {
	// targetOpsPerSecond is the rate asked for.
	// +required
	TargetOpsPerSecond int64 `json:"targetOpsPerSecond"`
	// due is the operations the timetable had in the window.
	// +required
	Due int64 `json:"due"`
	// missed operations were due and never started: more than the backlog bound overdue
	// (one interval per request in flight, at least 100 ms), or still waiting at the end.
	// They are never sent after the window.
	// +required
	Missed int64 `json:"missed"`
	// backlogAtEnd is the part of Missed still waiting when the window closed.
	// +required
	BacklogAtEnd int64 `json:"backlogAtEnd"`
	// lateOver1ms and LateOverTenthInterval count operations sent more than 1 ms, and more
	// than a tenth of the interval between a writer's operations, after their intended start.
	// +required
	LateOver1ms int64 `json:"lateOver1ms"`
	// lateOverTenthInterval counts operations sent more than a tenth of the interval between a
	// writer's operations after their intended start.
	// +required
	LateOverTenthInterval int64 `json:"lateOverTenthInterval"`
	// drainMillis is how long the operations in flight at the window's end took to finish.
	// +required
	DrainMillis int64 `json:"drainMillis"`
	// lag is the schedule lag: actual send minus intended start. Response latency includes
	// it; service latency does not.
	// +required
	Lag Latency `json:"lag"`
}

// Timeline is a run's window interval by interval.
type Timeline struct {
	// intervalMillis is the length of each point (the last may be shorter).
	// +required
	IntervalMillis int64 `json:"intervalMillis"`
	// points are the intervals, counted from the first writer's first send on Cassandra's
	// clock (windowStart less startSpreadMillis); at most 120. Each writer's points are placed where they happened
	// on that clock, shared among the merged points they overlap.
	// +kubebuilder:validation:MaxItems=120
	// +listType=atomic
	// +required
	Points []TimelinePoint `json:"points"`
	// writersMissing counts the measuring writers that sent no timeline, so are not in
	// Points; FirstWritersMissing names the first 16 by index.
	// +optional
	WritersMissing int32 `json:"writersMissing,omitempty"`
	// firstWritersMissing names the first 16 writers, by index, that sent no timeline.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	FirstWritersMissing []int32 `json:"firstWritersMissing,omitempty"`
}

// TimelinePoint is one interval of a timeline.
type TimelinePoint struct {
	// offsetMillis is the interval's start from the timeline's.
	// +required
	OffsetMillis int64 `json:"offsetMillis"`
	// operations that completed in the interval, and their rate.
	// +required
	Operations int64 `json:"operations"`
	// opsPerSecond is the rate of the operations that completed in the interval.
	// +required
	OpsPerSecond int64 `json:"opsPerSecond"`
	// errors counts operations that completed in the interval and failed.
	// +required
	Errors int64 `json:"errors"`
	// p99Micros is the highest p99 response latency any writer had in the interval (to
	// about 5%): an upper bound on the p99 of the interval.
	// +required
	P99Micros int64 `json:"p99Micros"`
}

// ResultSketches are merged latency sketches as base64 of their compact binary encoding.
type ResultSketches struct {
	// writesResponse is the writes' response-time sketch.
	// +optional
	// +kubebuilder:validation:MaxLength=1048576
	WritesResponse string `json:"writesResponse,omitempty"`
	// writesService is the writes' service-time sketch.
	// +optional
	// +kubebuilder:validation:MaxLength=1048576
	WritesService string `json:"writesService,omitempty"`
	// readsResponse is the reads' response-time sketch.
	// +optional
	// +kubebuilder:validation:MaxLength=1048576
	ReadsResponse string `json:"readsResponse,omitempty"`
	// readsService is the reads' service-time sketch.
	// +optional
	// +kubebuilder:validation:MaxLength=1048576
	ReadsService string `json:"readsService,omitempty"`
	// lag is the open loop's schedule-lag sketch.
	// +optional
	// +kubebuilder:validation:MaxLength=1048576
	Lag string `json:"lag,omitempty"`
	// kinds are the response sketches of the kinds of workload.operations.
	// +optional
	// +listType=map
	// +listMapKey=kind
	// +kubebuilder:validation:MaxItems=6
	Kinds []KindSketch `json:"kinds,omitempty"`
}

// OperationResults are the counts and latencies of one kind of operation.
type OperationResults struct {
	// operations that succeeded, and their achieved rate.
	// +required
	Operations int64 `json:"operations"`
	// opsPerSecond is the achieved rate of the successful operations.
	// +required
	OpsPerSecond int64 `json:"opsPerSecond"`
	// failed operations, after retries.
	// +optional
	Failed int64 `json:"failed,omitempty"`
	// response latency is measured from the operation's intended start (open loop) or its
	// first send (closed loop), so it includes time spent queued behind a stall and the
	// schedule lag. It covers every operation, failed ones too (a timeout after every retry
	// is among the slowest), as does Service latency, measured from the first send.
	// +required
	Response Latency `json:"response"`
	// service latency, measured from the first send of each operation, failed ones too.
	// +required
	Service Latency `json:"service"`
	// failure is the response latency of the failed operations alone: the time to failure.
	// +optional
	Failure *Latency `json:"failure,omitempty"`
	// rows returned by reads, Misses (reads that returned no row) and MissRatio, misses over
	// successful reads as a decimal string.
	// +optional
	Rows int64 `json:"rows,omitempty"`
	// misses counts the reads that returned no row.
	// +optional
	Misses int64 `json:"misses,omitempty"`
	// missRatio is Misses over successful reads, as a decimal string.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	MissRatio string `json:"missRatio,omitempty"`
	// mismatches are rows a read returned that differ from the row written there, counted
	// with workload.verifyReads.
	// +optional
	Mismatches int64 `json:"mismatches,omitempty"`
}

// LoadResults are the load stage's figures, kept apart from the measured window's.
type LoadResults struct {
	// rows written, of RowsWanted.
	// +required
	Rows int64 `json:"rows"`
	// rowsWanted is the number of rows the load stage was to write.
	// +required
	RowsWanted int64 `json:"rowsWanted"`
	// failed inserts, after retries: rows the dataset may lack.
	// +optional
	Failed int64 `json:"failed,omitempty"`
	// bytes of values written.
	// +optional
	Bytes int64 `json:"bytes,omitempty"`
	// millis is how long the slowest writer took to load its share.
	// +required
	Millis int64 `json:"millis"`
	// rowsPerSecond is the rows loaded over Millis.
	// +required
	RowsPerSecond int64 `json:"rowsPerSecond"`
}

// Latency percentiles in microseconds.
type Latency struct {
	// p50 is the median, in microseconds.
	// +required
	P50 int64 `json:"p50"`
	// p90 is the 90th percentile, in microseconds.
	// +required
	P90 int64 `json:"p90"`
	// p99 is the 99th percentile, in microseconds.
	// +required
	P99 int64 `json:"p99"`
	// p999 is the 99.9th percentile, in microseconds.
	// +required
	P999 int64 `json:"p999"`
	// max is the highest latency, in microseconds.
	// +required
	Max int64 `json:"max"`
	// mean is the mean latency, in microseconds.
	// +required
	Mean int64 `json:"mean"`
	// relativeAccuracy bounds the relative error of every percentile above, as a decimal
	// string ("0.01": within 1% of a value at that rank). Max and mean are exact.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	RelativeAccuracy string `json:"relativeAccuracy,omitempty"`
	// upperBounds names the percentiles that are only upper bounds: writers whose reports
	// had to shrink kept the tail at full accuracy and folded the low end together.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:MaxLength=32
	UpperBounds []string `json:"upperBounds,omitempty"`
}

// ErrorCounts are failures by kind.
type ErrorCounts struct {
	// writeTimeout counts the writes Cassandra timed out.
	// +required
	WriteTimeout int64 `json:"writeTimeout"`
	// readTimeout counts the reads Cassandra timed out.
	// +required
	ReadTimeout int64 `json:"readTimeout"`
	// unavailable counts the operations Cassandra answered Unavailable: too few replicas alive.
	// +required
	Unavailable int64 `json:"unavailable"`
	// overloaded counts the operations a coordinator refused as overloaded.
	// +required
	Overloaded int64 `json:"overloaded"`
	// clientTimeout counts the operations the writer gave up on after writers.requestTimeout.
	// +required
	ClientTimeout int64 `json:"clientTimeout"`
	// other counts every other failure.
	// +required
	Other int64 `json:"other"`
}

// WriterResult is one writer's figures.
type WriterResult struct {
	// index of the writer.
	// +required
	Index int32 `json:"index"`
	// operations that succeeded, and their rate over the writer's own measured window.
	// +required
	Operations int64 `json:"operations"`
	// opsPerSecond is the writer's rate over its own measured window.
	// +required
	OpsPerSecond int64 `json:"opsPerSecond"`
	// errors counts the writer's failed operations.
	// +required
	Errors int64 `json:"errors"`
	// p99Micros is the writer's 99th percentile response time, in microseconds.
	// +required
	P99Micros int64 `json:"p99Micros"`
	// clockOffsetMillis is the writer's clock minus Cassandra's.
	// +optional
	ClockOffsetMillis int64 `json:"clockOffsetMillis,omitempty"`
	// outcome is how the writer ended, as it reported it.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Outcome string `json:"outcome,omitempty"`
}

// WritePathResults count the writers' write requests (every attempt, warm-up included) by the
// path that carried them. With writers.driverIO Batched, single-row inserts travel on
// cassbench's own connections (direct); everything else, and any insert the direct path could
// not send, goes through the driver. Over 1% of the inserts left to the driver is listed
// among server.anomalies.
type WritePathResults struct {
	// direct counts the requests cassbench's own connections carried.
	// +required
	Direct int64 `json:"direct"`
	// driver counts the requests the driver carried, fallbacks included.
	// +required
	Driver int64 `json:"driver"`
	// fallbacks counts the inserts the direct path left to the driver, by cause.
	// +optional
	Fallbacks FallbackCounts `json:"fallbacks"`
	// fallbackRatio is fallbacks over the inserts given to the direct path, as a decimal
	// string ("0.0012").
	// +optional
	// +kubebuilder:validation:MaxLength=32
	FallbackRatio string `json:"fallbackRatio,omitempty"`
}

// FallbackCounts count inserts the direct path left to the driver, by cause.
type FallbackCounts struct {
	// noRoute counts inserts for which no replica of the key had an open direct connection
	// and none had failed to open one (ring not known yet, replicas down or outside the local
	// datacenter).
	// +optional
	NoRoute int64 `json:"noRoute,omitempty"`
	// dialError counts inserts whose replica's last direct connection failed to connect (TCP
	// or TLS).
	// +optional
	DialError int64 `json:"dialError,omitempty"`
	// handshake counts inserts whose replica's last direct connection failed during STARTUP.
	// +optional
	Handshake int64 `json:"handshake,omitempty"`
	// authChallenge counts inserts whose replica refused the credentials, or whose
	// authenticator asked for more than password authentication's single round.
	// +optional
	AuthChallenge int64 `json:"authChallenge,omitempty"`
	// streamsExhausted counts inserts that found every stream of the connection waiting for
	// an answer.
	// +optional
	StreamsExhausted int64 `json:"streamsExhausted,omitempty"`
}
