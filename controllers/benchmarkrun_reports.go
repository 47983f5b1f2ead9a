package controllers

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/reportstore"
)

// The writers' raw reports live in ConfigMaps the run owns (internal/reportstore); status
// keeps a compact row per writer. This file holds the run controller's part of that: reading
// the stored reports, choosing what to store, and storing it before anything else a pass does.

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update

// errNotOurs is a ConfigMap with a report ConfigMap's name that the run does not control:
// left by an earlier run of the same name. Retrying cannot help.
var errNotOurs = errors.New("exists and is not this run's")

// observeReports reads the reports stored in the run's ConfigMaps. A row in status names the
// ConfigMap its report was written to before the row was: when the cache does not hold that
// report yet, the ConfigMaps are read from the apiserver, so a pass never merges without it.
func (r *BenchmarkRunReconciler) observeReports(ctx context.Context, run *cbv1.BenchmarkRun, o *observation) error {
	// Only the load stage reads them: a run that is over, or giving back, or has no writers
	// yet does not pay for reading a thousand reports on every event of its datacenter.
	loading := run.DeletionTimestamp.IsZero() && !finished(run) && pendingOutcome(run) == nil
	if !loading || (len(run.Status.WriterReports) == 0 && o.jobs[jobs.ComponentWriter] == nil) {
		return nil
	}
	list := func(c client.Reader) ([]cbv1.WriterReport, error) {
		var cms corev1.ConfigMapList
		if err := c.List(ctx, &cms, client.InNamespace(run.Namespace), client.MatchingLabels(reportstore.Selector(run.Name))); err != nil {
			return nil, fmt.Errorf("listing the ConfigMaps of writer reports: %w", err)
		}
		return reportstore.Read(run, cms.Items)
	}
	stored, err := list(r.Client)
	if err != nil {
		return err
	}
	if unseen(run.Status.WriterReports, stored) && r.APIReader != nil {
		if stored, err = list(r.APIReader); err != nil {
			return err
		}
	}
	o.reports = stored
	return nil
}

// unseen tells whether a row of status names a ConfigMap whose report was not read.
func unseen(rows, stored []cbv1.WriterReport) bool {
	have := map[int32]bool{}
	for _, s := range stored {
		have[s.Index] = true
	}
	for _, row := range rows {
		if row.ConfigMap != "" && !have[row.Index] {
			return true
		}
	}
	return false
}

// gatherReports joins what is stored with what terminated pods report. full holds every
// report with its summary, for merging; fresh those not in a ConfigMap yet: new ones, and
// rows of an older manager that kept the summary in status.
func gatherReports(rows, stored []cbv1.WriterReport, terminated map[int32]jobs.Terminated, pods []corev1.Pod, n int32) (full, fresh []cbv1.WriterReport) {
	known := append([]cbv1.WriterReport(nil), stored...)
	inStore := map[int32]bool{}
	for _, s := range stored {
		inStore[s.Index] = true
	}
	for _, row := range rows {
		// A row whose ConfigMap lost its report (deleted by hand) stays as it is: the writer
		// is not collected twice.
		if !inStore[row.Index] {
			known = append(known, row)
		}
	}
	full = storeReports(known, terminated, pods, n)
	for _, r := range full {
		if !inStore[r.Index] && r.ConfigMap == "" {
			fresh = append(fresh, r)
		}
	}
	return full, fresh
}

// compactReports is what status keeps of the reports: every row without its summary, naming
// the ConfigMap that holds it.
func compactReports(run string, full []cbv1.WriterReport) []cbv1.WriterReport {
	out := make([]cbv1.WriterReport, 0, len(full))
	for _, r := range full {
		cm := r.ConfigMap
		if cm == "" {
			cm = reportstore.Name(run, r.Index)
		}
		out = append(out, reportstore.Compact(r, cm))
	}
	return out
}

// storeReportConfigMaps writes the reports a pass collected, before the status that names
// them and before any Job is stopped. A ConfigMap that exists (an earlier pass, or a manager
// that restarted before writing status) gets the reports it lacks; one it holds is kept.
func (r *BenchmarkRunReconciler) storeReportConfigMaps(ctx context.Context, cms []*corev1.ConfigMap) error {
	for _, cm := range cms {
		err := r.Create(ctx, cm.DeepCopy())
		if err == nil {
			continue
		}
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating ConfigMap %s of writer reports: %w", cm.Name, err)
		}
		var reader client.Reader = r.Client
		if r.APIReader != nil {
			reader = r.APIReader
		}
		existing := &corev1.ConfigMap{}
		if err := reader.Get(ctx, client.ObjectKeyFromObject(cm), existing); err != nil {
			return fmt.Errorf("reading ConfigMap %s of writer reports: %w", cm.Name, err)
		}
		if len(cm.OwnerReferences) > 0 && !ownedBySame(existing, cm) {
			return fmt.Errorf("ConfigMap %s %w (left by an earlier run of this name?): delete it so the run can store its writers' reports", cm.Name, errNotOurs)
		}
		if !reportstore.Add(existing, cm) {
			continue
		}
		// Conditional on the version read: a conflict is retried by the next pass.
		if err := r.Update(ctx, existing); err != nil {
			return fmt.Errorf("adding writer reports to ConfigMap %s: %w", cm.Name, err)
		}
	}
	return nil
}

func ownedBySame(existing, want *corev1.ConfigMap) bool {
	for _, ref := range existing.OwnerReferences {
		if ref.Controller != nil && *ref.Controller && ref.UID == want.OwnerReferences[0].UID {
			return true
		}
	}
	return false
}
