package lending

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
)

// Originals are the datacenter's size and config as a holder recorded them before it changed
// anything.
type Originals struct {
	Size int32
	// Config is the original spec.config; nil when the datacenter had none.
	Config json.RawMessage
}

// Record reads the originals from the datacenter as it is now.
func Record(dc *cassdcapi.CassandraDatacenter) Originals {
	o := Originals{Size: dc.Spec.Size}
	if HasConfig(dc.Spec.Config) {
		o.Config = append(json.RawMessage(nil), dc.Spec.Config...)
	}
	return o
}

// OriginalsOf reads the originals a holder stored in its status; nil when it stored none.
// Status written by a release that also wrote hadConfig reads the same: that release set
// originalConfig exactly when it set hadConfig.
func OriginalsOf(h *cbv1.HeldDatacenter) *Originals {
	if h == nil || h.OriginalSize == nil {
		return nil
	}
	o := &Originals{Size: *h.OriginalSize}
	if h.OriginalConfig != nil && HasConfig(h.OriginalConfig.Raw) {
		o.Config = append(json.RawMessage(nil), h.OriginalConfig.Raw...)
	}
	return o
}

// Stored is what a holder stores in its status of the datacenter it holds and its originals.
func Stored(dc types.NamespacedName, o Originals) cbv1.HeldDatacenter {
	h := cbv1.HeldDatacenter{Name: dc.Name, Namespace: dc.Namespace, OriginalSize: ptr.To(o.Size)}
	if o.Config != nil {
		h.OriginalConfig = &runtime.RawExtension{Raw: append(json.RawMessage(nil), o.Config...)}
	}
	return h
}

// nounOf names the holder's kind in messages.
func nounOf(h datacenter.Holder) string {
	if h.Sweep {
		return "sweep"
	}
	return "run"
}

// statusOf names where a holder keeps its originals, for what to do by hand.
func statusOf(h datacenter.Holder) string {
	if h.Sweep {
		return "the sweep's status"
	}
	return "status"
}

// ByHand says how to put the datacenter back when the holder cannot.
func ByHand(h datacenter.Holder) string {
	return "restore it by hand from " + statusOf(h) + ".datacenter.originalSize and originalConfig (see docs/datacenter-lifecycle.md)"
}

// RefusedMessage is the one message of a write the apiserver refused for good (invalid,
// forbidden, malformed): what was refused and why, and, for a restore, what to do by hand.
func RefusedMessage(h datacenter.Holder, what string, err error, restore bool) string {
	msg := fmt.Sprintf("the apiserver refused %s: %v", what, err)
	if restore {
		msg += "; " + ByHand(h)
	}
	return msg
}

// Target is what a holder asks of a datacenter with these originals: the originals with
// the tuning's size and its config merged in. Each point of a sweep that holds the datacenter
// is merged into the sweep's originals, not into what the previous point left, so that two
// points differ only where their specs do.
func Target(orig Originals, tuning *cbv1.DatacenterTuning) (Values, error) {
	v := Values(orig)
	if tuning == nil {
		return v, nil
	}
	if tuning.Size != nil {
		v.Size = *tuning.Size
	}
	if tuning.Config != nil && len(datacenter.Sections(tuning.Config)) > 0 {
		merged, err := datacenter.MergeConfig(orig.Config, tuning.Config)
		if err != nil {
			return Values{}, fmt.Errorf("merging the config into the original: %w", err)
		}
		v.Config = merged
	}
	return v, nil
}

// HasConfig tells whether a spec.config holds anything: absent and JSON null are none.
func HasConfig(c json.RawMessage) bool {
	s := strings.TrimSpace(string(c))
	return s != "" && s != "null"
}

// Change is a patch of the datacenter: only the fields set change.
type Change struct {
	// What is the change in words, for errors and refusals.
	What string
	Size *int32
	// Config replaces spec.config when SetConfig is set (nil removes it).
	Config    json.RawMessage
	SetConfig bool
	// Lock sets ("namespace/name") or removes ("") the lock annotation; nil leaves it.
	Lock *string
	// Stage is the condition a refusal of this change fails.
	Stage string
	// Restore marks the change that puts the datacenter back.
	Restore bool
	// AllowUpdateOnce sets cass-operator's autoupdate-spec annotation to "once", so that it
	// rolls out a spec it reports observed but holds back (datacenter.UpdateHeld). The
	// operator removes the annotation itself after its next complete reconcile.
	AllowUpdateOnce bool
	// Nudge sets (the time) or removes ("") cbv1.ReconcileRequestedAnnotation, which brings
	// cass-operator's next reconcile at once; nil leaves it.
	Nudge *string
}

// Empty tells whether the change writes nothing.
func (c *Change) Empty() bool {
	return c == nil || (c.Lock == nil && c.Size == nil && !c.SetConfig && !c.AllowUpdateOnce && c.Nudge == nil)
}

// String says what the change writes, e.g. "size=3 config={...} lock=-", for logs and tests.
func (c *Change) String() string {
	if c == nil {
		return ""
	}
	var parts []string
	if c.Size != nil {
		parts = append(parts, fmt.Sprintf("size=%d", *c.Size))
	}
	if c.SetConfig {
		config := "null"
		if len(c.Config) > 0 {
			var b bytes.Buffer
			if err := json.Compact(&b, c.Config); err != nil {
				b.Reset()
				b.Write(c.Config)
			}
			config = b.String()
		}
		parts = append(parts, "config="+config)
	}
	if c.Lock != nil {
		v := *c.Lock
		if v == "" {
			v = "-"
		}
		parts = append(parts, "lock="+v)
	}
	if c.AllowUpdateOnce {
		parts = append(parts, "autoupdate=once")
	}
	if c.Nudge != nil {
		v := *c.Nudge
		if v == "" {
			v = "-"
		}
		parts = append(parts, "nudge="+v)
	}
	return strings.Join(parts, " ")
}

// Apply makes the change on a copy of the datacenter the caller patches with.
func Apply(c *Change, dc *cassdcapi.CassandraDatacenter) {
	if c.Size != nil {
		dc.Spec.Size = *c.Size
	}
	if c.SetConfig {
		dc.Spec.Config = append(json.RawMessage(nil), c.Config...)
	}
	if c.AllowUpdateOnce {
		if dc.Annotations == nil {
			dc.Annotations = map[string]string{}
		}
		dc.Annotations[cassdcapi.UpdateAllowedAnnotation] = string(cassdcapi.AllowUpdateOnce)
	}
	setAnnotation(dc, cbv1.ReconcileRequestedAnnotation, c.Nudge)
	setAnnotation(dc, cbv1.LockAnnotation, c.Lock)
}

// setAnnotation sets the annotation to v, removes it when v is "", leaves it when v is nil.
func setAnnotation(dc *cassdcapi.CassandraDatacenter, key string, v *string) {
	switch {
	case v == nil:
	case *v == "":
		delete(dc.Annotations, key)
	default:
		if dc.Annotations == nil {
			dc.Annotations = map[string]string{}
		}
		dc.Annotations[key] = *v
	}
}

// Final tells whether a DatacenterRestored condition ends giving back (see the package
// comment for why Refused is not among them).
func Final(c *metav1.Condition) bool {
	if c == nil {
		return false
	}
	switch c.Reason {
	case cbv1.ReasonRestoreStuck, cbv1.ReasonLockLost, cbv1.ReasonDatacenterDrifted:
		return true
	}
	return c.Status == metav1.ConditionTrue
}

// Finished tells whether a run has its final Succeeded condition: it needs its datacenter no
// more.
func Finished(run *cbv1.BenchmarkRun) bool {
	return meta.FindStatusCondition(run.Status.Conditions, cbv1.ConditionSucceeded) != nil
}

// Wait is a holder waiting for its datacenter to exist or admit it: until the deadline, then
// it gives up.
type Wait struct {
	Expired         bool
	Reason, Message string
	RequeueAfter    time.Duration
}

// WaitToFind waits for the datacenter until the deadline; gaveUp ends the message once it
// passed (which deadline, what was not done).
func WaitToFind(now, deadline time.Time, reason, msg, gaveUp string) Wait {
	if !now.Before(deadline) {
		return Wait{Expired: true, Reason: cbv1.ReasonPrepareDeadlineExceeded, Message: msg + "; " + gaveUp}
	}
	return Wait{Reason: reason, Message: fmt.Sprintf("%s (until %s)", msg, deadline.UTC().Format(time.RFC3339)),
		RequeueAfter: deadline.Sub(now) + time.Second}
}

// Queue orders the runs that wait for the datacenter: not finished, not being deleted, not
// done with their work (done says so), and admitted by the datacenter, so a refused run
// cannot block others. The oldest goes first.
func Queue(dc *cassdcapi.CassandraDatacenter, runs []cbv1.BenchmarkRun, done func(*cbv1.BenchmarkRun) bool) []cbv1.BenchmarkRun {
	var waiting []cbv1.BenchmarkRun
	for i := range runs {
		run := &runs[i]
		if Finished(run) || !run.DeletionTimestamp.IsZero() || done(run) {
			continue
		}
		if ok, _, _ := datacenter.Allows(dc, run.Namespace); ok {
			waiting = append(waiting, *run)
		}
	}
	return datacenter.Queue(waiting)
}
