// Package builders makes test objects with small fluent builders, so a test states only the
// fields it is about and everything else stays valid. Each builder embeds its object, in the
// manner of kueue's wrappers (pkg/util/testing/wrappers.go): Obj returns it, Clone a copy to
// vary, and presets put it in a state a test starts from (Recorded, Patched, Deleting; a
// datacenter's Ready and LockedBy; a Job's Complete and Failed).
package builders

import (
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// BenchmarkRunBuilder builds a BenchmarkRun. Each method returns the builder; Obj returns the
// object.
type BenchmarkRunBuilder struct {
	cbv1.BenchmarkRun
}

// MakeBenchmarkRun starts a run that the CRD admits as it is: datacenter dc1 in the same
// namespace, one writer, a 10 s window; the CRD defaults fill in the rest (key-value table).
func MakeBenchmarkRun(name, namespace string) *BenchmarkRunBuilder {
	return &BenchmarkRunBuilder{cbv1.BenchmarkRun{
		TypeMeta: metav1.TypeMeta{
			APIVersion: cbv1.GroupVersion.String(),
			Kind:       "BenchmarkRun",
		},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: cbv1.BenchmarkRunSpec{
			DatacenterRef: &cbv1.DatacenterReference{Name: "dc1"},
			Writers: cbv1.WritersSpec{
				Replicas: 1,
				Duration: &metav1.Duration{Duration: 10 * time.Second},
			},
		},
	}}
}

// Obj returns the built object; later builder calls keep changing the same object.
func (b *BenchmarkRunBuilder) Obj() *cbv1.BenchmarkRun { return &b.BenchmarkRun }

// Clone returns a copy to change without changing this one.
func (b *BenchmarkRunBuilder) Clone() *BenchmarkRunBuilder {
	return &BenchmarkRunBuilder{*b.DeepCopy()}
}

// Label sets a label.
func (b *BenchmarkRunBuilder) Label(key, value string) *BenchmarkRunBuilder {
	if b.Labels == nil {
		b.Labels = map[string]string{}
	}
	b.Labels[key] = value
	return b
}

// Datacenter names the CassandraDatacenter.
func (b *BenchmarkRunBuilder) Datacenter(name string) *BenchmarkRunBuilder {
	b.Spec.DatacenterRef.Name = name
	return b
}

// DatacenterNamespace points the run at a datacenter in another namespace.
func (b *BenchmarkRunBuilder) DatacenterNamespace(namespace string) *BenchmarkRunBuilder {
	b.Spec.DatacenterRef.Namespace = namespace
	return b
}

func (b *BenchmarkRunBuilder) tuning() *cbv1.DatacenterTuning {
	if b.Spec.Datacenter == nil {
		b.Spec.Datacenter = &cbv1.DatacenterTuning{}
	}
	return b.Spec.Datacenter
}

func (b *BenchmarkRunBuilder) config() *cbv1.DatacenterConfig {
	t := b.tuning()
	if t.Config == nil {
		t.Config = &cbv1.DatacenterConfig{}
	}
	return t.Config
}

// Size sets the number of Cassandra nodes during the run.
func (b *BenchmarkRunBuilder) Size(nodes int32) *BenchmarkRunBuilder {
	b.tuning().Size = &nodes
	return b
}

// KeepChanges leaves the datacenter tuned after the run.
func (b *BenchmarkRunBuilder) KeepChanges() *BenchmarkRunBuilder {
	b.tuning().KeepChanges = true
	return b
}

// CassandraYaml sets spec.datacenter.config.cassandra-yaml.
func (b *BenchmarkRunBuilder) CassandraYaml(settings map[string]any) *BenchmarkRunBuilder {
	b.config().CassandraYaml = raw(settings)
	return b
}

// JvmOptions sets spec.datacenter.config.jvm-server-options.
func (b *BenchmarkRunBuilder) JvmOptions(options map[string]any) *BenchmarkRunBuilder {
	b.config().JvmServerOptions = raw(options)
	return b
}

// Jvm17Options sets spec.datacenter.config.jvm17-server-options.
func (b *BenchmarkRunBuilder) Jvm17Options(options map[string]any) *BenchmarkRunBuilder {
	b.config().Jvm17ServerOptions = raw(options)
	return b
}

// Writers sets the number of writer pods.
func (b *BenchmarkRunBuilder) Writers(replicas int32) *BenchmarkRunBuilder {
	b.Spec.Writers.Replicas = replicas
	return b
}

// Concurrency sets the requests each writer keeps in flight.
func (b *BenchmarkRunBuilder) Concurrency(n int32) *BenchmarkRunBuilder {
	b.Spec.Writers.Concurrency = n
	return b
}

// Rate sets the total operations per second across writers (open loop).
func (b *BenchmarkRunBuilder) Rate(opsPerSecond int64) *BenchmarkRunBuilder {
	b.Spec.Writers.Rate = &opsPerSecond
	return b
}

// Duration bounds the measured window by time; it replaces an Operations bound because the
// CRD takes exactly one of the two.
func (b *BenchmarkRunBuilder) Duration(d time.Duration) *BenchmarkRunBuilder {
	b.Spec.Writers.Duration = &metav1.Duration{Duration: d}
	b.Spec.Writers.Operations = nil
	return b
}

// Operations bounds the measured window by count; it replaces a Duration bound.
func (b *BenchmarkRunBuilder) Operations(n int64) *BenchmarkRunBuilder {
	b.Spec.Writers.Operations = &n
	b.Spec.Writers.Duration = nil
	return b
}

// Warmup sets the unmeasured load before the window.
func (b *BenchmarkRunBuilder) Warmup(d time.Duration) *BenchmarkRunBuilder {
	b.Spec.Writers.Warmup = &metav1.Duration{Duration: d}
	return b
}

// RequestTimeout sets the client-side timeout of one request.
func (b *BenchmarkRunBuilder) RequestTimeout(d time.Duration) *BenchmarkRunBuilder {
	b.Spec.Writers.RequestTimeout = &metav1.Duration{Duration: d}
	return b
}

// Image sets the writer and setup image.
func (b *BenchmarkRunBuilder) Image(image string) *BenchmarkRunBuilder {
	b.Spec.Writers.Image = image
	return b
}

// Keyspace sets the benchmark keyspace.
func (b *BenchmarkRunBuilder) Keyspace(name string) *BenchmarkRunBuilder {
	b.Spec.Schema.Keyspace = name
	return b
}

// ReplicationFactor sets the keyspace's replication factor.
func (b *BenchmarkRunBuilder) ReplicationFactor(rf int32) *BenchmarkRunBuilder {
	b.Spec.Schema.Replication.Factor = rf
	return b
}

// Profile selects a built-in table; it replaces a CQL table.
func (b *BenchmarkRunBuilder) Profile(p cbv1.TableProfile) *BenchmarkRunBuilder {
	b.Spec.Schema.Table = cbv1.TableSpec{Profile: p}
	return b
}

// CQL sets the table as a CREATE TABLE statement; it replaces a profile.
func (b *BenchmarkRunBuilder) CQL(statement string) *BenchmarkRunBuilder {
	b.Spec.Schema.Table = cbv1.TableSpec{CQL: statement}
	return b
}

// workload returns the workload, giving it the CRD's default mix first: once any workload
// field is set, the client sends writeRatio and readRatio as they are, so zero would mean
// "no operations" rather than "use the default".
func (b *BenchmarkRunBuilder) workload() *cbv1.WorkloadSpec {
	w := &b.Spec.Workload
	if w.WriteRatio == 0 && w.ReadRatio == 0 {
		w.WriteRatio = 1
	}
	return w
}

// Mix sets the weights of writes and reads.
func (b *BenchmarkRunBuilder) Mix(writes, reads int32) *BenchmarkRunBuilder {
	w := b.workload()
	w.WriteRatio, w.ReadRatio = writes, reads
	return b
}

// WriteConsistency sets the consistency level of writes.
func (b *BenchmarkRunBuilder) WriteConsistency(cl cbv1.ConsistencyLevel) *BenchmarkRunBuilder {
	b.workload().WriteConsistency = cl
	return b
}

// ReadConsistency sets the consistency level of reads.
func (b *BenchmarkRunBuilder) ReadConsistency(cl cbv1.ConsistencyLevel) *BenchmarkRunBuilder {
	b.workload().ReadConsistency = cl
	return b
}

// TTL sets the TTL of each write.
func (b *BenchmarkRunBuilder) TTL(seconds int32) *BenchmarkRunBuilder {
	b.workload().TTLSeconds = seconds
	return b
}

// raw encodes a free-form section. Test inputs are plain maps, so an encoding error is a bug
// in the test itself and panics at the line that built it.
func raw(v map[string]any) *runtime.RawExtension {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("builders: encoding %v: %v", v, err))
	}
	return &runtime.RawExtension{Raw: data}
}

// The presets below put a run in a state of its lifecycle, as a pass of the controller would
// find it: decide's table tests start from them.

// Created sets the creation time, UID and generation the apiserver would have set.
func (b *BenchmarkRunBuilder) Created(at time.Time, uid string, generation int64) *BenchmarkRunBuilder {
	b.CreationTimestamp, b.ObjectMeta.UID, b.Generation = metav1.NewTime(at), types.UID(uid), generation
	return b
}

// Finalizer adds the run's finalizer, as the controller does before it touches the datacenter.
func (b *BenchmarkRunBuilder) Finalizer() *BenchmarkRunBuilder {
	b.Finalizers = append(b.Finalizers, cbv1.Finalizer)
	return b
}

// Recorded: the run took its datacenter at start and recorded its size and config.
func (b *BenchmarkRunBuilder) Recorded(start time.Time, size int32, config string) *BenchmarkRunBuilder {
	t := metav1.NewTime(start)
	b.Status.StartTime = &t
	b.Status.Datacenter = &cbv1.DatacenterStatus{HeldDatacenter: cbv1.HeldDatacenter{Name: b.Spec.DatacenterRef.Name,
		Namespace: b.Namespace, OriginalSize: &size}, Size: size}
	if config != "" {
		b.Status.Datacenter.OriginalConfig = &runtime.RawExtension{Raw: []byte(config)}
	}
	return b
}

// Patched: after Recorded, the run saw its datacenter at its target size at generation.
func (b *BenchmarkRunBuilder) Patched(generation int64, size int32) *BenchmarkRunBuilder {
	st := b.Status.Datacenter
	st.PatchedGeneration, st.Size, st.Changed = generation, size, true
	return b
}

// Condition sets a status condition that changed at the given time.
func (b *BenchmarkRunBuilder) Condition(t string, status metav1.ConditionStatus, reason string, at time.Time) *BenchmarkRunBuilder {
	meta.SetStatusCondition(&b.Status.Conditions, metav1.Condition{Type: t, Status: status, Reason: reason,
		Message: "m", LastTransitionTime: metav1.NewTime(at)})
	return b
}

// Deleting marks the run deleted at the given time.
func (b *BenchmarkRunBuilder) Deleting(at time.Time) *BenchmarkRunBuilder {
	t := metav1.NewTime(at)
	b.DeletionTimestamp = &t
	return b
}

// Apply changes what no other method does, for a case of its own.
func (b *BenchmarkRunBuilder) Apply(f func(*cbv1.BenchmarkRun)) *BenchmarkRunBuilder {
	f(b.Obj())
	return b
}

// Datacenters makes the run one across several datacenters of a cluster, in place of its
// datacenterRef.
func (b *BenchmarkRunBuilder) Datacenters(dcs ...cbv1.RunDatacenter) *BenchmarkRunBuilder {
	b.Spec.DatacenterRef = nil
	b.Spec.Datacenters = dcs
	return b
}
