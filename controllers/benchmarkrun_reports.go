package controllers

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/lending"
	"github.com/cassbench/cassbench/internal/reportstore"
)

// The writers' raw reports live in ConfigMaps the run owns (internal/reportstore); status
// keeps a compact row per writer. This file holds the run controller's part of that: reading
// the stored reports, choosing what to store, and storing it before anything else a pass does.

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;delete

// errNotOurs is a ConfigMap with a report ConfigMap's name that the run does not control:
// left by an earlier run of the same name. Retrying cannot help.
var errNotOurs = errors.New("exists and is not this run's")

// observeReports reads the reports stored in the run's ConfigMaps. A row in status names the
// ConfigMap its report was written to before the row was: when the cache does not hold that
// report yet, the ConfigMaps are read from the apiserver, so a pass never merges without it.
func (r *BenchmarkRunReconciler) observeReports(ctx context.Context, run *cbv1.BenchmarkRun, o *observation) error {
	// Only the load stage reads them: a run that is over, or giving back, or has no writers
	// yet does not pay for reading a thousand reports on every event of its datacenter.
	loading := run.DeletionTimestamp.IsZero() && !lending.Finished(run) && pendingOutcome(run) == nil
	if !loading || (len(run.Status.WriterReports) == 0 && o.jobs[jobs.ComponentWriter] == nil) {
		r.decoded.forget(run.UID)
		return nil
	}
	list := func(c client.Reader) ([]cbv1.WriterReport, error) {
		var cms corev1.ConfigMapList
		if err := c.List(ctx, &cms, client.InNamespace(run.Namespace), client.MatchingLabels(reportstore.Selector(run.Name))); err != nil {
			return nil, fmt.Errorf("listing the ConfigMaps of writer reports: %w", err)
		}
		return r.decoded.read(run, cms.Items)
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
	full = withTerminated(known, terminated, pods, n)
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

// storeReports writes the reports a pass collected, before the status that names
// them and before any Job is stopped. A ConfigMap that exists (an earlier pass, or a manager
// that restarted before writing status) gets the reports it lacks; one it holds is kept.
func (r *BenchmarkRunReconciler) storeReports(ctx context.Context, cms []*corev1.ConfigMap) error {
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
		if len(cm.OwnerReferences) > 0 && !ownedBySame(existing, cm) && earlierRunsReports(existing, cm) {
			// A run of this name that was deleted with --cascade=orphan left it, as it leaves
			// its Jobs: its reports are not this run's, and this run's take its place.
			if err := r.Delete(ctx, existing, client.Preconditions{UID: &existing.UID}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("deleting ConfigMap %s of writer reports left by an earlier run of this name: %w", cm.Name, err)
			}
			if err := r.Create(ctx, cm.DeepCopy()); err != nil {
				return fmt.Errorf("creating ConfigMap %s of writer reports: %w", cm.Name, err)
			}
			continue
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

// earlierRunsReports tells whether a ConfigMap with a report ConfigMap's name holds the reports
// of an earlier run of the same name: it carries the run's report labels, and no controller or
// a BenchmarkRun of that name (not this one) controls it.
func earlierRunsReports(existing, want *corev1.ConfigMap) bool {
	for k, v := range want.Labels {
		if k != cbv1.RunLabel && k != cbv1.ComponentLabel {
			continue
		}
		if existing.Labels[k] != v {
			return false
		}
	}
	ref := metav1.GetControllerOf(existing)
	if ref == nil {
		return true
	}
	mine := want.OwnerReferences[0]
	return ref.Kind == mine.Kind && ref.APIVersion == mine.APIVersion && ref.Name == mine.Name && ref.UID != mine.UID
}

func ownedBySame(existing, want *corev1.ConfigMap) bool {
	for _, ref := range existing.OwnerReferences {
		if ref.Controller != nil && *ref.Controller && ref.UID == want.OwnerReferences[0].UID {
			return true
		}
	}
	return false
}

// decodedReports keeps what each report ConfigMap of a loading run decoded to, by its UID and
// resourceVersion: at a thousand writers, decompressing every report again on every pass took
// about 0.3 ms a report (TestStatusHoldsAThousandWriters' reports, measured here), and only
// the ConfigMap that gained reports changes between passes.
type decodedReports struct {
	mu    sync.Mutex
	byRun map[types.UID]map[types.UID]decodedConfigMap
}

type decodedConfigMap struct {
	version string
	reports []cbv1.WriterReport
}

// read returns the reports of the run's ConfigMaps in index order, decoding only those it has
// not decoded at their current version. The result is shared: callers must not change it.
func (c *decodedReports) read(run *cbv1.BenchmarkRun, cms []corev1.ConfigMap) ([]cbv1.WriterReport, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	prev := c.byRun[run.UID]
	next := make(map[types.UID]decodedConfigMap, len(cms))
	var out []cbv1.WriterReport
	for i := range cms {
		cm := &cms[i]
		d, ok := prev[cm.UID]
		if !ok || d.version != cm.ResourceVersion {
			reports, err := reportstore.Read(run, cms[i:i+1])
			if err != nil {
				return nil, err
			}
			d = decodedConfigMap{version: cm.ResourceVersion, reports: reports}
		}
		next[cm.UID] = d
		out = append(out, d.reports...)
	}
	if c.byRun == nil {
		c.byRun = map[types.UID]map[types.UID]decodedConfigMap{}
	}
	c.byRun[run.UID] = next
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

// forget drops what was decoded for a run that no longer loads.
func (c *decodedReports) forget(run types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byRun, run)
}
