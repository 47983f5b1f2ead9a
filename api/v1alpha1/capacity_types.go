package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CapacitySpec asks a run for its datacenter's capacity: the highest open-loop rate at which
// the objective holds. One fleet of writers runs every step without a restart: the first step
// at writers.rate, each as long as writers.duration (after one writers.warmup), the next rate
// agreed through Cassandra as the start is. Until a step misses, the rate doubles; until one
// meets, it halves; then the search bisects between the highest rate met and the lowest
// missed until they are within precisionPercent of each other, or maxSteps were tried. Before
// it calls the bracket converged it runs the lowest rate missed once more: met then, that rate
// counts as met and the search goes on above it.
type CapacitySpec struct {
	// objective is what every step must meet.
	// +required
	Objective CapacityObjective `json:"objective"`

	// precisionPercent ends the search once the lowest rate missed is within this many percent
	// above the highest rate met. 2% is below the run-to-run spread of most clusters'
	// throughput, so a finer bracket would mostly measure noise.
	// +optional
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=50
	PrecisionPercent int32 `json:"precisionPercent,omitempty"`

	// maxSteps bounds the steps tried, the first included. Doubling from writers.rate then
	// bisecting to 2% takes about log2(capacity / rate) + 6 steps, and one more to confirm
	// the lowest rate missed.
	// +optional
	// +kubebuilder:default=16
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:validation:Maximum=64
	MaxSteps int32 `json:"maxSteps,omitempty"`

	// intervals is how many equal parts a step is cut into to judge how well its p99 is known:
	// the 95% confidence interval of the mean of the parts' p99s must lie within
	// p99SpreadPercent of it, or the step is run again at the same rate (up to
	// maxExtensions times) and judged on all its parts.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=3
	// +kubebuilder:validation:Maximum=60
	Intervals int32 `json:"intervals,omitempty"`

	// p99SpreadPercent is how precisely a step's p99 must be known: ±10% keeps two steps 2%
	// apart in rate from being judged on noise far larger than their difference in latency,
	// for steps that cross the objective by more than that.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	P99SpreadPercent int32 `json:"p99SpreadPercent,omitempty"`

	// maxExtensions bounds how many times a step whose p99 is not known precisely enough is
	// run again. A confirmation (a missed rate tried once more before the search converges)
	// runs one round without extensions: the rate's figures are its first try's.
	// +optional
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	MaxExtensions *int32 `json:"maxExtensions,omitempty"`

	// debtWaitLimit bounds the wait, after a step that missed the objective, for the nodes'
	// pending compactions, hints and queued tasks to come back to where they were before it.
	// +optional
	// +kubebuilder:default="5m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	DebtWaitLimit *metav1.Duration `json:"debtWaitLimit,omitempty"`
}

// CapacityObjective bounds the response time (from each operation's intended start) and the
// timeouts of every step.
type CapacityObjective struct {
	// p99 bounds the 99th percentile response time.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="self > duration('0s')",message="capacity.objective.p99 must be longer than 0s"
	P99 metav1.Duration `json:"p99"`

	// p999 bounds the 99.9th percentile response time; unset, it is not bounded.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="self > duration('0s')",message="capacity.objective.p999 must be longer than 0s"
	P999 *metav1.Duration `json:"p999,omitempty"`

	// timeoutsPerMillion bounds the operations that end in a timeout, per million.
	// +optional
	// +kubebuilder:default=100
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	TimeoutsPerMillion *int64 `json:"timeoutsPerMillion,omitempty"`
}

// CapacityStop says why a capacity search ended.
// +kubebuilder:validation:Enum=Converged;StepLimit;NothingMet;Interrupted
type CapacityStop string

const (
	// CapacityConverged: the bracket is within the precision asked for, and its missed end
	// missed twice.
	CapacityConverged CapacityStop = "Converged"
	// CapacityStepLimit: maxSteps were tried; the capacity is the highest rate met (a lower
	// bound only, when no step missed).
	CapacityStepLimit CapacityStop = "StepLimit"
	// CapacityNothingMet: not even 1 operation per second met the objective.
	CapacityNothingMet CapacityStop = "NothingMet"
	// CapacityInterrupted: the search stopped before its end (a writer failed, the run was
	// cancelled); the steps it judged are kept.
	CapacityInterrupted CapacityStop = "Interrupted"
)

// CapacityOutcome is a step's judgement.
// +kubebuilder:validation:Enum=Met;Missed
type CapacityOutcome string

const (
	CapacityMet    CapacityOutcome = "Met"
	CapacityMissed CapacityOutcome = "Missed"
)

// CapacityResults is what a capacity search found.
type CapacityResults struct {
	// opsPerSecond is the capacity: the highest rate whose step met the objective; 0 when none did.
	// +required
	OpsPerSecond int64 `json:"opsPerSecond"`
	// missedOpsPerSecond is the lowest rate above the capacity whose step missed; 0 when none did.
	// +optional
	MissedOpsPerSecond int64 `json:"missedOpsPerSecond,omitempty"`
	// stop says why the search ended.
	// +required
	Stop CapacityStop `json:"stop"`
	// steps are the steps in the order they ran.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Steps []CapacityStep `json:"steps,omitempty"`
	// knee is the bottleneck verdict of the step at the lowest rate missed: what saturated.
	// +optional
	Knee *Bottleneck `json:"knee,omitempty"`
	// debtWaitMillis is the time spent in all waiting for the nodes' debt.
	// +optional
	DebtWaitMillis int64 `json:"debtWaitMillis,omitempty"`
}

// CapacityStep is one rate tried.
type CapacityStep struct {
	// targetOpsPerSecond is the rate asked of the writers.
	// +required
	TargetOpsPerSecond int64 `json:"targetOpsPerSecond"`
	// opsPerSecond is what completed, over the step's window.
	// +required
	OpsPerSecond int64 `json:"opsPerSecond"`
	// operations completed and Timeouts among them; Missed the starts the writers never sent.
	// +optional
	Operations int64 `json:"operations,omitempty"`
	// timeouts are the operations that ended in a timeout.
	// +optional
	Timeouts int64 `json:"timeouts,omitempty"`
	// missed are the starts the writers never sent.
	// +optional
	Missed int64 `json:"missed,omitempty"`
	// p99Micros and P999Micros are the step's response time percentiles, from the merged sketches.
	// +optional
	P99Micros int64 `json:"p99Micros,omitempty"`
	// p999Micros is the step's 99.9th percentile response time.
	// +optional
	P999Micros int64 `json:"p999Micros,omitempty"`
	// p99SpreadPercent is the half-width of the 95% interval of the step's p99 across its
	// intervals, in percent of it, as a decimal string.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	P99SpreadPercent string `json:"p99SpreadPercent,omitempty"`
	// runs is how many times the step ran (1 plus its extensions).
	// +optional
	Runs int32 `json:"runs,omitempty"`
	// outcome is the step's judgement, and Reason what it missed.
	// +required
	Outcome CapacityOutcome `json:"outcome"`
	// reason says what the step missed.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Reason string `json:"reason,omitempty"`
	// bottleneck is the step's verdict.
	// +optional
	Bottleneck BottleneckVerdict `json:"bottleneck,omitempty"`
	// debtWaitMillis is how long the search waited after the step for the nodes' debt, and
	// DebtOutstanding says the wait ended at its limit with the debt not paid back.
	// +optional
	DebtWaitMillis int64 `json:"debtWaitMillis,omitempty"`
	// debtOutstanding names what was still owed when the wait gave up.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	DebtOutstanding string `json:"debtOutstanding,omitempty"`
}
