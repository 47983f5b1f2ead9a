package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WritersSpec is the load: N pods, each with a number of requests in flight.
// +kubebuilder:validation:XValidation:rule="has(self.duration) != has(self.operations)",message="spec.writers takes exactly one of duration (e.g. 10m) or operations (a total count)"
// +kubebuilder:validation:XValidation:rule="!has(self.pacingTick) || has(self.rate)",message="writers.pacingTick paces an open loop: it needs writers.rate"
type WritersSpec struct {
	// replicas is the number of writer pods.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	Replicas int32 `json:"replicas"`

	// concurrency is the number of requests each writer keeps in flight.
	// +optional
	// +kubebuilder:default=32
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4096
	Concurrency int32 `json:"concurrency,omitempty"`

	// rate is the total operations per second across all writers (open loop). Unset runs closed
	// loop, as fast as Concurrency allows.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000000
	Rate *int64 `json:"rate,omitempty"`

	// arrivals spaces an open loop's operations: Uniform at equal intervals (writers offset
	// from each other so they do not fire in phase), or Poisson with exponential gaps of the
	// same mean, as independent clients arrive. Only with rate.
	// +optional
	// +kubebuilder:default=Uniform
	Arrivals Arrivals `json:"arrivals,omitempty"`

	// pacingTick puts an open loop's schedule on a grid. Unset (the default), each operation
	// is due at its own place in the rate's timetable and sent then. A tick such as 1ms makes
	// the operations the rate asks for within a tick due together at its end, as latte's
	// millisecond timer releases them: the node sees a burst of rate × tick operations each
	// tick, and the writer wakes once a tick and sends them together, which costs it far less
	// CPU per operation at high rates (requests sent together share their system calls;
	// docs/writer-efficiency.md). Schedule lag and latencies are measured from each
	// operation's due time either way. Only with rate; at most 100ms.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="self > duration('0s') && self <= duration('100ms')",message="writers.pacingTick must be longer than 0s and at most 100ms, e.g. 1ms"
	PacingTick *metav1.Duration `json:"pacingTick,omitempty"`

	// Durations are Format=duration so that CEL compares them as durations: "10m" as stored
	// and "10m0s" as a Go client sends it back are equal, and the spec immutability rule lets
	// an unchanged spec through an Update. The pattern admits only what time.ParseDuration
	// reads, so every stored run decodes in Go.

	// duration of the measured window, after Warmup.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="self > duration('0s')",message="must be longer than 0s"
	Duration *metav1.Duration `json:"duration,omitempty"`

	// operations is the total number of operations across all writers, after Warmup.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Operations *int64 `json:"operations,omitempty"`

	// warmup runs load that is not measured before the measured window.
	// +optional
	// +kubebuilder:default="0s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	Warmup *metav1.Duration `json:"warmup,omitempty"`

	// requestTimeout is the client-side timeout of one request.
	// +optional
	// +kubebuilder:default="10s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="self > duration('0s')",message="must be longer than 0s"
	RequestTimeout *metav1.Duration `json:"requestTimeout,omitempty"`

	// retries of a request that timed out or was refused as overloaded or unavailable.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Retries *int32 `json:"retries,omitempty"`

	// maxErrorPercent aborts a writer whose failed operations exceed this share of all
	// operations (after at least 1000); unset never aborts.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	MaxErrorPercent *int32 `json:"maxErrorPercent,omitempty"`

	// connectionsPerHost each writer opens.
	// +optional
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	ConnectionsPerHost int32 `json:"connectionsPerHost,omitempty"`

	// driverIO chooses how the writers' requests reach the nodes: Batched sends whatever
	// requests queued while a send was under way in one write, routes each request to its
	// replica itself, and executes single-row inserts on connections of its own, past the
	// driver's request path (cassbench's own layer, the cheaper in client CPU), each sent to
	// the first reachable replica of its key in the benchmarked datacenter by the keyspace's
	// replication (racks included) and never to a node that holds none; an insert with no
	// such replica goes through the driver and is counted in writePaths. Stock leaves
	// all of it to the driver as it ships, to rule that layer out of a result. Either way
	// every write carries the writer's clock as its timestamp, as the driver stamps its
	// requests by default, so which of two writes to a key wins never depends on the path
	// or on the coordinator's clock. status.results.writePaths counts which path carried
	// the writes.
	// +optional
	// +kubebuilder:default=Batched
	DriverIO DriverIO `json:"driverIO,omitempty"`

	// image runs the writers and the setup Job; defaults to the manager's own image. It is an
	// image reference as the kubelet parses it (github.com/distribution/reference): the
	// kubelet refuses any other (InvalidImageName) and the pods never start.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule=`self == '' || (self.matches(r'^(?:(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\[[a-fA-F0-9:]*[:A-F][a-fA-F0-9:]*\])(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[_.]|__|[-]+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[_.]|__|[-]+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@(?:sha256:[a-f0-9]{64}|sha384:[a-f0-9]{96}|sha512:[a-f0-9]{128}))?$') && !self.matches(r'^[a-f0-9]{64}$'))`,message="writers.image must be an image reference, [registry[:port]/]path[:tag][@digest], e.g. registry.example.com/team/cassbench:1.4: the path in lower case letters, digits and separators, the tag at most 128 characters"
	Image string `json:"image,omitempty"`

	// imagePullPolicy of the writer image.
	// +optional
	// +kubebuilder:validation:Enum=Always;IfNotPresent;Never
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`

	// resources of each writer container. A CPU limit also sets how many threads a writer
	// runs on (GOMAXPROCS: the limit rounded down, at least 1); without one a writer uses every
	// CPU of its node. A writer is cheapest per operation on one CPU (limits.cpu: 1), and
	// load grows with replicas.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.requests) || !has(self.limits) || ['cpu', 'memory', 'ephemeral-storage'].all(r, !(r in self.requests) || !(r in self.limits) || !isQuantity(string(self.requests[r])) || !isQuantity(string(self.limits[r])) || quantity(string(self.requests[r])).compareTo(quantity(string(self.limits[r]))) <= 0)",message="writers.resources.requests must not exceed writers.resources.limits (cpu, memory, ephemeral-storage): the apiserver would refuse the writer Job; raise the limit or lower the request"
	Resources corev1.ResourceRequirements `json:"resources,omitzero"`

	// nodeSelector of writer pods.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// tolerations of writer pods.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// affinity of writer pods.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
}

// ConnectionSpec overrides how writers reach Cassandra.
// +kubebuilder:validation:XValidation:rule="!has(self.service) || has(self.credentialsSecretRef)",message="connection.service needs connection.credentialsSecretRef: the datacenter's superuser credentials are only sent to the datacenter's own service"
type ConnectionSpec struct {
	// credentialsSecretRef names a secret with keys username and password; defaults to the
	// datacenter's superuser secret, which is used only with the datacenter's own service.
	// +optional
	// +kubebuilder:validation:XValidation:rule=`has(self.name) && self.name.size() <= 253 && self.name.matches(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')`,message="connection.credentialsSecretRef.name must name a Secret: lower case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters"
	CredentialsSecretRef *corev1.LocalObjectReference `json:"credentialsSecretRef,omitempty"`

	// service is the host writers connect to; defaults to <cluster>-<dc>-service. Setting it
	// requires CredentialsSecretRef.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule=`self.matches(r'^([a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)*\.?|[0-9a-fA-F:]*:[0-9a-fA-F:.]*)$')`,message="connection.service must be a host name or an IP address, e.g. cassandra.db.svc, with no scheme or port: give the port in connection.port"
	Service string `json:"service,omitempty"`

	// port of the CQL native protocol.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port *int32 `json:"port,omitempty"`
}

// Deadlines bound each stage of a run.
type Deadlines struct {
	// prepare bounds waiting for the datacenter to exist and admit the run (counted from the
	// run's creation), and then resizing, restarting and setting it up (counted from taking
	// it). Time spent queued behind other runs does not count.
	// +optional
	// +kubebuilder:default="30m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="self > duration('0s')",message="must be longer than 0s"
	Prepare *metav1.Duration `json:"prepare,omitempty"`

	// run bounds the writers from Job creation to the last writer's exit; defaults to warm-up
	// plus duration plus 10 minutes, or 2 hours for a run bounded by operations, and an hour
	// more for a load stage (workload.dataset.load).
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="self > duration('0s')",message="must be longer than 0s"
	Run *metav1.Duration `json:"run,omitempty"`
}

// DriverIO is how writers talk to the driver's connections.
// +kubebuilder:validation:Enum=Batched;Stock
type DriverIO string

const (
	DriverIOBatched DriverIO = "Batched"
	DriverIOStock   DriverIO = "Stock"
)

// Arrivals is how an open loop spaces its operations.
// +kubebuilder:validation:Enum=Uniform;Poisson
type Arrivals string

const (
	ArrivalsUniform Arrivals = "Uniform"
	ArrivalsPoisson Arrivals = "Poisson"
)
