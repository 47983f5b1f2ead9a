// Package jobs builds the setup and writer Jobs of a BenchmarkRun and reads what their pods
// reported. Builders are pure: no client, no context.
package jobs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/podenv"
)

// Components of a run, as in the ComponentLabel.
const (
	ComponentPreflight = "preflight"
	ComponentSetup     = "setup"
	ComponentWriter    = "writer"
)

// nonRootUID is the user the cassbench image runs as.
const nonRootUID = 65532

// Target is where and as whom the pods connect: what the controller resolved.
type Target struct {
	Image string
	// Host is the CQL service's DNS name.
	Host string
	Port int32
	// CredentialsSecret holds keys username and password in the run's namespace.
	CredentialsSecret string
	// CassandraDatacenter is the Cassandra datacenter name (not the Kubernetes object name).
	CassandraDatacenter string
	// Nodes is the datacenter size the run expects.
	Nodes int32
	// AllowDropKeyspaces is the datacenter's AllowDropKeyspacesAnnotation, for setup.
	AllowDropKeyspaces string
	// ClearSnapshots is how setup clears the snapshots a recreating drop leaves
	// (podenv.ClearSnapshotsManagementAPI, or empty for none).
	ClearSnapshots string
	// Placement is, for a run across several datacenters, where each datacenter's writers
	// connect; empty for a run of one.
	Placement []podenv.PlacementEntry
}

// Name is a child object's deterministic name: the run's name and a suffix, shortened with a
// hash when it would not fit in a label value.
func Name(run string, suffix string) string {
	const limit = 63
	name := run + "-" + suffix
	if len(name) <= limit {
		return name
	}
	sum := sha256.Sum256([]byte(run))
	h := hex.EncodeToString(sum[:])[:8]
	keep := limit - len(suffix) - len(h) - 2
	return run[:keep] + "-" + h + "-" + suffix
}

// PreflightName, SetupName and WriterName are the names of a run's Jobs.
func PreflightName(run *cbv1.BenchmarkRun) string { return Name(run.Name, ComponentPreflight) }
func SetupName(run *cbv1.BenchmarkRun) string     { return Name(run.Name, ComponentSetup) }
func WriterName(run *cbv1.BenchmarkRun) string    { return Name(run.Name, ComponentWriter) }

// Setup builds the Job that verifies settings and creates the schema. activeDeadline bounds
// it (seconds; 0 leaves it unbounded) so that a hung setup stops on its own.
func Setup(run *cbv1.BenchmarkRun, t Target, activeDeadline int64) (*batchv1.Job, error) {
	return setupJob(run, t, SetupName(run), ComponentSetup, t.Nodes, activeDeadline)
}

// Preflight builds the Job that checks, before the datacenter is changed, that every
// requested cassandra-yaml setting exists on the nodes that are up. It waits for no node
// count: the datacenter has not been resized yet.
func Preflight(run *cbv1.BenchmarkRun, t Target, activeDeadline int64) (*batchv1.Job, error) {
	return setupJob(run, t, PreflightName(run), ComponentPreflight, 0, activeDeadline, "--preflight")
}

func setupJob(run *cbv1.BenchmarkRun, t Target, name, component string, nodes int32, activeDeadline int64, args ...string) (*batchv1.Job, error) {
	env, err := commonEnv(run, t)
	if err != nil {
		return nil, err
	}
	env = append(env, corev1.EnvVar{Name: podenv.ExpectNodes, Value: strconv.Itoa(int(nodes))})
	if t.AllowDropKeyspaces != "" {
		env = append(env, corev1.EnvVar{Name: podenv.AllowDropKeyspaces, Value: t.AllowDropKeyspaces})
	}
	if t.ClearSnapshots != "" {
		env = append(env, corev1.EnvVar{Name: podenv.ClearSnapshots, Value: t.ClearSnapshots})
	}
	job := baseJob(run, name, component)
	job.Spec.BackoffLimit = ptr.To[int32](0)
	if activeDeadline > 0 {
		job.Spec.ActiveDeadlineSeconds = ptr.To(activeDeadline)
	}
	pod := &job.Spec.Template.Spec
	c := container(run, t, component, env, setupCommand...)
	c.Args = append(c.Args, args...)
	pod.Containers = []corev1.Container{c}
	pod.Containers[0].Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
	}
	return job, nil
}

// Writers builds the Indexed Job of N writers. Each index fails on its own (no retries: a
// retried writer would measure a different window), so one failed writer does not stop the
// others and every result that exists can be kept.
func Writers(run *cbv1.BenchmarkRun, t Target, activeDeadline int64) (*batchv1.Job, error) {
	env, err := commonEnv(run, t)
	if err != nil {
		return nil, err
	}
	n := run.Spec.Writers.Replicas
	env = append(env, corev1.EnvVar{Name: podenv.Writers, Value: strconv.Itoa(int(n))})
	if len(t.Placement) > 0 {
		env = append(env, corev1.EnvVar{Name: podenv.Placement, Value: podenv.FormatPlacement(t.Placement)})
	}
	job := baseJob(run, WriterName(run), ComponentWriter)
	job.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
	job.Spec.Completions = ptr.To(n)
	job.Spec.Parallelism = ptr.To(n)
	job.Spec.BackoffLimitPerIndex = ptr.To[int32](0)
	job.Spec.MaxFailedIndexes = ptr.To(n)
	if activeDeadline > 0 {
		job.Spec.ActiveDeadlineSeconds = ptr.To(activeDeadline)
	}
	w := run.Spec.Writers
	pod := &job.Spec.Template.Spec
	if procs, ok := writerProcs(w.Resources); ok {
		env = append(env, corev1.EnvVar{Name: "GOMAXPROCS", Value: strconv.Itoa(procs)})
	}
	c := container(run, t, "writer", env, writerCommand...)
	c.Resources = w.Resources
	c.Ports = []corev1.ContainerPort{{Name: "metrics", ContainerPort: podenv.MetricsPort, Protocol: corev1.ProtocolTCP}}
	mountCSV(run, pod, &c)
	pod.Containers = []corev1.Container{c}
	pod.NodeSelector = w.NodeSelector
	pod.Tolerations = w.Tolerations
	pod.Affinity = w.Affinity
	return job, nil
}

// writerProcs is how many threads a writer with these resources runs Go code on: its CPU limit
// rounded down, at least one. Go's own default rounds a limit up and runs at least two, which
// suits a server; a writer is a client bound by I/O, and on one CPU two threads hand every
// request from one to the other (three writer benchmark runs measured 15 to 27% more writes per
// CPU-second with one). Without a CPU limit Go's default stands.
func writerProcs(r corev1.ResourceRequirements) (int, bool) {
	limit, ok := r.Limits[corev1.ResourceCPU]
	if !ok || limit.IsZero() {
		return 0, false
	}
	return max(1, int(limit.MilliValue()/1000)), true
}

func baseJob(run *cbv1.BenchmarkRun, name, component string) *batchv1.Job {
	labels := map[string]string{
		cbv1.RunLabel:                  run.Name,
		cbv1.ComponentLabel:            component,
		"app.kubernetes.io/name":       "cassbench",
		"app.kubernetes.io/component":  component,
		"app.kubernetes.io/managed-by": "cassbench",
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: run.Namespace,
			Labels:    labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(run,
				cbv1.GroupVersion.WithKind("BenchmarkRun"))},
		},
		Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{
				// A map of its own: a label added to the Job later must not reach its pods.
				ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
				Spec: corev1.PodSpec{
					RestartPolicy:                corev1.RestartPolicyNever,
					AutomountServiceAccountToken: ptr.To(false),
					EnableServiceLinks:           ptr.To(false),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						RunAsUser:      ptr.To[int64](nonRootUID),
						RunAsGroup:     ptr.To[int64](nonRootUID),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Volumes: []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				},
			},
		},
	}
}

// The commands of the pods, binaries of the image (Dockerfile). Writer pods run the small
// cassbench-writer, which links none of offline admission: the spec in their environment was
// admitted by the API server, and users size writer fleets by memory.
var (
	setupCommand  = []string{"/cassbench", "setup"}
	writerCommand = []string{"/cassbench-writer"}
)

func container(run *cbv1.BenchmarkRun, t Target, name string, env []corev1.EnvVar, command ...string) corev1.Container {
	var args []string
	if len(command) > 1 {
		args = slices.Clone(command[1:])
	}
	return corev1.Container{
		Name:                     name,
		Image:                    t.Image,
		ImagePullPolicy:          run.Spec.Writers.ImagePullPolicy,
		Command:                  slices.Clone(command[:1]),
		Args:                     args,
		Env:                      env,
		TerminationMessagePath:   podenv.TerminationLog,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		VolumeMounts:             []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			ReadOnlyRootFilesystem:   ptr.To(true),
			RunAsNonRoot:             ptr.To(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	}
}

func commonEnv(run *cbv1.BenchmarkRun, t Target) ([]corev1.EnvVar, error) {
	spec, err := json.Marshal(run.Spec)
	if err != nil {
		return nil, fmt.Errorf("encoding the run's spec for its pods: %w", err)
	}
	env := []corev1.EnvVar{
		{Name: podenv.Spec, Value: string(spec)},
		{Name: podenv.RunID, Value: string(run.UID)},
		{Name: podenv.Hosts, Value: t.Host},
		{Name: podenv.Port, Value: strconv.Itoa(int(t.Port))},
		{Name: podenv.LocalDatacenter, Value: t.CassandraDatacenter},
	}
	if t.CredentialsSecret != "" {
		env = append(env,
			secretEnv(podenv.Username, t.CredentialsSecret, "username"),
			secretEnv(podenv.Password, t.CredentialsSecret, "password"))
	}
	return env, nil
}

func secretEnv(name, secret, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: secret},
		Key:                  key,
	}}}
}
