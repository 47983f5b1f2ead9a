package controllers

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// The load stage keeps writers' raw reports in ConfigMaps and a compact row in status.
func TestDecideStoresReportsInConfigMaps(t *testing.T) {
	summaryOf := func(index int32, ok int64) string { return play.WriterSummary(t, index, 2, ok, "") }
	writer, writerDone := runJob(jobs.ComponentWriter).Obj(), done(jobs.ComponentWriter, 0)
	// Writers 0 and 1 as the ConfigMaps hold them, with 1000 and 2000 operations.
	inConfigMaps := func(o observation) observation {
		o.reports = []cbv1.WriterReport{{Index: 0, Summary: summaryOf(0, 1000), ConfigMap: "r-reports-0"},
			{Index: 1, Summary: summaryOf(1, 2000), ConfigMap: "r-reports-0"}}
		return o
	}
	rows := func(run *cbv1.BenchmarkRun) {
		run.Status.WriterReports = []cbv1.WriterReport{{Index: 0, ConfigMap: "r-reports-0"}, {Index: 1, ConfigMap: "r-reports-0"}}
	}
	olderManagerRows := func(run *cbv1.BenchmarkRun) {
		run.Status.WriterReports = []cbv1.WriterReport{{Index: 0, Summary: summaryOf(0, 1000)}, {Index: 1, Summary: summaryOf(1, 2000)}}
	}
	cases := map[string]struct {
		o          observation
		stored     []int32
		operations int64
		succeeded  bool
	}{
		"a terminated writer's report is stored the first time it is read": {
			o: withPods(observed(setUp().Obj(), atTarget(ours()).Obj(), writer), jobs.ComponentWriter,
				pod(writer, 0, 0, summaryOf(0, 1000))),
			stored: []int32{0}, operations: 1000},
		"reports in ConfigMaps are merged and not stored again": {
			o: withPods(inConfigMaps(observed(setUp().Apply(rows).Obj(), atTarget(ours()).Obj(), writerDone)), jobs.ComponentWriter,
				pod(writer, 0, 0, summaryOf(0, 5)), pod(writer, 1, 0, summaryOf(1, 5))),
			operations: 3000, succeeded: true},
		"a manager that stopped between storing reports and writing status finds them": {
			o:          inConfigMaps(observed(setUp().Obj(), atTarget(ours()).Obj(), writerDone)),
			operations: 3000, succeeded: true},
		"rows an older manager kept in status move to a ConfigMap": {
			o:      observed(setUp().Apply(olderManagerRows).Obj(), atTarget(ours()).Obj(), writerDone),
			stored: []int32{0, 1}, operations: 3000, succeeded: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := decide(tc.o)
			if s.status.Results == nil || s.status.Results.Operations != tc.operations {
				t.Errorf("results %+v, want %d operations", s.status.Results, tc.operations)
			}
			if got := meta.IsStatusConditionTrue(s.status.Conditions, cbv1.ConditionWritersComplete); got != tc.succeeded {
				t.Errorf("WritersComplete %v, want %v: %+v", got, tc.succeeded, meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionWritersComplete))
			}
			var stored []int32
			for _, cm := range s.reports {
				if cm.Name != "r-reports-0" || !metav1.IsControlledBy(cm, tc.o.run) {
					t.Errorf("ConfigMap %s owned by %+v", cm.Name, cm.OwnerReferences)
				}
				for k := range cm.BinaryData {
					var i int32
					if _, err := fmt.Sscanf(k, "writer-%d.json.gz", &i); err != nil {
						t.Fatalf("key %q: %v", k, err)
					}
					stored = append(stored, i)
				}
			}
			slices.Sort(stored)
			if diff := cmp.Diff(tc.stored, stored); diff != "" {
				t.Errorf("writers this step stores (-want +got):\n%s", diff)
			}
			for _, row := range s.status.WriterReports {
				if row.Summary != "" || row.ConfigMap != "r-reports-0" {
					t.Errorf("status keeps writer %d as %+v, want a row naming r-reports-0 with no summary", row.Index, row)
				}
			}
		})
	}
}
