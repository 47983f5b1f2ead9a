package local

import (
	"context"
	"strings"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// cass-operator's validating webhook judges every datacenter write cassbench sends, the lock
// included, against the whole datacenter as it would be after the write
// (ValidateSingleDatacenter in internal/webhooks/cassandra/v1beta1 at v1.31.0). A datacenter
// that got a value the webhook refuses while the webhook was not installed — here the
// annotation cassandra.datastax.com/autoupdate-spec set to "true", where it takes "once" or
// "always" — refuses every later write. cassbench's own checks hold back the writes the
// webhook refuses for what they change (a size change while cass-operator scales, JVM
// sections of another version), so this is the refusal a run meets: it fails Refused with the
// webhook's message and leaves the datacenter as it found it, unlocked.
func TestWebhookRefusalFailsTheRunWithItsMessage(t *testing.T) {
	const name = "webhook-refusal"
	env, ctx := scenario(t, name)
	withoutWebhook(ctx, t, env, func() {
		setDatacenterAnnotation(ctx, t, env, cassdcapi.UpdateAllowedAnnotation, "true")
	})
	t.Cleanup(func() {
		// The webhook admits taking the value away: it judges the datacenter as written.
		setDatacenterAnnotation(context.Background(), t, env, cassdcapi.UpdateAllowedAnnotation, "")
	})
	before := &cassdcapi.CassandraDatacenter{}
	if err := env.Client.Get(ctx, env.DatacenterKey(), before); err != nil {
		t.Fatal(err)
	}

	run := newRun(env, name).CassandraYaml(map[string]any{"concurrent_writes": 64}).Writers(1).Obj()
	create(ctx, t, env, run)
	run = waitFinished(ctx, t, env, name, 3*time.Minute)
	c := cond(run, cbv1.ConditionSucceeded)
	const webhookSays = "CassandraDatacenter write rejected, attempted to use cassandra.datastax.com/autoupdate-spec annotation with value other than 'once' or 'always'"
	if run.Status.Phase != cbv1.PhaseFailed || c.Reason != cbv1.ReasonRefused || !strings.Contains(c.Message, webhookSays) {
		t.Fatalf("phase %s, Succeeded %s %q; want Failed, %s with the webhook's message; conditions:\n%s",
			run.Status.Phase, c.Reason, c.Message, cbv1.ReasonRefused, conditions(run))
	}
	t.Logf("failure: %s", c.Message)
	after := &cassdcapi.CassandraDatacenter{}
	if err := env.Client.Get(ctx, env.DatacenterKey(), after); err != nil {
		t.Fatal(err)
	}
	if after.Generation != before.Generation {
		t.Errorf("the datacenter's generation went from %d to %d", before.Generation, after.Generation)
	}
	checkRestored(ctx, t, env)
}

// withoutWebhook takes cass-operator's validating webhook configuration away while change
// runs, as in a cluster where cass-operator was installed without its webhook, and puts it
// back, waiting until the apiserver calls it again: a dry run of a write to the datacenter
// is refused by it.
func withoutWebhook(ctx context.Context, t *testing.T, env *Env, change func()) {
	t.Helper()
	var list admissionregistrationv1.ValidatingWebhookConfigurationList
	if err := env.Client.List(ctx, &list); err != nil {
		t.Fatal(err)
	}
	var saved []admissionregistrationv1.ValidatingWebhookConfiguration
	for _, w := range list.Items {
		for _, h := range w.Webhooks {
			if h.Name == "vcassandradatacenter.kb.io" {
				saved = append(saved, w)
				break
			}
		}
	}
	if len(saved) != 1 {
		t.Fatalf("%d validating webhook configurations for CassandraDatacenters, want cass-operator's one", len(saved))
	}
	if err := env.Client.Delete(ctx, &saved[0]); err != nil {
		t.Fatal(err)
	}
	change()
	w := saved[0].DeepCopy()
	w.ObjectMeta = metav1.ObjectMeta{Name: w.Name, Labels: w.Labels, Annotations: w.Annotations}
	if err := env.Client.Create(ctx, w); err != nil {
		t.Fatalf("putting cass-operator's webhook configuration back: %v", err)
	}
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		dc := &cassdcapi.CassandraDatacenter{}
		if err := env.Client.Get(ctx, env.DatacenterKey(), dc); err != nil {
			return false, err
		}
		patch := client.MergeFrom(dc.DeepCopy())
		metav1.SetMetaDataAnnotation(&dc.ObjectMeta, "cassbench.io/webhook-check", "x")
		last = env.Client.Patch(ctx, dc, patch, client.DryRunAll)
		return last != nil && strings.Contains(last.Error(), "vcassandradatacenter.kb.io"), nil
	})
	if err != nil {
		t.Fatalf("cass-operator's webhook did not refuse a write to the datacenter again (last: %v): %v", last, err)
	}
}

// setDatacenterAnnotation sets an annotation of the datacenter, or removes it when value is
// empty, trying until the apiserver admits the write.
func setDatacenterAnnotation(ctx context.Context, t *testing.T, env *Env, key, value string) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		dc := &cassdcapi.CassandraDatacenter{}
		if err := env.Client.Get(ctx, env.DatacenterKey(), dc); err != nil {
			return false, err
		}
		patch := client.MergeFrom(dc.DeepCopy())
		if value == "" {
			delete(dc.Annotations, key)
		} else {
			metav1.SetMetaDataAnnotation(&dc.ObjectMeta, key, value)
		}
		last = env.Client.Patch(ctx, dc, patch)
		return last == nil, nil
	})
	if err != nil {
		t.Errorf("setting annotation %s=%q on the datacenter: %v: %v", key, value, err, last)
	}
}
