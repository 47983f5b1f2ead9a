package lending

import (
	"fmt"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
)

// Taking the datacenter is one chain of small checks for every holder, in the manner of
// cert-manager's certificate policy chains: the holder's controller gathers a TakeInput once
// per pass, the checks read it in order, and the first that decides ends the chain. The
// checks every holder runs are here; a holder passes its own admission checks (what the
// datacenter may not be asked by it) and its own waits (what must settle before it locks).

// TakeInput is what one pass read about a holder and the datacenter it wants.
type TakeInput struct {
	Holder datacenter.Holder
	// Key names the datacenter; DC is the datacenter, nil when it does not exist.
	Key types.NamespacedName
	DC  *cassdcapi.CassandraDatacenter
	// Recorded are the originals the holder stored in its status, nil before it stored any.
	Recorded *Originals
	// Started tells whether the holder held the datacenter in an earlier pass: a run's
	// startTime, a sweep's recorded originals. Without the lock it has lost it.
	Started bool
	// Lent are the originals the holder's sweep recorded when the sweep holds the datacenter
	// for it (restore atEnd); nil when it does not.
	Lent *Originals
	// HolderAlive tells whether the run or sweep in the lock, if another, still needs it.
	HolderAlive bool
	// Next is the waiting run whose turn it is, when it is not the holder's; Position is the
	// holder's place in the runs' queue (0 for a sweep, which lets only older runs go first).
	Next     types.NamespacedName
	Position int
	// Now and Deadline bound waiting for the datacenter to exist and admit the holder; GaveUp
	// ends the message once the deadline passed (which deadline, what was not done).
	Now, Deadline time.Time
	GaveUp        string
}

// noun names the holder in messages.
func (in *TakeInput) noun() string { return nounOf(in.Holder) }

// locked tells who holds the lock, and whether the holder does, itself or through its sweep.
func (in *TakeInput) locked() (holder datacenter.Holder, locked, mine bool) {
	holder, locked = datacenter.LockHolder(in.DC)
	return holder, locked, (locked && holder == in.Holder) || in.Lent != nil
}

// Verdict is what the holder does next about the datacenter.
type Verdict int

const (
	// Waiting: not yet; Reason and Message say why, RequeueAfter when a deadline bounds it.
	Waiting Verdict = iota
	// Refused: the datacenter will not be taken; Reason and Message say why.
	Refused
	// Locking: put the holder's lock on the datacenter (LockChange), conditional on the version
	// read, so that Originals, read from that version, are what was locked.
	Locking
	// Recording: the holder holds the datacenter; store Originals before anything changes it.
	Recording
	// Held: the holder holds the datacenter and stored its originals: it may use it.
	Held
	// LockLost: someone removed the lock after the holder started. The holder must not lock again:
	// it would record what it left as the originals.
	LockLost
)

// Take is the chain's verdict.
type Take struct {
	Verdict         Verdict
	Reason, Message string
	RequeueAfter    time.Duration
	// Originals to record (Locking, Recording): read from the datacenter, or the lending sweep's.
	Originals *Originals
}

// Check is one link of the chain: it decides, or leaves the decision to the next.
type Check func(in *TakeInput) (Take, bool)

// Chain is the checks in order; Evaluate runs them.
type Chain []Check

// NewTakeChain is the chain every holder runs: the datacenter exists, the holder's own lock
// (held, or lost), the datacenter opted in, then the holder's admission checks, the lock of a
// holder that still needs it, the queue, and the holder's waits before it locks.
func NewTakeChain(admission, waits []Check) Chain {
	c := Chain{Exists, OwnLock, LockKept, OptedIn}
	c = append(c, admission...)
	c = append(c, NotBusy, Turn)
	return append(c, waits...)
}

// Evaluate runs the checks in order. When none decides, the holder locks the datacenter, or
// records the originals if it holds it already.
func (c Chain) Evaluate(in TakeInput) Take {
	for _, check := range c {
		if t, ok := check(&in); ok {
			return t
		}
	}
	if _, _, mine := in.locked(); mine {
		return toRecord(&in)
	}
	return Take{Verdict: Locking, Reason: cbv1.ReasonDatacenterUpdating, Message: fmt.Sprintf("locking CassandraDatacenter %s", in.Key),
		Originals: ptr.To(Record(in.DC))}
}

// toRecord records the originals: the lending sweep's, or the datacenter's as it is.
func toRecord(in *TakeInput) Take {
	if in.Lent != nil {
		return Take{Verdict: Recording, Reason: cbv1.ReasonDatacenterUpdating, Originals: in.Lent, Message: fmt.Sprintf(
			"CassandraDatacenter %s is held by the run's sweep (restore atEnd); recorded the sweep's original size %d and config", in.Key, in.Lent.Size)}
	}
	orig := Record(in.DC)
	return Take{Verdict: Recording, Reason: cbv1.ReasonDatacenterUpdating, Originals: &orig, Message: RecordedMessage(in.Holder, in.Key, orig.Size)}
}

// RecordedMessage says that the holder locked the datacenter and recorded its originals.
func RecordedMessage(h datacenter.Holder, key types.NamespacedName, size int32) string {
	return fmt.Sprintf("locked CassandraDatacenter %s for the %s and recorded its size %d and config", key, nounOf(h), size)
}

// Exists waits for a datacenter that does not exist, until the deadline.
func Exists(in *TakeInput) (Take, bool) {
	if in.DC != nil {
		return Take{}, false
	}
	return in.WaitToFind(cbv1.ReasonDatacenterNotFound, fmt.Sprintf("CassandraDatacenter %s not found; waiting for it to be created", in.Key))
}

// OwnLock decides for a holder that holds the lock: held once its originals are stored, and
// until then recorded. A run its sweep lends the datacenter to goes on through the admission
// checks first: nothing checked it against the datacenter yet.
func OwnLock(in *TakeInput) (Take, bool) {
	if _, _, mine := in.locked(); !mine {
		return Take{}, false
	}
	if in.Recorded != nil {
		return Take{Verdict: Held, Reason: cbv1.ReasonLocked, Message: fmt.Sprintf(
			"the %s holds CassandraDatacenter %s and restores size %d and the original config when it is done",
			in.noun(), in.Key, in.Recorded.Size)}, true
	}
	if in.Lent != nil {
		return Take{}, false
	}
	// Locked by an earlier pass that did not get to write status: nothing changed the
	// datacenter since, because nothing uses it before the originals are stored.
	return toRecord(in), true
}

// LockKept fails a holder whose lock someone removed after it started.
func LockKept(in *TakeInput) (Take, bool) {
	if _, _, mine := in.locked(); mine || !in.Started {
		return Take{}, false
	}
	return Take{Verdict: LockLost, Reason: cbv1.ReasonLockLost, Message: fmt.Sprintf(
		"the lock annotation %s on CassandraDatacenter %s was removed while the %s held it", cbv1.LockAnnotation, in.Key, in.noun())}, true
}

// OptedIn waits, until the deadline, for a datacenter that did not opt in for the holder's
// namespace.
func OptedIn(in *TakeInput) (Take, bool) {
	if ok, reason, msg := datacenter.Allows(in.DC, in.Holder.Namespace); !ok {
		return in.WaitToFind(reason, msg)
	}
	return Take{}, false
}

// NotBusy waits, for as long as it takes, while another holder that still needs the
// datacenter holds it.
func NotBusy(in *TakeInput) (Take, bool) {
	holder, locked, mine := in.locked()
	if mine || !locked || !in.HolderAlive {
		return Take{}, false
	}
	return Take{Verdict: Waiting, Reason: cbv1.ReasonDatacenterBusy, Message: fmt.Sprintf(
		"CassandraDatacenter %s is in use by %s; the %s starts when it is done", in.Key, holder, in.noun())}, true
}

// Turn waits while an older run that waits for the datacenter goes first.
func Turn(in *TakeInput) (Take, bool) {
	if _, _, mine := in.locked(); mine || in.Next == (types.NamespacedName{}) || in.Next == in.Holder.NamespacedName {
		return Take{}, false
	}
	msg := fmt.Sprintf("CassandraDatacenter %s is next promised to BenchmarkRun %s, which waited for it first; the %s starts when it is done",
		in.Key, in.Next, in.noun())
	if in.Position > 0 {
		msg += fmt.Sprintf(" (number %d in the queue)", in.Position)
	}
	return Take{Verdict: Waiting, Reason: cbv1.ReasonDatacenterBusy, Message: msg}, true
}

// Refuse is an admission check's refusal, saying that nothing was changed: a run's refusal
// leaves the datacenter as it was, a sweep's also means it created no run.
func (in *TakeInput) Refuse(reason, msg string) (Take, bool) {
	untouched := "the datacenter was not changed"
	if in.Holder.Sweep {
		untouched = "the sweep did not lock the datacenter and created no run"
	}
	return Take{Verdict: Refused, Reason: reason, Message: msg + "; " + untouched}, true
}

// WaitToFind waits for the datacenter until the input's deadline, then fails.
func (in *TakeInput) WaitToFind(reason, msg string) (Take, bool) {
	w := WaitToFind(in.Now, in.Deadline, reason, msg, in.GaveUp)
	if w.Expired {
		return Take{Verdict: Refused, Reason: w.Reason, Message: w.Message}, true
	}
	return Take{Verdict: Waiting, Reason: w.Reason, Message: w.Message, RequeueAfter: w.RequeueAfter}, true
}

// LockChange is the patch that puts the holder's lock on the datacenter; stage is the
// condition its refusal fails.
func LockChange(holder datacenter.Holder, stage string) *Change {
	return &Change{What: "locking", Lock: ptr.To(datacenter.LockValue(holder)), Stage: stage}
}
