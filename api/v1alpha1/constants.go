package v1alpha1

// Annotations and labels.
const (
	// AllowBenchmarksAnnotation on a CassandraDatacenter opts it in: "true" admits runs from the
	// datacenter's own namespace; a comma-separated list of namespaces admits runs from those
	// (and "*" from any).
	AllowBenchmarksAnnotation = "cassbench.io/allow-benchmarks"
	// LockAnnotation on a CassandraDatacenter names the run that holds it, as namespace/name.
	LockAnnotation = "cassbench.io/locked-by"
	// RunLabel on child objects names the BenchmarkRun they belong to.
	RunLabel = "cassbench.io/run"
	// ComponentLabel on child objects says what they are: setup or writer.
	ComponentLabel = "cassbench.io/component"

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
)

// Reasons of ConditionTargetRateReached.
const (
	ReasonTargetRateReached    = "TargetRateReached"
	ReasonTargetRateNotReached = "TargetRateNotReached"
)

// Condition reasons.
const (
	ReasonDatacenterNotFound     = "DatacenterNotFound"
	ReasonNotAllowed             = "DatacenterNotOptedIn"
	ReasonNamespaceNotAllowed    = "NamespaceNotAllowed"
	ReasonDatacenterBusy         = "DatacenterBusy"
	ReasonDatacenterUpdating     = "DatacenterUpdating"
	ReasonDatacenterReady        = "DatacenterReady"
	ReasonPrepareDeadlineExpired = "PrepareDeadlineExceeded"
	ReasonRunDeadlineExpired     = "RunDeadlineExceeded"
	ReasonCheckingSettings       = "CheckingSettings"
	ReasonSettingsInvalid        = "SettingsInvalid"
	ReasonSetupRunning           = "SetupRunning"
	ReasonSetupSucceeded         = "SetupSucceeded"
	ReasonSetupFailed            = "SetupFailed"
	ReasonWritersRunning         = "WritersRunning"
	ReasonWritersSucceeded       = "WritersSucceeded"
	ReasonWriterFailed           = "WriterFailed"
	ReasonRestoring              = "Restoring"
	ReasonRestored               = "Restored"
	ReasonKeptChanges            = "KeptChanges"
	ReasonNothingToRestore       = "NothingToRestore"
	ReasonSucceeded              = "Succeeded"
	ReasonFailed                 = "Failed"
	ReasonDeleted                = "Deleted"
	ReasonInvalidSpec            = "InvalidSpec"
)
