package local

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// releasedCommit is version N, the release an upgrade starts from: the last commit before
// 6f7b26d, which made the run's and the sweep's status.datacenter one type (HeldDatacenter)
// and stopped writing hadConfig. Status this version writes is in the older shape: hadConfig
// beside originalConfig, and the sweep's own SweepDatacenterStatus.
const releasedCommit = "628d32d"

// allUpgradePoints set runs every upgrade point; make test runs the one where the datacenter
// is changed (each point takes minutes: a config change and its give-back each roll the node).
const allUpgradePoints = "CASSBENCH_UPGRADE_TESTS"

// heldConfig is the config the datacenter has before each holder takes it, so that the
// originals version N records carry hadConfig and originalConfig: a datacenter without a
// config records the same status in both versions.
var heldConfig = json.RawMessage(`{"cassandra-yaml":{"concurrent_writes":48}}`)

// upgradePoint is a moment of a holder's life at which version N's status differs from what
// the current version writes, read from the stored object as the apiserver keeps it.
type upgradePoint struct {
	kind    string // "BenchmarkRun" or "BenchmarkSweep"
	reached func(status map[string]any) bool
}

// hadConfig tells whether the stored status.datacenter carries version N's hadConfig: the
// take is recorded in the older shape.
func hadConfig(status map[string]any) bool {
	v, _, _ := unstructured.NestedBool(status, "datacenter", "hadConfig")
	return v
}

// A run and a sweep that hold the datacenter under version N's manager are finished and given
// back by the current one: at each point where the stored status is in N's shape, the CRDs are
// upgraded as docs/install.md says (server-side apply), then the chart (helm upgrade, which
// replaces the manager's pod), and the new manager must finish the holder and put the
// datacenter back exactly as it was (size and config), its originals intact in the meantime.
func TestUpgradeMidHold(t *testing.T) {
	points := map[string]upgradePoint{
		// The take is recorded: originals in N's shape, the datacenter maybe not yet changed.
		"upgrade-recorded": {kind: "BenchmarkRun", reached: hadConfig},
		// N patched the datacenter and recorded its patch: the datacenter holds the run's config.
		"upgrade-changed": {kind: "BenchmarkRun", reached: func(st map[string]any) bool {
			g, _, _ := unstructured.NestedInt64(st, "datacenter", "patchedGeneration")
			return hadConfig(st) && g > 0
		}},
		// The sweep recorded what it puts back at its end, in SweepDatacenterStatus's shape.
		"upgrade-sweep": {kind: "BenchmarkSweep", reached: hadConfig},
	}
	order := []string{"upgrade-changed"}
	if os.Getenv(allUpgradePoints) != "" {
		order = []string{"upgrade-recorded", "upgrade-changed", "upgrade-sweep"}
	} else {
		t.Logf("only the point upgrade-changed; %s=1 (make test-upgrade) runs every point", allUpgradePoints)
	}
	// Each point takes minutes (a config change and its give-back each roll the node): the
	// scenario's 15 minutes are not enough for all three.
	env, _ := scenario(t, "upgrade-recorded", "upgrade-changed", "upgrade-sweep-0-0")
	ctx, cancel := context.WithTimeout(context.Background(), 35*time.Minute)
	defer cancel()
	rel, err := env.BuildRelease(ctx, releasedCommit)
	if err != nil {
		t.Fatal(err)
	}
	current := filepath.Join(env.Root, "charts", "cassbench")
	t.Cleanup(func() {
		// Its own deadline: the environment is put back even when the scenario's ran out.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		backToCurrent(ctx, t, env, current)
	})
	setConfig(ctx, t, env, heldConfig)
	if got := nodeSetting(ctx, t, 1, "concurrent_writes"); got != "48" {
		t.Fatalf("node 1 concurrent_writes = %q once the datacenter's config says 48", got)
	}
	before := &cassdcapi.CassandraDatacenter{}
	if err := env.Client.Get(ctx, env.DatacenterKey(), before); err != nil {
		t.Fatal(err)
	}
	for _, name := range order {
		ok := t.Run(name, func(t *testing.T) {
			start := time.Now()
			p := points[name]
			downgradeStart := time.Now()
			if err := env.ReplaceCRDs(ctx, rel.Chart); err != nil {
				t.Fatal(err)
			}
			if err := env.HelmUpgrade(ctx, rel.Chart, rel.Image); err != nil {
				t.Fatal(err)
			}
			t.Logf("version N (%s) runs after %s", rel.Commit[:12], time.Since(downgradeStart).Round(time.Second))
			holder := createHolder(ctx, t, env, name, p.kind)
			recorded := waitStored(ctx, t, env, holder, p.reached)
			upgradeStart := time.Now()
			if err := env.ApplyCRDs(ctx, current); err != nil {
				t.Fatal(err)
			}
			if err := env.HelmUpgrade(ctx, current, env.Image); err != nil {
				t.Fatal(err)
			}
			upgraded := time.Now()
			t.Logf("upgraded to the current version in %s", upgraded.Sub(upgradeStart).Round(time.Second))
			checkOriginalsIntact(ctx, t, env, holder, recorded)
			checkGivenBack(ctx, t, env, holder, before, upgraded)
			t.Logf("%s: %s from version N to given back", name, time.Since(start).Round(time.Second))
		})
		if !ok {
			break // a holder left behind would keep the next one waiting
		}
	}
}

// createHolder creates a run, or a one-point restore atEnd sweep, that tunes concurrent_writes
// to 64 and writes for long enough that the upgrade happens while it holds the datacenter.
func createHolder(ctx context.Context, t *testing.T, env *Env, name, kind string) client.ObjectKey {
	t.Helper()
	const duration = 45 * time.Second
	var o client.Object
	if kind == "BenchmarkSweep" {
		o = tunedSweep(env, name, duration, 1)
	} else {
		o = newRun(env, name).CassandraYaml(map[string]any{"concurrent_writes": 64}).
			Writers(1).Concurrency(4).Rate(100).Duration(duration).Obj()
	}
	if err := env.Client.Create(ctx, o); err != nil {
		t.Fatalf("creating %s %s: %v", kind, name, err)
	}
	return client.ObjectKeyFromObject(o)
}

func gvk(kind string) schema.GroupVersionKind {
	return cbv1.GroupVersion.WithKind(kind)
}

// stored reads a holder as the apiserver serves it, without decoding into the current types.
func stored(ctx context.Context, env *Env, key client.ObjectKey, kind string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk(kind))
	return u, env.Client.Get(ctx, key, u)
}

// holderKind is the kind of the holder a key names: sweeps are the ones named upgrade-sweep.
func holderKind(key client.ObjectKey) string {
	if key.Name == "upgrade-sweep" {
		return "BenchmarkSweep"
	}
	return "BenchmarkRun"
}

// waitStored waits until the stored holder reaches the point, and fails when it finished
// first: then version N gave the datacenter back and the upgrade would test nothing. It
// returns the stored status.datacenter.
func waitStored(ctx context.Context, t *testing.T, env *Env, key client.ObjectKey, reached func(map[string]any) bool) map[string]any {
	t.Helper()
	kind := holderKind(key)
	deadline := time.Now().Add(6 * time.Minute)
	for {
		u, err := stored(ctx, env, key, kind)
		if err == nil {
			st, _, _ := unstructured.NestedMap(u.Object, "status")
			if finished(st) {
				t.Fatalf("%s %s finished under version N before the upgrade point", kind, key.Name)
			}
			if reached(st) {
				dc, _, _ := unstructured.NestedMap(st, "datacenter")
				t.Logf("%s %s under version N: status.datacenter %v", kind, key.Name, dc)
				return dc
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %s did not reach the upgrade point within 6m (err %v)", kind, key.Name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// finished tells whether a stored status has its Succeeded condition.
func finished(status map[string]any) bool {
	conds, _, _ := unstructured.NestedSlice(status, "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == cbv1.ConditionSucceeded {
			return true
		}
	}
	return false
}

// checkOriginalsIntact checks that, once the new CRDs are applied, the holder is served and
// decodes into the current types with the originals version N recorded.
func checkOriginalsIntact(ctx context.Context, t *testing.T, env *Env, key client.ObjectKey, recorded map[string]any) {
	t.Helper()
	var held *cbv1.HeldDatacenter
	if holderKind(key) == "BenchmarkSweep" {
		sw := &cbv1.BenchmarkSweep{}
		if err := env.Client.Get(ctx, key, sw); err != nil {
			t.Fatalf("reading the sweep after the upgrade: %v", err)
		}
		held = sw.Status.Datacenter
	} else {
		run := &cbv1.BenchmarkRun{}
		if err := env.Client.Get(ctx, key, run); err != nil {
			t.Fatalf("reading the run after the upgrade: %v", err)
		}
		if run.Status.Datacenter != nil {
			held = &run.Status.Datacenter.HeldDatacenter
		}
	}
	if held == nil || held.OriginalSize == nil || held.OriginalConfig == nil {
		t.Fatalf("%s: status.datacenter after the upgrade %+v, want the originals version N recorded (%v)", key.Name, held, recorded)
	}
	size, _, _ := unstructured.NestedInt64(recorded, "originalSize")
	config, _, _ := unstructured.NestedMap(recorded, "originalConfig")
	if int64(*held.OriginalSize) != size || !sameJSON(t, held.OriginalConfig.Raw, config) {
		t.Errorf("%s: originals after the upgrade: size %d, config %s; version N recorded size %d, config %v",
			key.Name, *held.OriginalSize, held.OriginalConfig.Raw, size, config)
	}
}

// sameJSON tells whether raw holds the same JSON value as v.
func sameJSON(t *testing.T, raw []byte, v any) bool {
	t.Helper()
	var got, want any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(got, want)
}

// checkGivenBack waits for the holder to succeed and checks that the current manager, not
// version N's, gave the datacenter back (its DatacenterRestored condition is no older than
// the upgrade) exactly as it was before: size, config, no lock, the node running the config.
func checkGivenBack(ctx context.Context, t *testing.T, env *Env, key client.ObjectKey, before *cassdcapi.CassandraDatacenter, upgraded time.Time) {
	t.Helper()
	kind := holderKind(key)
	var conds []metaCondition
	deadline := time.Now().Add(8 * time.Minute)
	for {
		u, err := stored(ctx, env, key, kind)
		if err == nil {
			st, _, _ := unstructured.NestedMap(u.Object, "status")
			if finished(st) {
				conds = conditionsOf(st)
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %s not finished within 8m after the upgrade", kind, key.Name)
		}
		time.Sleep(200 * time.Millisecond)
	}
	succeeded, restored := findCond(conds, cbv1.ConditionSucceeded), findCond(conds, cbv1.ConditionDatacenterRestored)
	if succeeded.Status != "True" {
		t.Errorf("%s %s: Succeeded %s/%s: %s", kind, key.Name, succeeded.Status, succeeded.Reason, succeeded.Message)
	}
	if restored.Reason != cbv1.ReasonRestored {
		t.Errorf("%s %s: DatacenterRestored %s/%s: %s", kind, key.Name, restored.Status, restored.Reason, restored.Message)
	}
	if restored.At.Before(upgraded.Truncate(time.Second)) {
		t.Errorf("%s %s: given back at %s, before the current manager ran (%s): version N gave it back", kind, key.Name, restored.At, upgraded)
	}
	if err := env.WaitDatacenterSettled(ctx, 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	dc := &cassdcapi.CassandraDatacenter{}
	if err := env.Client.Get(ctx, env.DatacenterKey(), dc); err != nil {
		t.Fatal(err)
	}
	var cfg any
	if err := json.Unmarshal(before.Spec.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	if dc.Spec.Size != before.Spec.Size || !sameJSON(t, dc.Spec.Config, cfg) {
		t.Errorf("datacenter given back with size %d, config %s; it had size %d, config %s", dc.Spec.Size, dc.Spec.Config, before.Spec.Size, before.Spec.Config)
	}
	if holder, ok := dc.Annotations[cbv1.LockAnnotation]; ok {
		t.Errorf("datacenter still locked by %s", holder)
	}
	if got := nodeSetting(ctx, t, 1, "concurrent_writes"); got != "48" {
		t.Errorf("node 1 concurrent_writes = %q after the give-back, want the datacenter's own 48", got)
	}
}

// metaCondition is the part of a stored condition the checks read.
type metaCondition struct {
	Type, Status, Reason, Message string
	At                            time.Time
}

func conditionsOf(status map[string]any) []metaCondition {
	raw, _, _ := unstructured.NestedSlice(status, "conditions")
	var out []metaCondition
	for _, c := range raw {
		m, _ := c.(map[string]any)
		at, _ := time.Parse(time.RFC3339, str(m["lastTransitionTime"]))
		out = append(out, metaCondition{Type: str(m["type"]), Status: str(m["status"]), Reason: str(m["reason"]), Message: str(m["message"]), At: at})
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func findCond(conds []metaCondition, t string) metaCondition {
	for _, c := range conds {
		if c.Type == t {
			return c
		}
	}
	return metaCondition{}
}

// setConfig sets the datacenter's spec.config (nil removes it) and waits until its node runs it.
func setConfig(ctx context.Context, t *testing.T, env *Env, config json.RawMessage) {
	t.Helper()
	patch := map[string]any{"spec": map[string]any{"config": config}}
	b, err := json.Marshal(patch)
	if err != nil {
		t.Fatal(err)
	}
	dc := &cassdcapi.CassandraDatacenter{}
	dc.Namespace, dc.Name = env.Namespace, env.Datacenter
	if err := env.Client.Patch(ctx, dc, client.RawPatch(types.MergePatchType, b)); err != nil {
		t.Fatalf("setting the datacenter's config to %s: %v", config, err)
	}
	if err := env.WaitDatacenterSettled(ctx, 5*time.Minute); err != nil {
		t.Fatal(err)
	}
}

// backToCurrent leaves the environment as the other scenarios expect it: the current CRDs and
// manager, and a datacenter without a config.
func backToCurrent(ctx context.Context, t *testing.T, env *Env, current string) {
	if err := env.ApplyCRDs(ctx, current); err != nil {
		t.Error(err)
	}
	if err := env.HelmUpgrade(ctx, current, env.Image); err != nil {
		t.Error(err)
	}
	setConfig(ctx, t, env, nil)
}
