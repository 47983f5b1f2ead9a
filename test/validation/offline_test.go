package validation_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cassbench/cassbench/internal/admission"
)

// rejectedSweeps are sweeps the CRD must refuse, edits of a valid one, for the same comparison.
var rejectedSweeps = map[string][]mutation{
	"no axes":             {set([]any{}, "spec", "axes")},
	"an axis twice":       {set([]any{axis("writers.replicas", 1, 2), axis("writers.replicas", 3)}, "spec", "axes")},
	"zip of unequal":      {set("zip", "spec", "mode"), set([]any{axis("writers.replicas", 1, 2), axis("writers.concurrency", 3)}, "spec", "axes")},
	"too many points":     {set([]any{axis("writers.replicas", seq(20)...), axis("writers.concurrency", seq(11)...)}, "spec", "axes")},
	"a path with a space": {set([]any{axis("writers replicas", 1)}, "spec", "axes")},
	"no values":           {set([]any{map[string]any{"path": "writers.replicas", "values": []any{}}}, "spec", "axes")},
	"repeats 0":           {set(int64(0), "spec", "repeats")},
	"unknown metric":      {set("p50", "spec", "bestBy")},
	"a bad template":      {set(int64(0), "spec", "template", "writers", "replicas")},
	"a typo'd field":      {set(true, "spec", "stopOnFailur")},
	"an int too large":    {set([]any{axis("writers.operations", int64(1)<<40)}, "spec", "axes")},
}

// rejectedMetadata are runs whose metadata the API server refuses.
var rejectedMetadata = map[string][]mutation{
	"a name too long for a run":  {set("r"+strings.Repeat("x", 60), "metadata", "name")},
	"a name that is no DNS name": {set("Run_1", "metadata", "name")},
	"a label value with a space": {set(map[string]any{"team": "a b"}, "metadata", "labels")},
	"labels that are no map":     {set("team=a", "metadata", "labels")},
	"an unknown metadata field":  {set("x", "metadata", "owner")},
}

func axis(path string, values ...int64) map[string]any {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return map[string]any{"path": path, "values": vs}
}

func seq(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i + 1)
	}
	return out
}

func validSweep(namespace, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cassbench.io/v1alpha1", "kind": "BenchmarkSweep",
		"metadata": map[string]any{"name": name, "namespace": namespace},
		"spec": map[string]any{
			"template": map[string]any{
				"datacenterRef": map[string]any{"name": "dc1"},
				"writers":       map[string]any{"replicas": int64(1), "duration": "1m"},
			},
			"axes": []any{axis("writers.replicas", 1, 2)},
		},
	}}
}

// The offline admission of internal/admission (cassbench run and validate) must give every
// object the verdict and the message the API server gives it: every sample, every rejected
// run of TestInvalidSpecsAreRejected and the rejected sweeps above. Accepted objects must be
// defaulted alike.
func TestOfflineAdmissionMatchesTheAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	offline, err := admission.Default()
	if err != nil {
		t.Fatal(err)
	}
	ns := env.Namespace(t)

	t.Run("rejected runs", func(t *testing.T) {
		for i, name := range sortedKeys(rejectedRuns) {
			t.Run(name, func(t *testing.T) {
				run := validRun(t, ns)
				run.SetGenerateName("")
				run.SetName(fmt.Sprintf("rejected-run-%d", i))
				for _, m := range rejectedRuns[name].mutate {
					m(t, run.Object)
				}
				compareVerdicts(ctx, t, offline, run)
			})
		}
	})
	t.Run("rejected metadata", func(t *testing.T) {
		for i, name := range sortedKeys(rejectedMetadata) {
			t.Run(name, func(t *testing.T) {
				run := validRun(t, ns)
				run.SetGenerateName("")
				run.SetName(fmt.Sprintf("rejected-meta-%d", i))
				for _, m := range rejectedMetadata[name] {
					m(t, run.Object)
				}
				if err := compareVerdicts(ctx, t, offline, run); err == nil {
					t.Error("the API server accepted it; the case tests nothing")
				}
			})
		}
	})
	t.Run("rejected sweeps", func(t *testing.T) {
		for i, name := range sortedKeys(rejectedSweeps) {
			t.Run(name, func(t *testing.T) {
				sweep := validSweep(ns, fmt.Sprintf("rejected-sweep-%d", i))
				for _, m := range rejectedSweeps[name] {
					m(t, sweep.Object)
				}
				if err := compareVerdicts(ctx, t, offline, sweep); err == nil {
					t.Error("the API server accepted it; the case tests nothing")
				}
			})
		}
	})
	t.Run("samples", func(t *testing.T) {
		files, err := filepath.Glob(filepath.Join(env.Root, "config", "samples", "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no samples: %v", err)
		}
		for _, file := range files {
			for _, obj := range decodeFile(t, file) {
				t.Run(filepath.Base(file)+"/"+obj.GetName(), func(t *testing.T) {
					if err := offline.Default(obj.DeepCopy()); errors.Is(err, admission.ErrOtherKind) {
						t.Skipf("%s is not a cassbench kind", obj.GetKind())
					}
					obj.SetNamespace(ns)
					obj.SetName("sample-" + obj.GetName())
					if err := compareVerdicts(ctx, t, offline, obj); err != nil {
						t.Errorf("sample refused: %v", err)
					}
				})
			}
		}
	})
}

// compareVerdicts creates obj on the API server (strict field validation, as kubectl does)
// and admits it offline, and fails unless both refuse it with the same status and message or
// both accept it with the same defaulted spec. It returns the API server's error.
func compareVerdicts(ctx context.Context, t *testing.T, offline *admission.Admitter, obj *unstructured.Unstructured) error {
	t.Helper()
	local := obj.DeepCopy()
	offlineErr := offline.AdmitObject(ctx, local)
	server := obj.DeepCopy()
	serverErr := env.Client.Create(ctx, server, strict)
	if (serverErr == nil) != (offlineErr == nil) {
		t.Fatalf("verdicts differ:\n  API server: %v\n  offline:    %v", serverErr, offlineErr)
	}
	if serverErr == nil {
		if diff := cmp.Diff(server.Object["spec"], local.Object["spec"]); diff != "" {
			t.Errorf("defaulted specs differ (-API server +offline):\n%s", diff)
		}
		return nil
	}
	var s, o *apierrors.StatusError
	if !errors.As(serverErr, &s) || !errors.As(offlineErr, &o) {
		t.Fatalf("not both API statuses:\n  API server: %#v\n  offline:    %#v", serverErr, offlineErr)
	}
	if s.ErrStatus.Reason != o.ErrStatus.Reason || s.ErrStatus.Code != o.ErrStatus.Code {
		t.Errorf("status differs: API server %s %d, offline %s %d", s.ErrStatus.Reason, s.ErrStatus.Code, o.ErrStatus.Reason, o.ErrStatus.Code)
	}
	// Several causes come in the order the schema validator meets them, which follows map
	// iteration; the same causes in another order are the same message.
	if s.Error() != o.Error() && !sameCauses(s, o) {
		t.Errorf("messages differ:\n  API server: %s\n  offline:    %s", s.Error(), o.Error())
	}
	return serverErr
}

func sameCauses(a, b *apierrors.StatusError) bool {
	causes := func(e *apierrors.StatusError) []string {
		if e.ErrStatus.Details == nil {
			return nil
		}
		var out []string
		for _, c := range e.ErrStatus.Details.Causes {
			out = append(out, fmt.Sprintf("%s|%s|%s", c.Type, c.Field, c.Message))
		}
		sort.Strings(out)
		return out
	}
	ca, cb := causes(a), causes(b)
	return len(ca) > 1 && cmp.Equal(ca, cb)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
