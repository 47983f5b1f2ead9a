package controllers

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/disruption"
	"github.com/cassbench/cassbench/internal/lending"
)

// The disruptions of a run (spec.disruptions): the controller makes each at its time from
// the measured window's start, records what it did in status.disruptions, and, once the
// writers reported, reads each fault's recovery figures off their merged timeline
// (internal/disruption). A fault is recorded in one pass and made in the next, with the
// pod's UID as a precondition, so a pass whose status write failed never deletes a second pod.

// disruptPoll is how often a pass looks while a disruption is due or open: the datacenter's
// pods are not watched (they carry no label of the run), and a fault's end is when the new pod
// is Ready, which no event of the run or its datacenter says.
const disruptPoll = time.Second

// disruptAction is what the reconciler does for one disruption in this pass.
type disruptAction struct {
	// index of the disruption in status.disruptions (and spec.disruptions).
	index int
	kind  cbv1.DisruptionKind
	// pod is the Cassandra pod, with its UID and address when it was recorded.
	pod   types.NamespacedName
	uid   types.UID
	ip    string
	space string
	table string
}

// disruptionName is how a disruption is named in status and results: "DeletePod 2 at 20s".
func disruptionName(d cbv1.Disruption) string {
	return fmt.Sprintf("%s %d at %s", d.Kind, d.Node, d.At.Duration)
}

// removesPod tells whether a disruption ends its node's pod, so that it lasts until the pod
// cass-operator makes again is Ready.
func removesPod(k cbv1.DisruptionKind) bool {
	return k == cbv1.DisruptionDeletePod || k == cbv1.DisruptionDrain
}

// nodePods orders a datacenter's Cassandra pods as nodes are numbered: by rack, then by
// StatefulSet ordinal (the number after the name's last dash).
func nodePods(pods []corev1.Pod) []corev1.Pod {
	out := slices.Clone(pods)
	ordinal := func(p corev1.Pod) int {
		n, _ := strconv.Atoi(p.Name[strings.LastIndex(p.Name, "-")+1:])
		return n
	}
	slices.SortStableFunc(out, func(a, b corev1.Pod) int {
		if c := strings.Compare(a.Labels[cassdcapi.RackLabel], b.Labels[cassdcapi.RackLabel]); c != 0 {
			return c
		}
		if c := ordinal(a) - ordinal(b); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

func podReady(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func findPod(pods []corev1.Pod, name string) *corev1.Pod {
	for i := range pods {
		if pods[i].Name == name {
			return &pods[i]
		}
	}
	return nil
}

// disruptionsAllowed waits, until the prepare deadline, for a datacenter that does not carry
// AllowDisruptionsAnnotation="true", before the run takes it; and refuses a node the
// datacenter does not have. Once the run holds the datacenter, its owner's consent stands.
func (d *decider) disruptionsAllowed(in *lending.TakeInput) (stageResult, bool) {
	run, dc := d.run, d.o.dc
	if len(run.Spec.Disruptions) == 0 || run.Status.StartTime != nil {
		return stageResult{}, false
	}
	if v := strings.TrimSpace(dc.Annotations[cbv1.AllowDisruptionsAnnotation]); !strings.EqualFold(v, "true") {
		t, _ := in.WaitToFind(cbv1.ReasonDisruptionsNotAllowed, fmt.Sprintf(
			"CassandraDatacenter %s does not allow disruptions, and spec.disruptions deletes its pods, drains its nodes or compacts its tables: "+
				`annotate it with %s="true" to allow them, or remove spec.disruptions; the datacenter was not changed`,
			keyOf(dc), cbv1.AllowDisruptionsAnnotation))
		return d.taken(t), true
	}
	size := dc.Spec.Size
	if s := run.Spec.Datacenter; s != nil && s.Size != nil {
		size = *s.Size
	}
	for i, dis := range run.Spec.Disruptions {
		if dis.Node > size {
			var r stageResult
			r.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonInvalidSpec, fmt.Sprintf(
				"spec.disruptions[%d].node is %d, but CassandraDatacenter %s will have %d nodes; the datacenter was not changed",
				i, dis.Node, keyOf(dc), size))
			return r, true
		}
	}
	return stageResult{}, false
}

// windowStartEstimate is when the controller takes the measured window to start: the last
// writer's start plus the warm-up, as progress does. The writers meet at their barrier a
// moment after the last one started, so a disruption is made up to that moment early; the
// figures use the times it was made at against the window the writers measured.
func windowStartEstimate(run *cbv1.BenchmarkRun, writers []corev1.Pod) time.Time {
	last := lastStart(writers)
	if last.IsZero() {
		return last
	}
	if w := run.Spec.Writers.Warmup; w != nil {
		last = last.Add(w.Duration)
	}
	return last
}

// disrupt keeps the schedule while the writers run: it notes each fault's end, makes the one
// recorded in an earlier pass, and records the next one that is due.
func (d *decider) disrupt(writers []corev1.Pod, space, table string) stageResult {
	var r stageResult
	run := d.run
	if len(run.Spec.Disruptions) == 0 {
		return r
	}
	recs := slices.Clone(run.Status.Disruptions)
	if len(recs) != len(run.Spec.Disruptions) {
		recs = make([]cbv1.DisruptionRecord, len(run.Spec.Disruptions))
		for i, dis := range run.Spec.Disruptions {
			recs[i].Name = disruptionName(dis)
		}
	}
	for i := range recs {
		recs[i] = *recs[i].DeepCopy()
	}
	open := d.noteEnds(recs)
	act := d.pendingAction(recs, space, table)
	start := windowStartEstimate(run, writers)
	next, recorded := time.Duration(0), false
	if act == nil && !start.IsZero() {
		recorded, next = d.startDue(recs, start)
	}
	r.disrupt = act
	r.record(func(st *cbv1.BenchmarkRunStatus) { st.Disruptions = recs })
	if open || recorded || act != nil {
		r.requeueAt(disruptPoll)
	} else if next > 0 {
		r.requeue(next)
	}
	return r
}

// noteEnds ends each fault whose pod was made again and is Ready; it tells whether a fault
// is still open.
func (d *decider) noteEnds(recs []cbv1.DisruptionRecord) bool {
	open := false
	now := metav1.NewMicroTime(d.o.now)
	for i, rec := range recs {
		if rec.StartTime == nil || rec.EndTime != nil || rec.Message != "" {
			continue
		}
		kind := d.run.Spec.Disruptions[i].Kind
		if !removesPod(kind) {
			open = true // made in this or the next pass, which sets its end
			continue
		}
		if p := findPod(d.o.dcPods, rec.Pod); p != nil && string(p.UID) != rec.PodUID && podReady(p) {
			recs[i].EndTime = &now
			continue
		}
		open = true
	}
	return open
}

// pendingAction is the disruption recorded in an earlier pass and not made yet: a pod of the
// recorded UID that is not terminating, or a flush or compaction without an end.
func (d *decider) pendingAction(recs []cbv1.DisruptionRecord, space, table string) *disruptAction {
	for i, rec := range recs {
		if rec.StartTime == nil || rec.EndTime != nil || rec.Message != "" {
			continue
		}
		p := findPod(d.o.dcPods, rec.Pod)
		kind := d.run.Spec.Disruptions[i].Kind
		if p == nil || (removesPod(kind) && (string(p.UID) != rec.PodUID || p.DeletionTimestamp != nil)) {
			continue
		}
		return &disruptAction{index: i, kind: kind, pod: types.NamespacedName{Namespace: p.Namespace, Name: p.Name},
			uid: types.UID(rec.PodUID), ip: p.Status.PodIP, space: space, table: table}
	}
	return nil
}

// startDue records the first disruption that is due (its pod, and for one that removes the
// pod its UID), which the reconciler makes in the next pass, and tells whether it did; when
// none is due it returns how long until the next one is.
func (d *decider) startDue(recs []cbv1.DisruptionRecord, start time.Time) (bool, time.Duration) {
	nodes := nodePods(d.o.dcPods)
	var next time.Duration
	now := metav1.NewMicroTime(d.o.now)
	for i, dis := range d.run.Spec.Disruptions {
		if recs[i].StartTime != nil || recs[i].Message != "" {
			continue
		}
		if wait := start.Add(dis.At.Duration).Sub(d.o.now); wait > 0 {
			if next == 0 || wait < next {
				next = wait
			}
			continue
		}
		recs[i].StartTime = &now
		if int(dis.Node) > len(nodes) {
			recs[i].EndTime = &now
			recs[i].Message = fmt.Sprintf("not made: the datacenter has %d pods, no node %d", len(nodes), dis.Node)
			continue
		}
		p := nodes[dis.Node-1]
		recs[i].Pod = p.Name
		if removesPod(dis.Kind) {
			recs[i].PodUID = string(p.UID)
		}
		// Recorded now, made in the pass after this one's status is stored.
		return true, 0
	}
	return false, next
}

// settleDisruptions runs before the datacenter is given back: a disruption not made is
// skipped, and the restore waits (until its deadline) for every fault to end and the
// datacenter to be whole, every pod Ready at full size. It then fills results.disruptions.
func (d *decider) settleDisruptions(expired bool) stageResult {
	var r stageResult
	run := d.run
	if len(run.Spec.Disruptions) == 0 {
		return complete
	}
	recs := make([]cbv1.DisruptionRecord, len(run.Spec.Disruptions))
	for i, dis := range run.Spec.Disruptions {
		recs[i] = cbv1.DisruptionRecord{Name: disruptionName(dis)}
		if i < len(run.Status.Disruptions) {
			recs[i] = *run.Status.Disruptions[i].DeepCopy()
		}
	}
	now := metav1.NewMicroTime(d.o.now)
	for i, rec := range recs {
		made := rec.StartTime != nil && (removesPod(run.Spec.Disruptions[i].Kind) && d.podGone(rec) || rec.EndTime != nil)
		if !made && rec.Message == "" {
			recs[i].Message = "skipped: the writers were not running at its time"
			recs[i].EndTime = &now
		}
	}
	open := d.noteEnds(recs)
	whole, why := true, ""
	if removedAPod(recs) {
		whole, why = d.whole()
	}
	r.record(func(st *cbv1.BenchmarkRunStatus) {
		st.Disruptions = recs
		fillDisruptionFigures(st)
	})
	if (open || !whole) && !expired {
		if open {
			why = "a deleted pod is not Ready again"
		}
		r.set(cbv1.ConditionDatacenterRestored, metav1.ConditionFalse, cbv1.ReasonRestoring,
			"waiting for the datacenter to be whole again after the run's disruptions before giving it back: "+why)
		r.requeueAt(disruptPoll)
		return r
	}
	r.done = true
	return r
}

// removedAPod tells whether a disruption deleted a pod: only then is the datacenter's
// strength the run's to wait for.
func removedAPod(recs []cbv1.DisruptionRecord) bool {
	for _, rec := range recs {
		if rec.PodUID != "" && rec.Message == "" {
			return true
		}
	}
	return false
}

// podGone tells whether the pod a disruption recorded was deleted (or is being): it was made.
func (d *decider) podGone(rec cbv1.DisruptionRecord) bool {
	p := findPod(d.o.dcPods, rec.Pod)
	return p == nil || string(p.UID) != rec.PodUID || p.DeletionTimestamp != nil
}

// whole tells whether the datacenter is at full strength: as many pods as its size, every one
// Ready, and cass-operator settled; if not, what is missing.
func (d *decider) whole() (bool, string) {
	dc := d.o.dc
	if dc == nil {
		return true, ""
	}
	var missing []string
	if n := int32(len(d.o.dcPods)); n < dc.Spec.Size {
		missing = append(missing, fmt.Sprintf("%d of %d pods exist", n, dc.Spec.Size))
	}
	if pending := notReady(d.o.dcPods); len(pending) > 0 {
		missing = append(missing, "not Ready: "+strings.Join(pending, ", "))
	}
	if ok, why := datacenter.Ready(dc, 0); !ok {
		missing = append(missing, why)
	}
	return len(missing) == 0, strings.Join(missing, "; ")
}

// serverTimeline is the server evidence's timeline of res, nil when the nodes were not sampled.
func serverTimeline(res *cbv1.Results) *cbv1.ServerTimeline {
	if res.Server == nil {
		return nil
	}
	return res.Server.Timeline
}

// fillDisruptionFigures reads each made disruption's recovery figures off the merged timeline.
// Its times are the controller's, taken against the window's start the writers measured.
func fillDisruptionFigures(st *cbv1.BenchmarkRunStatus) {
	res := st.Results
	if res == nil {
		return
	}
	var obs []disruption.Observed
	start := res.WindowStart.Time
	for _, rec := range st.Disruptions {
		if rec.StartTime == nil || rec.Message != "" {
			continue
		}
		end := res.WindowEnd.Time
		if rec.EndTime != nil {
			end = rec.EndTime.Time
		}
		obs = append(obs, disruption.Observed{Name: rec.Name, Start: rec.StartTime.Sub(start), End: end.Sub(start)})
	}
	if len(obs) == 0 {
		res.Disruptions = nil
		return
	}
	spread := time.Duration(res.StartSpreadMillis) * time.Millisecond
	res.Disruptions = disruption.Figures(res.Timeline, serverTimeline(res), spread, 0, obs)
}
