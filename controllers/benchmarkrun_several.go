package controllers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/lending"
	"github.com/cassbench/cassbench/internal/podenv"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/summary"
)

// A run across several datacenters (spec.datacenters) goes through the stages of a run of one
// for each of them: each stage that touches a datacenter (find, lock, prepare, give back) runs
// on a view of the run per datacenter (view), in which the observation's datacenter is that one
// and status.datacenter is what the run recorded of it in status.datacenters. What a view's
// stage records is written back into that datacenter's entry (into). So the one take chain,
// the one prepare and the one restore serve every datacenter, and a run that holds some of
// its datacenters (a crash, a deletion while it waits for the next) gives back exactly those
// whose lock is its own, each from its own originals.

// heldDC is what one pass read of one datacenter of a run across several.
type heldDC struct {
	key types.NamespacedName
	// dc is nil when the datacenter does not exist or is in a namespace the manager does not
	// watch (notWatched).
	dc         *cassdcapi.CassandraDatacenter
	notWatched bool
	// holderAlive tells whether the holder of the datacenter's lock, if another, still needs it.
	holderAlive bool
	// queueHead is the waiting run whose turn it is on the datacenter, position this run's.
	queueHead     types.NamespacedName
	queuePosition int
	// pods and pendingPods are the datacenter's pods and those not ready, read while the run
	// waits for its patch or a restore waits for a resize.
	pods        []corev1.Pod
	pendingPods []string
}

// observeSeveral reads, in datacenter.Keys order, each datacenter of a run across several,
// who holds it and the queue on it, and its pods while the run waits for them.
func (r *BenchmarkRunReconciler) observeSeveral(ctx context.Context, run *cbv1.BenchmarkRun, o *observation) error {
	me := datacenter.RunHolder(client.ObjectKeyFromObject(run))
	for _, key := range datacenter.Keys(run) {
		h := heldDC{key: key}
		for _, dc := range o.named {
			if dc != nil && keyOf(dc) == key {
				h.dc = dc
			}
		}
		h.notWatched = len(r.WatchNamespaces) > 0 && !slices.Contains(r.WatchNamespaces, key.Namespace)
		if h.dc != nil {
			if holder, locked := datacenter.LockHolder(h.dc); locked && holder != me {
				alive, err := holderAlive(ctx, r.Client, holder)
				if err != nil {
					return err
				}
				h.holderAlive = alive
			}
			head, position, err := r.queueHead(ctx, run, h.dc)
			if err != nil {
				return err
			}
			h.queueHead, h.queuePosition = head, position
			if err := r.observePods(ctx, run, &h); err != nil {
				return err
			}
		}
		o.several = append(o.several, h)
	}
	return nil
}

// observePods lists the datacenter's pods while the run waits for it to apply its patch, or
// a restore waits for it to finish resizing.
func (r *BenchmarkRunReconciler) observePods(ctx context.Context, run *cbv1.BenchmarkRun, h *heldDC) error {
	if r.APIReader == nil {
		return nil
	}
	rec := recordOf(run.Status.Datacenters, h.key)
	finishing := !run.DeletionTimestamp.IsZero() || pendingOutcome(run) != nil
	restoring := datacenter.Resizing(h.dc) && finishing
	waiting := rec != nil && rec.PatchedGeneration != 0 && !finishing &&
		!meta.IsStatusConditionTrue(run.Status.Conditions, cbv1.ConditionDatacenterReady)
	if !restoring && !waiting {
		return nil
	}
	var pods corev1.PodList
	if err := r.APIReader.List(ctx, &pods, client.InNamespace(h.dc.Namespace), client.MatchingLabels(h.dc.GetDatacenterLabels())); err != nil {
		return fmt.Errorf("listing the pods of CassandraDatacenter %s: %w", h.key, err)
	}
	h.pods, h.pendingPods = pods.Items, notReady(pods.Items)
	return nil
}

// holdsEveryBefore tells whether a run holds every datacenter it takes before key: only such
// a run waits in key's queue (lending.EvaluateInOrder), so that an older run still waiting for
// an earlier datacenter is not given the turn on a later one, which would stall both.
func (r *BenchmarkRunReconciler) holdsEveryBefore(ctx context.Context, run *cbv1.BenchmarkRun, key types.NamespacedName) (bool, error) {
	me := datacenter.RunHolder(client.ObjectKeyFromObject(run))
	for _, k := range datacenter.Keys(run) {
		if k == key {
			return true, nil
		}
		dc := &cassdcapi.CassandraDatacenter{}
		if err := r.Get(ctx, k, dc); err != nil {
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return false, fmt.Errorf("getting CassandraDatacenter %s: %w", k, err)
		}
		if holder, locked := datacenter.LockHolder(dc); !locked || holder != me {
			return false, nil
		}
	}
	return true, nil
}

// recordOf is the entry of status.datacenters for key; nil when the run recorded none.
func recordOf(recs []cbv1.DatacenterStatus, key types.NamespacedName) *cbv1.DatacenterStatus {
	for i := range recs {
		if recs[i].Name == key.Name && recs[i].Namespace == key.Namespace {
			return &recs[i]
		}
	}
	return nil
}

// restoredGeneration records the generation a restore produced on the datacenter key: in
// status.datacenter for a run's one, in its entry of status.datacenters for one of several.
func restoredGeneration(st *cbv1.BenchmarkRunStatus, key types.NamespacedName, generation int64) {
	if rec := recordOf(st.Datacenters, key); rec != nil {
		rec.RestoredGeneration = generation
		return
	}
	if st.Datacenter != nil {
		st.Datacenter.RestoredGeneration = generation
	}
}

// view is the decider of the i-th datacenter of a run across several: its observation's
// datacenter is that one, and its run's status.datacenter what the run recorded of it (nil
// before it recorded anything). Conditions the view reads are the run's.
func (d *decider) view(i int) *decider {
	h := d.o.several[i]
	o := d.o
	o.key, o.dc, o.notWatched, o.holderAlive, o.lender = h.key, h.dc, h.notWatched, h.holderAlive, nil
	o.queueHead, o.queuePosition, o.dcPods, o.dcPendingPods = h.queueHead, h.queuePosition, h.pods, h.pendingPods
	run := d.run.DeepCopy()
	run.Status.Datacenter = recordOf(run.Status.Datacenters, h.key)
	return &decider{o: o, run: run}
}

// into makes a view's result the run's: what it records in status.datacenter goes into the
// datacenter's entry of status.datacenters (added when the view records its originals), and
// its change is made on the view's datacenter.
func (v *decider) into(r stageResult) stageResult {
	key := v.o.key
	for i, record := range r.records {
		r.records[i] = func(st *cbv1.BenchmarkRunStatus) {
			own := st.Datacenter
			st.Datacenter = nil
			if rec := recordOf(st.Datacenters, key); rec != nil {
				st.Datacenter = rec.DeepCopy()
			}
			record(st)
			switch rec := recordOf(st.Datacenters, key); {
			case st.Datacenter == nil:
			case rec != nil:
				*rec = *st.Datacenter
			default:
				st.Datacenters = append(st.Datacenters, *st.Datacenter)
			}
			st.Datacenter = own
		}
	}
	if r.dc != nil {
		r.on = v.o.dc
	}
	return r
}

// findSeveral checks that a run's datacenters serve it together, waits for each to exist,
// and resolves the target of each: the run's target is the first's (setup connects there),
// with every datacenter's writers placed on its own.
func (d *decider) findSeveral() stageResult {
	run, o := d.run, d.o
	var r stageResult
	refuse := func(msg string) stageResult {
		r.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonInvalidSpec, msg+"; no datacenter was changed")
		return r
	}
	if msg := clusterMismatch(run, o); msg != "" {
		return refuse(msg)
	}
	if len(run.Spec.Disruptions) > 0 {
		return refuse("spec.disruptions: a run across several datacenters does not disrupt yet; disrupt a run of one datacenter (spec.datacenterRef)")
	}
	if msg := observedTwice(run.Spec.Datacenters); msg != "" {
		return refuse(msg)
	}
	for _, h := range o.several {
		if h.notWatched {
			return refuse(fmt.Sprintf("CassandraDatacenter %s is in namespace %s, which this manager does not watch (--watch-namespaces); "+
				"add the namespace to the manager's", h.key, h.key.Namespace))
		}
	}
	var t jobs.Target
	for i, h := range o.several {
		v := d.view(i)
		in := v.takeInput()
		if take, wait := lending.Exists(&in); wait {
			return v.into(v.taken(take))
		}
		target, reason, msg := jobs.ResolveTarget(run, h.dc, o.image, o.allowedImages)
		if reason != "" {
			r.fail(cbv1.ConditionDatacenterReady, reason, fmt.Sprintf("CassandraDatacenter %s: %s", h.key, msg))
			return r
		}
		if i == 0 {
			t = target
		}
		t.Placement = append(t.Placement, podenv.PlacementEntry{Name: h.key.Name, Datacenter: target.CassandraDatacenter, Host: target.Host, Port: target.Port})
	}
	resolved := &cbv1.ResolvedSettings{
		Image: t.Image, Service: t.Host, Port: t.Port, CredentialsSecret: t.CredentialsSecret, Namespace: run.Namespace,
	}
	r.record(func(st *cbv1.BenchmarkRunStatus) { st.Resolved = resolved })
	r.target, r.done = &t, true
	return r
}

// lockSeveral takes the datacenters of a run across several through the one take chain, in
// datacenter.Keys order (lending.EvaluateInOrder): the first it does not yet hold with its
// originals recorded is locked or recorded; it is done when it holds them all.
func (d *decider) lockSeveral(chain lending.Chain) stageResult {
	views := make([]*decider, len(d.o.several))
	ins := make([]lending.TakeInput, len(d.o.several))
	for i := range d.o.several {
		views[i] = d.view(i)
		ins[i] = views[i].takeInput()
	}
	i, take := chain.EvaluateInOrder(ins)
	if take.Verdict == lending.Held {
		return complete
	}
	if i >= len(views) {
		i = len(views) - 1
	}
	return views[i].into(views[i].taken(take))
}

// prepareSeveral brings each datacenter to the run's target and waits until every one is
// ready. A datacenter that waits (for cass-operator, for the settings check) does not hold
// back the next: each pass makes the first change one of them needs, so cass-operator rolls
// them at the same time; a failure of any ends the stage at once.
func (d *decider) prepareSeveral(t jobs.Target) stageResult {
	var r stageResult
	var waiting *stageResult
	var total int32
	var ready []string
	for i, h := range d.o.several {
		v := d.view(i)
		sub := v.into(v.prepare(t))
		if sub.done {
			// A done view's condition would say this datacenter alone is ready: only its
			// records are kept.
			sub.conds = nil
			r.merge(sub)
			size := v.run.Status.Datacenter.Size
			total += size
			ready = append(ready, fmt.Sprintf("%s (%d nodes)", h.key, size))
			continue
		}
		if sub.dc != nil || sub.create != nil || sub.deleteForeign != nil || failing(sub) {
			r.merge(sub)
			return r
		}
		// What a waiting datacenter records (that it is at the target) is kept; the first
		// one's condition says what the run waits for.
		r.records = append(r.records, sub.records...)
		if waiting == nil {
			waiting = &sub
		}
	}
	if waiting != nil {
		r.conds = waiting.conds
		r.requeueAt(waiting.requeueAfter)
		return r
	}
	r.record(func(st *cbv1.BenchmarkRunStatus) {
		if st.Datacenter == nil {
			st.Datacenter = &cbv1.DatacenterStatus{}
		}
		st.Datacenter.Size = total
	})
	r.set(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady,
		"CassandraDatacenters "+strings.Join(ready, ", ")+" are ready")
	r.done = true
	return r
}

// failing tells whether a stage's result fails the run.
func failing(r stageResult) bool {
	for _, c := range r.conds {
		if c.status == metav1.ConditionFalse && failedReasons[c.reason] {
			return true
		}
	}
	return false
}

// restoreSeveral gives back each datacenter of a run across several (lending.PlanRestore on
// each view), the last taken first, so that a run waiting for the first never takes it while
// this run still holds a later one: one change per pass; done when every one is given back
// or given up on, the condition naming each in the order they were taken.
func (d *decider) restoreSeveral(expired bool) stageResult {
	var r stageResult
	var msgs []string
	var failed *lending.Plan
	for i := len(d.o.several) - 1; i >= 0; i-- {
		h := d.o.several[i]
		v := d.view(i)
		// A refused restore names its datacenter: only that one's plan reads the refusal.
		if c := meta.FindStatusCondition(v.run.Status.Conditions, cbv1.ConditionDatacenterRestored); c != nil &&
			c.Reason == cbv1.ReasonRefused && !strings.Contains(c.Message, "CassandraDatacenter "+h.key.String()) {
			meta.RemoveStatusCondition(&v.run.Status.Conditions, cbv1.ConditionDatacenterRestored)
		}
		plan := planRestore(v.run, v.o.dc, nil, v.o.dcPendingPods, expired, nil)
		if !strings.Contains(plan.Message, h.key.String()) {
			plan.Message = "CassandraDatacenter " + h.key.String() + ": " + plan.Message
		}
		if plan.Change != nil || !plan.Done {
			r.dc, r.on = plan.Change, h.dc
			r.set(cbv1.ConditionDatacenterRestored, metav1.ConditionFalse, cbv1.ReasonRestoring, plan.Message)
			if plan.Done && plan.Status == metav1.ConditionFalse {
				r.set(cbv1.ConditionDatacenterRestored, plan.Status, plan.Reason, plan.Message)
			}
			return r
		}
		msgs = append([]string{plan.Message}, msgs...)
		if plan.Status == metav1.ConditionFalse && failed == nil {
			failed = &plan
		}
	}
	if failed != nil {
		r.set(cbv1.ConditionDatacenterRestored, metav1.ConditionFalse, failed.Reason, strings.Join(msgs, "; "))
	} else {
		r.set(cbv1.ConditionDatacenterRestored, metav1.ConditionTrue, cbv1.ReasonRestored, strings.Join(msgs, "; "))
	}
	r.done = true
	return r
}

// mergeSummaries merges every writer's summary into the run's results and, for a run across
// several datacenters, each datacenter's writers apart (perDatacenter); nil before any reported.
func mergeSummaries(run *cbv1.BenchmarkRun, summaries []*summary.Summary, dc *cassdcapi.CassandraDatacenter) *cbv1.Results {
	merged := results.MergeWith(summaries, results.Options{NodeCPULimitMillicores: nodeCPULimit(dc)})
	if merged != nil && len(run.Spec.Datacenters) > 0 {
		merged.Datacenters = perDatacenter(run.Spec.Datacenters, summaries)
		sample, limit, _ := podenv.LagSettings(&run.Spec)
		merged.ReplicationLag = results.ReplicationLag(summaries, sample, limit)
	}
	return merged
}

// observedTwice refuses observers in a second datacenter: status.results.replicationLag
// holds the lag to one, which every writer outside it observes (podenv.ObservedDatacenter).
func observedTwice(dcs []cbv1.RunDatacenter) string {
	first := -1
	for i, d := range dcs {
		switch {
		case d.Observers == 0:
		case first < 0:
			first = i
		default:
			return fmt.Sprintf("spec.datacenters[%d].observers: a run measures replication lag to one datacenter, and spec.datacenters[%d] (%s) "+
				"has observers already; remove one datacenter's observers, or measure the other in a run of its own", i, first, dcs[first].Name)
		}
	}
	return ""
}

// perDatacenter merges the summaries of each datacenter's writers alone (a writer's
// datacenter is the one its index falls in, podenv.WriterDatacenter), in the order of
// spec.datacenters; a datacenter none of whose writers reported is left out.
func perDatacenter(dcs []cbv1.RunDatacenter, summaries []*summary.Summary) []cbv1.DatacenterResults {
	byName := map[string][]*summary.Summary{}
	for _, s := range summaries {
		if s == nil {
			continue
		}
		if name, ok := podenv.WriterDatacenter(dcs, int(s.Index)); ok {
			byName[name] = append(byName[name], s)
		}
	}
	var out []cbv1.DatacenterResults
	for _, d := range dcs {
		m := results.MergeWith(byName[d.Name], results.Options{})
		if m == nil {
			continue
		}
		out = append(out, cbv1.DatacenterResults{Name: d.Name, WritersReported: m.WritersReported, Operations: m.Operations,
			OpsPerSecond: m.OpsPerSecond, Writes: m.Writes, Reads: m.Reads, Errors: m.Errors, TimeoutsPerOperation: m.TimeoutsPerOperation})
	}
	return out
}
