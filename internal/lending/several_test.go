package lending

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// holderOf is one simulated holder of several datacenters: the run it is, the originals it
// recorded per datacenter, and whether it finished with them.
type holderOf struct {
	run      *cbv1.BenchmarkRun
	recorded map[types.NamespacedName]*Originals
	done     bool
}

func (h *holderOf) holder() datacenter.Holder {
	return datacenter.RunHolder(types.NamespacedName{Namespace: h.run.Namespace, Name: h.run.Name})
}

// lendingWorld is datacenters by key and the holders that need them, stepped one pass of one
// holder at a time as the controllers would, with the lock changes applied to the datacenters.
type lendingWorld struct {
	t       *testing.T
	dcs     map[types.NamespacedName]*cassdcapi.CassandraDatacenter
	holders []*holderOf
	now     time.Time
}

func (w *lendingWorld) alive(h datacenter.Holder) bool {
	for _, o := range w.holders {
		if o.holder() == h {
			return !o.done
		}
	}
	return false
}

// pass runs the ordered take for one holder and applies its verdict; it returns the index the
// holder stopped at and the verdict.
func (w *lendingWorld) pass(h *holderOf) (int, Take) {
	keys := datacenter.Keys(h.run)
	ins := make([]TakeInput, len(keys))
	for i, k := range keys {
		in := TakeInput{Holder: h.holder(), Key: k, DC: w.dcs[k], Recorded: h.recorded[k], Started: h.recorded[k] != nil,
			Now: w.now, Deadline: w.now.Add(time.Hour), GaveUp: "gave up"}
		if in.DC != nil {
			if other, locked := datacenter.LockHolder(in.DC); locked && other != h.holder() {
				in.HolderAlive = w.alive(other)
			}
		}
		ins[i] = in
	}
	i, t := NewTakeChain(nil, nil).EvaluateInOrder(ins)
	switch t.Verdict {
	case Locking:
		dc := w.dcs[keys[i]].DeepCopy()
		Apply(LockChange(h.holder(), cbv1.ConditionDatacenterReady), dc)
		w.dcs[keys[i]] = dc
	case Recording:
		h.recorded[keys[i]] = t.Originals
	case Held:
		w.giveBack(h)
	case Refused, LockLost:
		w.t.Fatalf("%s at %s: %v %s", h.holder(), keys[i], t.Verdict, t.Message)
	}
	return i, t
}

// giveBack releases every datacenter the holder locked, as its restore does once each is put
// back, and marks it done.
func (w *lendingWorld) giveBack(h *holderOf) {
	var dcs []*cassdcapi.CassandraDatacenter
	for _, dc := range w.dcs {
		dcs = append(dcs, dc)
	}
	for _, k := range HeldBy(h.holder(), dcs) {
		dc := w.dcs[k].DeepCopy()
		Apply(&Change{Lock: new(string)}, dc)
		w.dcs[k] = dc
	}
	h.done = true
}

// held are the datacenters whose lock is the holder's, in key order.
func (w *lendingWorld) held(h *holderOf) []string {
	var out []string
	for _, k := range datacenter.Keys(h.run) {
		if holder, locked := datacenter.LockHolder(w.dcs[k]); locked && holder == h.holder() {
			out = append(out, k.Name)
		}
	}
	return out
}

func severalRun(name string, dcs ...string) *holderOf {
	var named []cbv1.RunDatacenter
	for _, d := range dcs {
		named = append(named, cbv1.RunDatacenter{Name: d})
	}
	run := builders.MakeBenchmarkRun(name, "bench").Datacenters(named...).Obj()
	return &holderOf{run: run, recorded: map[types.NamespacedName]*Originals{}}
}

func newWorld(t *testing.T, names ...string) *lendingWorld {
	w := &lendingWorld{t: t, dcs: map[types.NamespacedName]*cassdcapi.CassandraDatacenter{}, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for _, n := range names {
		w.dcs[types.NamespacedName{Namespace: "bench", Name: n}] = builders.MakeDatacenter(n, "bench").Size(3).AllowBenchmarks("true").Obj()
	}
	return w
}

// Two runs that each need dc1 and dc2, one listing them the other way round, started together
// and stepped in turn: the one that locks dc1 takes dc2 too and finishes; the other waits at
// dc1 holding nothing all the while, then takes both and finishes. Neither ever holds dc2
// without dc1, so neither can wait for the other.
func TestTwoRunsNeedingBothDatacentersFinishInTurn(t *testing.T) {
	for _, first := range []int{0, 1} {
		t.Run(fmt.Sprintf("run %d steps first", first), func(t *testing.T) {
			w := newWorld(t, "dc1", "dc2")
			a, b := severalRun("a", "dc1", "dc2"), severalRun("b", "dc2", "dc1")
			w.holders = []*holderOf{a, b}
			order := []*holderOf{w.holders[first], w.holders[1-first]}
			var finished []string
			for pass := 0; pass < 40 && len(finished) < 2; pass++ {
				h := order[pass%2]
				if h.done {
					continue
				}
				i, take := w.pass(h)
				if take.Verdict == Held {
					finished = append(finished, h.run.Name)
					continue
				}
				held, prefix := w.held(h), names(datacenter.Keys(h.run))
				if len(held) > i+1 || (take.Verdict == Waiting && len(held) != i) || (len(held) > 0 && !cmp.Equal(held, prefix[:len(held)])) {
					t.Fatalf("pass %d: %s stopped at datacenter %d (%v %s) holding %v: it holds a datacenter past the one it waits for",
						pass, h.run.Name, i, take.Verdict, take.Message, held)
				}
				if take.Verdict == Waiting && take.Reason != cbv1.ReasonDatacenterBusy {
					t.Fatalf("pass %d: %s waits for %s: %s", pass, h.run.Name, take.Reason, take.Message)
				}
			}
			want := []string{order[0].run.Name, order[1].run.Name}
			if diff := cmp.Diff(want, finished); diff != "" {
				t.Fatalf("finished (-want +got):\n%s", diff)
			}
			for k, dc := range w.dcs {
				if _, locked := datacenter.LockHolder(dc); locked {
					t.Errorf("%s still locked: %s", k, dc.Annotations[cbv1.LockAnnotation])
				}
			}
		})
	}
}

// A run that took dc1 and waits for dc2, which a single-datacenter run holds, holds dc1 alone;
// deleted while it waits, it gives back dc1 and only dc1, with the originals it recorded there.
func TestARunWaitingForItsSecondDatacenterHoldsOnlyTheFirst(t *testing.T) {
	w := newWorld(t, "dc1", "dc2")
	other := builders.MakeBenchmarkRun("other", "bench").Datacenter("dc2").Obj()
	dc2 := types.NamespacedName{Namespace: "bench", Name: "dc2"}
	w.dcs[dc2] = builders.MakeDatacenter("dc2", "bench").Size(3).AllowBenchmarks("true").LockedBy("bench/other").Obj()
	single := &holderOf{run: other, recorded: map[types.NamespacedName]*Originals{dc2: {Size: 3}}}
	a := severalRun("a", "dc2", "dc1")
	w.holders = []*holderOf{single, a}

	var last Take
	var at int
	for pass := 0; pass < 5; pass++ {
		at, last = w.pass(a)
	}
	if at != 1 || last.Verdict != Waiting || last.Reason != cbv1.ReasonDatacenterBusy {
		t.Fatalf("stopped at %d with %v %s %q; want waiting for dc2, busy", at, last.Verdict, last.Reason, last.Message)
	}
	if diff := cmp.Diff([]string{"dc1"}, w.held(a)); diff != "" {
		t.Errorf("held while waiting (-want +got):\n%s", diff)
	}
	if got := a.recorded[types.NamespacedName{Namespace: "bench", Name: "dc1"}]; got == nil || got.Size != 3 {
		t.Errorf("originals of dc1: %+v", got)
	}
	var dcs []*cassdcapi.CassandraDatacenter
	for _, dc := range w.dcs {
		dcs = append(dcs, dc)
	}
	if diff := cmp.Diff([]types.NamespacedName{{Namespace: "bench", Name: "dc1"}}, HeldBy(a.holder(), dcs)); diff != "" {
		t.Errorf("what a deleted run gives back (-want +got):\n%s", diff)
	}
}

// Datacenters out of the one order are refused rather than taken: taking them in another
// order is what could deadlock.
func TestEvaluateInOrderRefusesAnotherOrder(t *testing.T) {
	now := metav1.Now().Time
	in := func(name string) TakeInput {
		return TakeInput{Holder: run, Key: types.NamespacedName{Namespace: "bench", Name: name},
			DC: builders.MakeDatacenter(name, "bench").AllowBenchmarks("true").Obj(), Now: now, Deadline: now.Add(time.Hour)}
	}
	i, take := NewTakeChain(nil, nil).EvaluateInOrder([]TakeInput{in("dc2"), in("dc1")})
	if i != 1 || take.Verdict != Refused {
		t.Errorf("dc2 before dc1: %d %v %s", i, take.Verdict, take.Message)
	}
	i, take = NewTakeChain(nil, nil).EvaluateInOrder([]TakeInput{in("dc1"), in("dc2")})
	if i != 0 || take.Verdict != Locking {
		t.Errorf("dc1 before dc2: %d %v %s; want dc1 locked first", i, take.Verdict, take.Message)
	}
}

func names(keys []types.NamespacedName) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.Name
	}
	return out
}
