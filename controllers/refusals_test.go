package controllers_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/conditions"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// Runs that something refuses (an admission policy, a webhook, the CRD, the run's own
// datacenter): each fails at once, says why, and leaves the datacenter as it found it.

// denyInNamespace installs a ValidatingAdmissionPolicy, as a policy engine or webhook would,
// that refuses creates and updates of one resource in one namespace unless expression holds,
// and waits until the apiserver enforces it (probe must then be refused).
func denyInNamespace(t *testing.T, ns, group, resource, expression, message string, probe func() error) {
	t.Helper()
	ctx := context.Background()
	name := "deny-" + ns
	policy := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
					Rule:       admissionv1.Rule{APIGroups: []string{group}, APIVersions: []string{"*"}, Resources: []string{resource}},
				},
			}}},
			Validations: []admissionv1.Validation{{Expression: expression, Message: message}},
		},
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
			MatchResources: &admissionv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{corev1.LabelMetadataName: ns}}},
		},
	}
	pl.Create(t, policy, binding)
	t.Cleanup(func() {
		_ = env.Client.Delete(ctx, binding)
		_ = env.Client.Delete(ctx, policy)
	})
	play.Eventually(t, 30*time.Second, "waiting for the policy to be enforced", func() error {
		if err := probe(); err == nil || !strings.Contains(err.Error(), message) {
			return fmt.Errorf("probe not refused yet: %w", err)
		}
		return nil
	})
}

// A rule on Jobs (Kyverno, Gatekeeper, a ValidatingAdmissionPolicy) refuses the writers: the
// run fails within seconds naming the apiserver's message, and gives the datacenter back.
func TestRefusedJobFailsTheRunAndGivesTheDatacenterBack(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 3)
	const msg = "writer Jobs are not allowed in this namespace"
	denyInNamespace(t, ns, "batch", "jobs", "!has(object.metadata.labels) || !('cassbench.io/component' in object.metadata.labels) || object.metadata.labels['cassbench.io/component'] != 'writer'", msg,
		func() error {
			probe := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns, Labels: map[string]string{cbv1.ComponentLabel: "writer"}},
				Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "c", Image: "x"}}}}}}
			return env.Client.Create(context.Background(), probe, client.DryRunAll)
		})
	startManager(t, managerConfig(t, ns))
	gen := pl.Datacenter(t, dc).Generation
	run := builders.MakeBenchmarkRun("refused", ns).Datacenter("dc1").Size(4).Writers(2).Duration(time.Minute).Obj()
	pl.Create(t, run)
	pl.OperatorApplies(t, dc, gen)
	setup := pl.WaitJob(t, ns, "refused-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{Nodes: 4})}})
	pl.FinishJob(t, setup, []int32{0}, nil)

	start := time.Now()
	got := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonRefused)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the refusal took %s to fail the run", took)
	}
	if c := findCond(got, cbv1.ConditionSucceeded); !strings.Contains(c.Message, msg) || !strings.Contains(c.Message, "refused-writer") {
		t.Errorf("the failure does not name the Job and the apiserver's message: %s", c.Message)
	}
	if c := findCond(got, cbv1.ConditionStalled); c.Status != metav1.ConditionTrue {
		t.Errorf("Stalled %s, want True for a failed run", c.Status)
	}
	if c := findCond(got, cbv1.ConditionReady); c.Status != metav1.ConditionFalse {
		t.Errorf("Ready %s", c.Status)
	}
	if status, msg := argoHealth(t, got); status != "Degraded" || !strings.Contains(msg, msg) {
		t.Errorf("Argo CD health %s: %s, want Degraded", status, msg)
	}
	d := pl.Datacenter(t, dc)
	if d.Spec.Size != 3 || d.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("not given back: size %d lock %q", d.Spec.Size, d.Annotations[cbv1.LockAnnotation])
	}
}

// A webhook that refuses the datacenter's patch (as cass-operator's refuses a size change
// while it scales, or JVM sections on 3.11) fails the run at once and releases the lock.
func TestRefusedDatacenterPatchFailsTheRunAndReleasesTheLock(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 3)
	const msg = "size changes are frozen"
	denyInNamespace(t, ns, "cassandra.datastax.com", "cassandradatacenters", "object.spec.size == oldObject.spec.size", msg, func() error {
		probe := pl.Datacenter(t, dc)
		probe.Spec.Size = 9
		return env.Client.Update(context.Background(), probe, client.DryRunAll)
	})
	startManager(t, managerConfig(t, ns))
	run := builders.MakeBenchmarkRun("frozen", ns).Datacenter("dc1").Size(5).Writers(1).Duration(time.Second).Obj()
	pl.Create(t, run)
	got := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonRefused)
	if c := findCond(got, cbv1.ConditionSucceeded); !strings.Contains(c.Message, msg) {
		t.Errorf("the failure does not carry the apiserver's message: %s", c.Message)
	}
	d := pl.Datacenter(t, dc)
	if d.Spec.Size != 3 || d.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("not given back: size %d lock %q", d.Spec.Size, d.Annotations[cbv1.LockAnnotation])
	}
}

// Refusals that need the datacenter are made before it is touched.
func TestUnsuitableRunFailsBeforeTheDatacenterIsTouched(t *testing.T) {
	ns := env.Namespace(t)
	dc := builders.MakeDatacenter("dc1", ns).Cluster("c1").Size(3).Config(originalConfig).AllowBenchmarks("true").Obj()
	dc.Spec.Stopped = true
	pl.Create(t, dc)
	pl.Settle(t, dc)
	before := pl.Datacenter(t, dc)
	startManager(t, managerConfig(t, ns))
	run := builders.MakeBenchmarkRun("stopped", ns).Datacenter("dc1").Size(4).Writers(1).Duration(time.Second).Obj()
	pl.Create(t, run)
	got := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonDatacenterUnsuitable)
	if c := findCond(got, cbv1.ConditionSucceeded); !strings.Contains(c.Message, "stopped") {
		t.Errorf("message %s", c.Message)
	}
	image := builders.MakeBenchmarkRun("foreign-image", ns).Datacenter("dc1").Image("evil.example/steal:1").Writers(1).Duration(time.Second).Obj()
	pl.Create(t, image)
	pl.WaitCondition(t, image, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonImageNotAllowed)
	after := pl.Datacenter(t, dc)
	if after.Generation != before.Generation || after.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("datacenter touched: generation %d -> %d, lock %q", before.Generation, after.Generation, after.Annotations[cbv1.LockAnnotation])
	}
}

// The superuser's credentials go only to the datacenter's own service: a run naming another
// host must bring its own credentials, and the apiserver refuses it otherwise.
func TestServiceWithoutCredentialsIsRefusedAtAdmission(t *testing.T) {
	ns := env.Namespace(t)
	run := builders.MakeBenchmarkRun("exfil", ns).Datacenter("dc1").Writers(1).Duration(time.Second).Obj()
	run.Spec.Connection = &cbv1.ConnectionSpec{Service: "attacker.example.com"}
	err := env.Client.Create(context.Background(), run)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "credentialsSecretRef") {
		t.Fatalf("created or refused for another reason: %v", err)
	}
	run.Spec.Connection.CredentialsSecretRef = &corev1.LocalObjectReference{Name: "mine"}
	if err := env.Client.Create(context.Background(), run, client.DryRunAll); err != nil {
		t.Errorf("refused with its own credentials: %v", err)
	}
	bad := builders.MakeBenchmarkRun("pull", ns).Datacenter("dc1").Writers(1).Duration(time.Second).Obj()
	bad.Spec.Writers.ImagePullPolicy = "always"
	if err := env.Client.Create(context.Background(), bad, client.DryRunAll); !apierrors.IsInvalid(err) {
		t.Errorf("imagePullPolicy always admitted: %v", err)
	}
}

// A run author who may create BenchmarkRuns but not read secrets cannot get the datacenter's
// superuser credentials sent anywhere: not to a host of their choosing, not through the
// superuser secret named as their own, not into an image of their choosing.
func TestRunAuthorCannotExfiltrateTheSuperuserCredentials(t *testing.T) {
	ns := env.Namespace(t)
	readyDatacenter(t, ns, "dc1", 1)
	ctx := context.Background()
	superuser := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "c1-superuser", Namespace: ns},
		StringData: map[string]string{"username": "admin", "password": "s3cret"}}
	pl.Create(t, superuser)
	role := filepath.Join(t.TempDir(), "author.yaml")
	if err := os.WriteFile(role, []byte(`apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: run-author
rules:
- apiGroups: [cassbench.io]
  resources: [benchmarkruns]
  verbs: [create, get, list, watch]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	author, err := client.New(env.ServiceAccountConfig(t, ns, "author", role), client.Options{Scheme: env.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := author.Get(ctx, client.ObjectKeyFromObject(superuser), &corev1.Secret{}); !apierrors.IsForbidden(err) {
		t.Fatalf("the author can read the superuser secret: %v", err)
	}
	startManager(t, managerConfig(t, ns))

	toAttacker := builders.MakeBenchmarkRun("to-attacker", ns).Datacenter("dc1").Writers(1).Duration(time.Second).Obj()
	toAttacker.Spec.Connection = &cbv1.ConnectionSpec{Service: "collector.attacker.example"}
	if err := author.Create(ctx, toAttacker); !apierrors.IsInvalid(err) {
		t.Errorf("a run sending the superuser's credentials to another host was admitted: %v", err)
	}
	named := builders.MakeBenchmarkRun("named-secret", ns).Datacenter("dc1").Writers(1).Duration(time.Second).Obj()
	named.Spec.Connection = &cbv1.ConnectionSpec{Service: "collector.attacker.example",
		CredentialsSecretRef: &corev1.LocalObjectReference{Name: "c1-superuser"}}
	if err := author.Create(ctx, named); err != nil {
		t.Fatal(err)
	}
	image := builders.MakeBenchmarkRun("own-image", ns).Datacenter("dc1").Image("attacker.example/dump-env:1").Writers(1).Duration(time.Second).Obj()
	if err := author.Create(ctx, image); err != nil {
		t.Fatal(err)
	}
	got := pl.WaitCondition(t, named, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonInvalidSpec)
	if c := findCond(got, cbv1.ConditionSucceeded); !strings.Contains(c.Message, "superuser secret") {
		t.Errorf("message %s", c.Message)
	}
	pl.WaitCondition(t, image, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonImageNotAllowed)
	if n := pl.CountJobs(t, ns); n != 0 {
		t.Errorf("%d Jobs were created: their pods would have received the credentials", n)
	}
}

// A toleration the CRD does not check but the Job's validation refuses (a value with operator
// Exists): the run fails naming the apiserver's message instead of retrying with the
// datacenter locked, and no stage of the finished run still says it is under way (the pass
// that saw setup finish was the one refused, so its SchemaReady was not stored).
func TestARefusedWriterJobFailsTheRunWithinSeconds(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))
	run := builders.MakeBenchmarkRun("refused", ns).Datacenter("dc1").Writers(1).Duration(time.Second).Obj()
	run.Spec.Writers.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists, Value: "bench"}}
	pl.Create(t, run)
	setup := pl.WaitJob(t, ns, "refused-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{Nodes: 1})}})
	pl.FinishJob(t, setup, []int32{0}, nil)
	start := time.Now()
	got := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonRefused)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s", took)
	}
	if c := findCond(got, cbv1.ConditionSucceeded); !strings.Contains(c.Message, "value must be empty when `operator` is 'Exists'") {
		t.Errorf("the failure does not carry the apiserver's message: %s", c.Message)
	}
	for _, c := range got.Status.Conditions {
		if conditions.InProgress(c.Reason) {
			t.Errorf("the finished run keeps %s=%s/%s: %s", c.Type, c.Status, c.Reason, c.Message)
		}
	}
	if d := pl.Datacenter(t, dc); d.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("still locked by %s", d.Annotations[cbv1.LockAnnotation])
	}
}
