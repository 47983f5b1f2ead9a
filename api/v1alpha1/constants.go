package v1alpha1

import (
	"regexp"
	"strings"
	"time"
)

// DefaultPrepareDeadline is the CRD's default of spec.deadlines.prepare (the marker on
// Deadlines.Prepare), for code that must bound a run no API server defaulted. A test of
// internal/admission holds the two equal.
const DefaultPrepareDeadline = 30 * time.Minute

// Annotations and labels.
const (
	// AllowBenchmarksAnnotation on a CassandraDatacenter opts it in: "true" admits runs from the
	// datacenter's own namespace; a comma-separated list of namespaces admits runs from those
	// (and "*" from any).
	AllowBenchmarksAnnotation = "cassbench.io/allow-benchmarks"
	// AllowDropKeyspacesAnnotation on a CassandraDatacenter lists, comma-separated, the
	// keyspaces (names, or patterns with *: "bench,bench_*") that runs with schema.recreate
	// may drop and create. Without it a run drops only a keyspace cassbench created.
	AllowDropKeyspacesAnnotation = "cassbench.io/allow-drop-keyspaces"
	// LockAnnotation on a CassandraDatacenter names the run that holds it, as namespace/name,
	// or the BenchmarkSweep with restore atEnd that holds it for its runs, as
	// sweep:namespace/name.
	LockAnnotation = "cassbench.io/locked-by"
	// ReconcileRequestedAnnotation on a CassandraDatacenter holds the time (RFC 3339) a run last
	// asked cass-operator to look at it again, while the run waits for a change it made. With one
	// node, every pass of cass-operator's reconcile during a roll fails until the new pod's
	// cassandra container has run 10 s, and the error waits in controller-runtime's backoff (up
	// to 1000 s), while cass-operator watches no pods that would wake it. Its controller
	// reconciles on any annotation change (AnnotationChangedPredicate in the For of
	// internal/controllers/cassandra/cassandradatacenter_controller.go), so changing this one
	// brings the next pass at once. The run removes it when it gives the datacenter back.
	ReconcileRequestedAnnotation = "cassbench.io/reconcile-requested"
	// RunLabel on child objects names the BenchmarkRun they belong to.
	RunLabel = "cassbench.io/run"
	// ComponentLabel on child objects says what they are: setup or writer.
	ComponentLabel = "cassbench.io/component"
	// ExperimentLabel on a BenchmarkRun names the experiment it is one run of: cassbench
	// history and gate put runs with the same value in one series (without it, runs whose
	// names differ only by their last dash-separated part).
	ExperimentLabel = "cassbench.io/experiment"

	// Finalizer restores and unlocks the datacenter before a run is deleted.
	Finalizer = "cassbench.io/restore-datacenter"
)

// Condition types.
const (
	// ConditionSucceeded is the top-level outcome; once set it never changes.
	ConditionSucceeded = "Succeeded"
	// ConditionDatacenterReady is True while the datacenter is locked, sized, tuned and ready.
	ConditionDatacenterReady = "DatacenterReady"
	// ConditionSchemaReady is True once the setup Job verified settings and created the schema.
	ConditionSchemaReady = "SchemaReady"
	// ConditionWritersComplete is True once every writer finished and reported.
	ConditionWritersComplete = "WritersComplete"
	// ConditionDatacenterRestored is True once the datacenter is back as it was and unlocked.
	ConditionDatacenterRestored = "DatacenterRestored"
	// ConditionTargetRateReached, on runs with a rate, is False when the writers achieved less
	// than 98% of it.
	ConditionTargetRateReached = "TargetRateReached"

	// kstatus conditions, derived from the others so that Flux, Argo CD and
	// `kubectl wait --for=condition=Ready` understand a run without knowing its kind.

	// ConditionReady is True only once the run succeeded.
	ConditionReady = "Ready"
	// ConditionReconciling is True while the run has work left, False once it is finished.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True once the run failed: nothing will make it succeed.
	ConditionStalled = "Stalled"

	// ConditionRegressed, on a succeeded run with spec.baselines, says whether a figure of the
	// run is a significant regression against its baselines (cassbench gate's test). Set once.
	ConditionRegressed = "Regressed"
)

// Reasons of ConditionRegressed.
const (
	// ReasonRegressed: at least one figure regressed; the message names each.
	ReasonRegressed = "Regressed"
	// ReasonNoRegression: no figure regressed.
	ReasonNoRegression = "NoRegression"
	// ReasonTooLittleHistory: fewer baselines succeeded before the run than it asks for
	// (status Unknown).
	ReasonTooLittleHistory = "TooLittleHistory"
	// ReasonBaselinesUnreadable: the baselines could not be listed or judged (status Unknown).
	ReasonBaselinesUnreadable = "BaselinesUnreadable"
)

// Reasons of ConditionTargetRateReached.
const (
	ReasonTargetRateReached    = "TargetRateReached"
	ReasonTargetRateNotReached = "TargetRateNotReached"
)

// Condition reasons.
const (
	ReasonDatacenterNotFound      = "DatacenterNotFound"
	ReasonDatacenterNotOptedIn    = "DatacenterNotOptedIn"
	ReasonNamespaceNotAllowed     = "NamespaceNotAllowed"
	ReasonDatacenterBusy          = "DatacenterBusy"
	ReasonDatacenterUpdating      = "DatacenterUpdating"
	ReasonDatacenterReady         = "DatacenterReady"
	ReasonPrepareDeadlineExceeded = "PrepareDeadlineExceeded"
	ReasonRunDeadlineExceeded     = "RunDeadlineExceeded"
	ReasonCheckingSettings        = "CheckingSettings"
	ReasonSettingsInvalid         = "SettingsInvalid"
	ReasonSetupRunning            = "SetupRunning"
	ReasonSetupSucceeded          = "SetupSucceeded"
	ReasonSetupFailed             = "SetupFailed"
	ReasonWritersRunning          = "WritersRunning"
	ReasonWritersSucceeded        = "WritersSucceeded"
	ReasonWriterFailed            = "WriterFailed"
	ReasonRestoring               = "Restoring"
	ReasonRestored                = "Restored"
	ReasonKeptChanges             = "KeptChanges"
	ReasonNothingToRestore        = "NothingToRestore"
	ReasonSucceeded               = "Succeeded"
	ReasonInvalidSpec             = "InvalidSpec"
	// ReasonDatacenterInvalid: cass-operator marked the datacenter Valid=False.
	ReasonDatacenterInvalid = "DatacenterInvalid"
	// ReasonDatacenterUnsuitable: the datacenter cannot take the run as it is (stopped, a
	// config secret, too few nodes for its racks or the replication factor, JVM options its
	// server version does not read); the run failed before touching it.
	ReasonDatacenterUnsuitable = "DatacenterUnsuitable"
	// ReasonDatacenterManagedByK8ssandra: a K8ssandraCluster manages the datacenter and the
	// run (or a sweep point) would change its size or config, which k8ssandra-operator writes
	// back; the run failed before touching it.
	ReasonDatacenterManagedByK8ssandra = "DatacenterManagedByK8ssandra"
	// ReasonDatacenterDrifted: someone else changed the datacenter while the run held it.
	ReasonDatacenterDrifted = "DatacenterDrifted"
	// ReasonRefused: the apiserver (validation, a webhook, a policy engine or RBAC) refused a
	// write the run needs; retrying cannot help.
	ReasonRefused = "Refused"
	// ReasonSettingNotAllowed: a run from another namespace than its datacenter's sets a
	// setting that only the datacenter's own namespace may (code loading, commands, JMX,
	// security, data directories).
	ReasonSettingNotAllowed = "SettingNotAllowed"
	// ReasonImageNotAllowed: the run names an image the manager is not allowed to run.
	ReasonImageNotAllowed = "ImageNotAllowed"
	// ReasonPodsNotStarting: a pod of the run's preflight, setup or writer Job did not start
	// within the manager's --pod-start-grace (its image cannot be pulled, a Secret or
	// ConfigMap it reads is missing), or never will (an invalid image name).
	ReasonPodsNotStarting = "PodsNotStarting"
	// ReasonStoppingJobs: the run's own Jobs are being stopped before the datacenter is given back.
	ReasonStoppingJobs = "StoppingJobs"
	// ReasonRestoreStuck: the original size could not be restored within the deadline.
	ReasonRestoreStuck = "RestoreStuck"
	// ReasonLockLost: someone removed the run's lock before the run could restore the datacenter.
	ReasonLockLost = "LockLost"

	// End reasons of a finished run's or sweep's conditions: no condition of a finished
	// object keeps a reason that says its stage is still under way.

	// ReasonStopped: the stage was under way when the run or sweep ended, and was stopped.
	ReasonStopped = "Stopped"
	// ReasonNotReached: the run or sweep ended before the stage began (or while it waited to
	// begin).
	ReasonNotReached = "NotReached"
)

// SystemKeyspace says whether a keyspace name is one of Cassandra's (or DataStax
// Enterprise's) own, which no run may create, write or drop: names starting with system or
// dse_, and solr_admin, in any case. It is the rule the CRD holds schema.keyspace to (the CEL
// rule on SchemaSpec.Keyspace), for names the CRD cannot see, such as the keyspace of a CQL
// table profile; a test of internal/admission holds the two to the same verdicts.
func SystemKeyspace(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "system") || strings.HasPrefix(n, "dse_") || n == "solr_admin"
}

// imageReference is the grammar of an image reference as the kubelet parses it
// (github.com/distribution/reference ParseNormalizedNamed, v0.6.0): [registry[:port]/]path
// [:tag][@digest], the path in lower case, the digest of an algorithm the kubelet knows. A
// bracketed registry is an IPv6 address, which the library takes as a registry only with a
// ':' or an upper-case letter in it. Compared with the library on 2 million random strings,
// the one difference is a path over 255 characters, which only the library refuses. The CEL
// rule on WritersSpec.Image holds the same expression; a test of internal/admission holds the
// two to the same verdicts.
var imageReference = regexp.MustCompile(`^(?:(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\[[a-fA-F0-9:]*[:A-F][a-fA-F0-9:]*\])(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[_.]|__|[-]+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[_.]|__|[-]+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@(?:sha256:[a-f0-9]{64}|sha384:[a-f0-9]{96}|sha512:[a-f0-9]{128}))?$`)

// ImageReference tells whether s is an image reference the kubelet can pull: the CRD's rule
// on spec.writers.image, for the images the manager's flags name.
func ImageReference(s string) bool {
	return imageReference.MatchString(s) && !imageID.MatchString(s)
}

// imageID is what the library refuses as a repository name: an image ID, 64 hex digits.
var imageID = regexp.MustCompile(`^[a-f0-9]{64}$`)

// ImagePrefix tells whether a prefix (an --allowed-images entry without its trailing *) can
// begin an image reference: some image the kubelet can pull starts with it.
func ImagePrefix(prefix string) bool {
	zeros := strings.Repeat("0", 128)
	rests := []string{"", "x", "/x", ":1", "x:1", "x@sha256:" + zeros[:64], "@sha256:" + zeros[:64], "sha256:" + zeros[:64]}
	// A prefix that ends inside a digest completes with hex digits of its algorithm's length.
	for n := 1; n <= len(zeros); n++ {
		rests = append(rests, zeros[:n])
	}
	for _, rest := range rests {
		if ImageReference(prefix + rest) {
			return true
		}
	}
	return prefix == ""
}
