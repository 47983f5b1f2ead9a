package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Sweep labels, condition types and reasons.
const (
	// SweepLabel on a BenchmarkRun names the BenchmarkSweep that created it.
	SweepLabel = "cassbench.io/sweep"
	// SweepPointLabel on a BenchmarkRun is the index of its point in the sweep's table.
	SweepPointLabel = "cassbench.io/sweep-point"
	// SweepRepeatLabel on a BenchmarkRun is which repeat of its point it is, from 0.
	SweepRepeatLabel = "cassbench.io/sweep-repeat"

	// ConditionValid is True once every point of the sweep made a BenchmarkRun the apiserver
	// accepts (checked with a server-side dry run before any run is created).
	ConditionValid = "Valid"

	ReasonPointsValid      = "PointsValid"
	ReasonInvalidPoint     = "InvalidPoint"
	ReasonPointStarted     = "PointStarted"
	ReasonPointSucceeded   = "PointSucceeded"
	ReasonPointFailed      = "PointFailed"
	ReasonPointsFailed     = "PointsFailed"
	ReasonStoppedOnFailure = "StoppedOnFailure"
	// ReasonRunNameTaken: a run the sweep must create exists and belongs to something else.
	ReasonRunNameTaken = "RunNameTaken"

	// ConditionDatacenterLocked, on a sweep with restore atEnd, is True while the sweep holds
	// its datacenter for its points.
	ConditionDatacenterLocked = "DatacenterLocked"
	// ReasonLocked: the sweep locked the datacenter and recorded its size and config.
	ReasonLocked = "Locked"
	// ReasonReleased: the sweep put the datacenter back and removed its lock.
	ReasonReleased = "Released"
	// ReasonStoppingRuns: a deleted sweep waits for its runs to stop before it puts the
	// datacenter back.
	ReasonStoppingRuns = "StoppingRuns"
	// ReasonHeldBySweep: a run of a sweep with restore atEnd leaves the datacenter to its sweep,
	// which puts it back once after the last point.
	ReasonHeldBySweep = "HeldBySweep"
)

// SweepRestore is when a sweep's datacenter is put back.
// +kubebuilder:validation:Enum=afterEach;atEnd
type SweepRestore string

const (
	// RestoreAfterEach: every run restores the datacenter and releases it when it ends.
	RestoreAfterEach SweepRestore = "afterEach"
	// RestoreAtEnd: the sweep holds the datacenter for all its points and restores it once.
	RestoreAtEnd SweepRestore = "atEnd"
)

// SweepMode is how the axes' values combine into points.
// +kubebuilder:validation:Enum=cartesian;zip
type SweepMode string

const (
	// SweepCartesian runs every combination of the axes' values; the first axis varies slowest.
	SweepCartesian SweepMode = "cartesian"
	// SweepZip runs the i-th value of every axis together; every axis has the same length.
	SweepZip SweepMode = "zip"
)

// SweepMetric is what makes one point better than another.
// +kubebuilder:validation:Enum=opsPerSecond;p99;timeoutRatio;capacity;costPerMillionOperations
type SweepMetric string

const (
	// BestByOpsPerSecond prefers the highest mean throughput.
	BestByOpsPerSecond SweepMetric = "opsPerSecond"
	// BestByP99 prefers the lowest mean p99 response latency.
	BestByP99 SweepMetric = "p99"
	// BestByTimeoutRatio prefers the lowest share of timed-out operations.
	BestByTimeoutRatio SweepMetric = "timeoutRatio"
	// BestByCapacity prefers the highest capacity (spec.capacity; capacity_types.go).
	BestByCapacity SweepMetric = "capacity"
	// BestByCost prefers the lowest cost per million operations (spec.pricing): with
	// maxP99Micros, the cheapest point that meets that objective.
	BestByCost SweepMetric = "costPerMillionOperations"
)

// PointOutcome is where one point of a sweep is.
// +kubebuilder:validation:MaxLength=32
type PointOutcome string

const (
	PointPending   PointOutcome = "Pending"
	PointRunning   PointOutcome = "Running"
	PointSucceeded PointOutcome = "Succeeded"
	PointFailed    PointOutcome = "Failed"
	// PointSkipped is a point that never ran because an earlier one failed with stopOnFailure.
	PointSkipped PointOutcome = "Skipped"
)

// BenchmarkSweepSpec is a matrix of BenchmarkRuns: a template and the fields that vary.
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: a new experiment is a new BenchmarkSweep"
// +kubebuilder:validation:XValidation:rule="self.axes.all(a, self.axes.filter(b, b.path == a.path).size() == 1)",message="spec.axes: each path may appear only once"
// +kubebuilder:validation:XValidation:rule="!has(self.mode) || self.mode != 'zip' || self.axes.all(a, size(a.values) == size(self.axes[0].values))",message="spec.axes: in zip mode every axis must have the same number of values"
// +kubebuilder:validation:XValidation:rule="!has(self.restore) || self.restore != 'atEnd' || self.axes.all(a, !a.path.startsWith('datacenterRef') && a.path != 'datacenter.keepChanges')",message="spec.axes: with restore atEnd the sweep holds one datacenter for all its points, so datacenterRef and datacenter.keepChanges cannot vary"
// +kubebuilder:validation:XValidation:rule="!has(self.restore) || self.restore != 'atEnd' || !has(self.template.datacenters)",message="spec.template.datacenters: a sweep holds one datacenter with restore atEnd; a sweep across several datacenters restores them after each point: remove restore atEnd"
// +kubebuilder:validation:XValidation:rule="!has(self.restore) || self.restore != 'atEnd' || !has(self.template.datacenter) || !has(self.template.datacenter.keepChanges) || !self.template.datacenter.keepChanges",message="spec.template.datacenter.keepChanges contradicts restore atEnd, which puts the datacenter back after the last point: remove one of them"
// +kubebuilder:validation:XValidation:rule="(has(self.mode) && self.mode == 'zip') ? size(self.axes[0].values) <= 200 : (size(self.axes[0].values) * (size(self.axes) > 1 ? size(self.axes[1].values) : 1) * (size(self.axes) > 2 ? size(self.axes[2].values) : 1) * (size(self.axes) > 3 ? size(self.axes[3].values) : 1) * (size(self.axes) > 4 ? size(self.axes[4].values) : 1) * (size(self.axes) > 5 ? size(self.axes[5].values) : 1) * (size(self.axes) > 6 ? size(self.axes[6].values) : 1) * (size(self.axes) > 7 ? size(self.axes[7].values) : 1)) <= 200",message="spec.axes: a sweep may have at most 200 points (the product of the axes' lengths in cartesian mode)"
// +kubebuilder:validation:XValidation:rule="!has(self.loadOnce) || !self.loadOnce || (has(self.template.workload) && has(self.template.workload.dataset))",message="spec.loadOnce loads the template's workload.dataset once: set template.workload.dataset (rows), or remove loadOnce"
type BenchmarkSweepSpec struct {
	// template is the BenchmarkRun spec every point starts from.
	// +required
	Template BenchmarkRunSpec `json:"template,omitzero"`

	// axes are the fields that vary. Each names a field of the template by its dotted JSON
	// path (writers.replicas, datacenter.size, schema.table.profile,
	// datacenter.config.cassandra-yaml.concurrent_writes,
	// datacenter.config.jvm-server-options.max_heap_size) and lists the values it takes.
	// Every point is checked against the BenchmarkRun schema before any run is created.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	Axes []SweepAxis `json:"axes"`

	// mode combines the axes: cartesian runs every combination (the first axis varies
	// slowest), zip runs the i-th values of all axes together.
	// +optional
	// +kubebuilder:default=cartesian
	Mode SweepMode `json:"mode,omitempty"`

	// repeats runs every point this many times, one after the other; the table then shows the
	// mean and the range of each point's repeats.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	Repeats int32 `json:"repeats,omitempty"`

	// stopOnFailure ends the sweep at the first failed run; otherwise a failed point is
	// recorded and the sweep goes on.
	// +optional
	StopOnFailure bool `json:"stopOnFailure,omitempty"`

	// restore is when the datacenter is put back. afterEach: every run restores it and
	// releases its lock, so a point that tunes the datacenter restarts it twice, and each point
	// starts from the original. atEnd: the sweep locks the datacenter before its first point
	// and holds it until after the last (other runs queue behind it); each point changes only
	// what differs from what the previous point left (a point that changes only workload or
	// writer fields restarts nothing), and the sweep restores the datacenter once, after the
	// last point, when stopOnFailure stops it, or when it is deleted.
	// +optional
	// +kubebuilder:default=afterEach
	Restore SweepRestore `json:"restore,omitempty"`

	// bestBy chooses the best point: highest achieved opsPerSecond, lowest p99 or lowest
	// timeoutRatio.
	// +optional
	// +kubebuilder:default=opsPerSecond
	BestBy SweepMetric `json:"bestBy,omitempty"`

	// maxP99Micros is the latency bound: a point whose p99 is above it cannot be the best,
	// so bestBy opsPerSecond finds the most throughput within the bound.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxP99Micros *int64 `json:"maxP99Micros,omitempty"`

	// loadOnce measures every point on the same data: the sweep's first run loads the
	// template's workload.dataset (load stage, schema.recreate as the template says; the
	// template reads as that first run, with dataset.load true) and every later run measures
	// it with dataset.load and schema.recreate false. Axes must then leave
	// alone what the rows depend on (workload.seed, the table, partitions...): setup refuses
	// a point whose spec differs from the dataset's record, naming the difference.
	// +optional
	LoadOnce bool `json:"loadOnce,omitempty"`
}

// SweepAxis is one field of the template and the values it takes.
// +kubebuilder:validation:XValidation:rule="self.values.all(v, type(v) == string || (v >= -2147483648 && v <= 2147483647))",message="values: an integer must fit in 32 bits; write a larger one as a string, e.g. \"9007199254740993\""
type SweepAxis struct {
	// path is the dotted JSON path of a field of the BenchmarkRun spec, e.g. writers.replicas.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`
	Path string `json:"path"`

	// values the field takes: integers or strings, each read as the field's type. An integer
	// field takes 12 or "12"; a string field "QUORUM" (an integer becomes its decimal
	// string); a duration "10m"; a boolean "true" or "false"; an object or list field a JSON
	// string such as '{"profile": "ip-by-city"}', where "null" removes the field. Inside the
	// free-form config sections a value goes in as written, except that a string holding a
	// JSON object or list becomes that object or list.
	//
	// Values are int-or-string rather than any JSON so that the CRD's CEL rules can count
	// them: a schemaless list item would hide the list from CEL.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=200
	Values []intstr.IntOrString `json:"values"`
}

// BenchmarkSweepStatus is how far the sweep is and what each point measured.
type BenchmarkSweepStatus struct {
	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions of the sweep: Valid (every point is an acceptable BenchmarkRun), Succeeded, and with
	// restore atEnd DatacenterLocked and DatacenterRestored.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// phase summarises the conditions.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// points is the number of points in the sweep.
	// +optional
	Points int32 `json:"points,omitempty"`

	// completed counts the points whose every repeat finished, successfully or not.
	// +optional
	Completed int32 `json:"completed,omitempty"`

	// failed counts the completed points with at least one failed run.
	// +optional
	Failed int32 `json:"failed,omitempty"`

	// progress reads "3/8 done" (and how many failed).
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Progress string `json:"progress,omitempty"`

	// table has one row per point, in point order.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=200
	Table []SweepPoint `json:"table,omitempty"`

	// best is the best completed point by spec.bestBy.
	// +optional
	Best *SweepBest `json:"best,omitempty"`

	// datacenter is, with restore atEnd, the datacenter the sweep holds and the size and config
	// it found before its first point: what its points start from and what it puts back.
	// +optional
	Datacenter *HeldDatacenter `json:"datacenter,omitempty"`
}

// SweepPoint is one row of a sweep's table. Figures come from the point's succeeded runs:
// throughput and latencies are their means, with the range across repeats; latencies are the
// runs' write response latencies (read latencies for a run without writes), in microseconds.
type SweepPoint struct {
	// point is the row's index, from 0.
	// +required
	Point int32 `json:"point"`
	// values of the axes at this point, in axis order, as written in spec.axes.
	// +listType=atomic
	// +required
	// +kubebuilder:validation:items:MaxLength=256
	// +kubebuilder:validation:MaxItems=8
	Values []string `json:"values"`
	// runs created for this point so far, in repeat order.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:MaxItems=10
	Runs []string `json:"runs,omitempty"`
	// outcome is Pending, Running, Succeeded, Failed or Skipped.
	// +required
	Outcome PointOutcome `json:"outcome"`
	// message says why the point failed.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Message string `json:"message,omitempty"`
	// succeeded and Failed count the point's finished runs.
	// +optional
	Succeeded int32 `json:"succeeded,omitempty"`
	// failed counts the point's runs that failed.
	// +optional
	Failed int32 `json:"failed,omitempty"`
	// opsPerSecond is the mean over the succeeded runs; Min and Max bound it.
	// +optional
	OpsPerSecond int64 `json:"opsPerSecond,omitempty"`
	// opsPerSecondMin is the lowest throughput of the point's succeeded runs.
	// +optional
	OpsPerSecondMin int64 `json:"opsPerSecondMin,omitempty"`
	// opsPerSecondMax is the highest throughput of the point's succeeded runs.
	// +optional
	OpsPerSecondMax int64 `json:"opsPerSecondMax,omitempty"`
	// opsPerSecondSpread is (max - min) / mean of the runs' throughput, as a decimal string:
	// how much the repeats disagree.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	OpsPerSecondSpread string `json:"opsPerSecondSpread,omitempty"`
	// capacity is the lowest capacity the point's runs found (spec.capacity): the rate every
	// repeat met its objective at.
	// +optional
	Capacity int64 `json:"capacity,omitempty"`
	// costPerMillionOperations is the mean of the point's runs' datacenter cost per million
	// operations (spec.pricing), in Currency.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	CostPerMillionOperations string `json:"costPerMillionOperations,omitempty"`
	// currency of CostPerMillionOperations.
	// +optional
	// +kubebuilder:validation:MaxLength=8
	Currency string `json:"currency,omitempty"`
	// p50 (and p99, p999 below) are the percentiles of all the succeeded runs' operations together,
	// from their merged sketches, in microseconds (never means of the runs' percentiles).
	// Runs that kept no sketches give the highest of their own percentiles, an upper bound,
	// and no RelativeAccuracy.
	// +optional
	P50 int64 `json:"p50,omitempty"`
	// p99 of the point's succeeded runs' operations together, in microseconds.
	// +optional
	P99 int64 `json:"p99,omitempty"`
	// p999 of the point's succeeded runs' operations together, in microseconds.
	// +optional
	P999 int64 `json:"p999,omitempty"`
	// p99Min and P99Max bound the runs' p99.
	// +optional
	P99Min int64 `json:"p99Min,omitempty"`
	// p99Max is the highest p99 of one of the point's succeeded runs, in microseconds.
	// +optional
	P99Max int64 `json:"p99Max,omitempty"`
	// relativeAccuracy of P50, P99 and P999, as a decimal string.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	RelativeAccuracy string `json:"relativeAccuracy,omitempty"`
	// timeoutRatio is timed-out operations over operations across the runs, as a decimal.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	TimeoutRatio string `json:"timeoutRatio,omitempty"`
	// timeoutsPerAttempt is timed-out attempts over attempts across the runs, as a decimal.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	TimeoutsPerAttempt string `json:"timeoutsPerAttempt,omitempty"`
	// errors counts failed operations of every kind across the runs.
	// +optional
	Errors int64 `json:"errors,omitempty"`
	// bottleneck is the runs' verdict on who limited them; Unclear when they disagree.
	// +optional
	Bottleneck BottleneckVerdict `json:"bottleneck,omitempty"`
}

// SweepBest names the best point.
type SweepBest struct {
	// point is the index of the best row.
	// +required
	Point int32 `json:"point"`
	// values of the axes at that point.
	// +listType=atomic
	// +required
	// +kubebuilder:validation:items:MaxLength=256
	// +kubebuilder:validation:MaxItems=8
	Values []string `json:"values"`
	// by is the metric that chose it.
	// +required
	By SweepMetric `json:"by"`
	// summary reads e.g. "writers.replicas=48 (29000 ops/s)".
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Summary string `json:"summary,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=bsw,categories=cassbench
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Progress",type=string,JSONPath=`.status.progress`
// +kubebuilder:printcolumn:name="Restore",type=string,JSONPath=`.spec.restore`,priority=1
// +kubebuilder:printcolumn:name="Best",type=string,JSONPath=`.status.best.summary`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// BenchmarkSweep runs a matrix of BenchmarkRuns, one at a time, and tabulates their results.
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63",message="metadata.name must be at most 63 characters: it labels the sweep's runs"
type BenchmarkSweep struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is a matrix of BenchmarkRuns: a template and the fields that vary. It is immutable.
	// +required
	Spec BenchmarkSweepSpec `json:"spec,omitzero"`
	// status is how far the sweep is and what each point measured.
	// +optional
	Status BenchmarkSweepStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// BenchmarkSweepList is a list of BenchmarkSweeps.
type BenchmarkSweepList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BenchmarkSweep `json:"items"`
}

func init() {
	register(&BenchmarkSweep{}, &BenchmarkSweepList{})
}
