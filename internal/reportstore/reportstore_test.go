package reportstore_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/reportstore"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

func report(i int32, summary string) cbv1.WriterReport {
	return cbv1.WriterReport{Index: i, Pod: "r-writer-x", PodUID: "uid", Reason: "Completed", Summary: summary}
}

func cms(t *testing.T, run *cbv1.BenchmarkRun, reports ...cbv1.WriterReport) []corev1.ConfigMap {
	t.Helper()
	built := reportstore.ConfigMaps(run, reports)
	var out []corev1.ConfigMap
	for _, cm := range built {
		out = append(out, *cm)
	}
	return out
}

func TestConfigMapsSplitByIndexAndReadBack(t *testing.T) {
	run := builders.MakeBenchmarkRun("r", "ns").Obj()
	run.UID = types.UID("run-uid")
	in := []cbv1.WriterReport{report(0, `{"a":1}`), report(199, `{"b":2}`), report(200, `{"c":3}`), report(999, "")}
	built := cms(t, run, in...)
	var names []string
	for _, cm := range built {
		names = append(names, cm.Name)
		if !metav1.IsControlledBy(&cm, run) || cm.Labels[cbv1.RunLabel] != "r" || cm.Labels[cbv1.ComponentLabel] != reportstore.Component {
			t.Errorf("ConfigMap %s: owner %v labels %v", cm.Name, cm.OwnerReferences, cm.Labels)
		}
	}
	if diff := cmp.Diff([]string{"r-reports-0", "r-reports-1", "r-reports-4"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	got, err := reportstore.Read(run, built)
	if err != nil {
		t.Fatal(err)
	}
	want := []cbv1.WriterReport{}
	for _, r := range in {
		want = append(want, reportstore.Compact(r, reportstore.Name("r", r.Index)))
		want[len(want)-1].Summary = r.Summary
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
}

func TestReadRefuses(t *testing.T) {
	run := builders.MakeBenchmarkRun("r", "ns").Obj()
	run.UID = types.UID("run-uid")
	other := run.DeepCopy()
	other.UID = types.UID("earlier-run")
	swapped := cms(t, run, report(1, "x"))
	swapped[0].BinaryData[reportstore.Key(2)] = swapped[0].BinaryData[reportstore.Key(1)]
	corrupt := cms(t, run, report(1, "x"))
	corrupt[0].BinaryData[reportstore.Key(1)] = []byte("not gzip")
	for name, tc := range map[string]struct {
		cms     []corev1.ConfigMap
		want    int
		wantErr string
	}{
		"a ConfigMap of an earlier run of the same name is not read": {cms: cms(t, other, report(1, "x")), want: 0},
		"a key naming another writer":                                {cms: swapped, wantErr: "holds the report of writer 1"},
		"a key that is not gzip":                                     {cms: corrupt, wantErr: "reading writer-1.json.gz of ConfigMap r-reports-0"},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := reportstore.Read(run, tc.cms)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(got) != tc.want {
				t.Fatalf("got %d reports, error %v; want %d", len(got), err, tc.want)
			}
		})
	}
}

func TestAddNeverReplaces(t *testing.T) {
	run := builders.MakeBenchmarkRun("r", "ns").Obj()
	stored := cms(t, run, report(1, "first"))[0]
	incoming := cms(t, run, report(1, "second"), report(2, "two"))[0]
	if !reportstore.Add(&stored, &incoming) {
		t.Fatal("writer 2 was not added")
	}
	if reportstore.Add(&stored, &incoming) {
		t.Error("adding the same reports again changed the ConfigMap")
	}
	got, err := reportstore.Read(run, []corev1.ConfigMap{stored})
	if err != nil {
		t.Fatal(err)
	}
	summaries := map[int32]string{}
	for _, r := range got {
		summaries[r.Index] = r.Summary
	}
	if diff := cmp.Diff(map[int32]string{1: "first", 2: "two"}, summaries); diff != "" {
		t.Errorf("stored summaries (-want +got):\n%s", diff)
	}
}
