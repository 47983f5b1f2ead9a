package lending

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
)

// One table for the take chain and every holder: each row names its holder, and rows that
// differ only in the holder show that both go through the same check.

func TestTakeChain(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 5, 0, 0, time.UTC)
	key := types.NamespacedName{Namespace: "bench", Name: "dc1"}
	input := func(h datacenter.Holder) TakeInput {
		return TakeInput{Holder: h, Key: key, DC: dc1(3, origConfig, ""), Now: now, Deadline: now.Add(time.Minute), GaveUp: "gave up"}
	}
	refuseAll := func(in *TakeInput) (Take, bool) { return in.Refuse(cbv1.ReasonDatacenterUnsuitable, "unsuitable") }
	type want struct {
		Verdict Verdict
		Reason  string
		// Size is the recorded originals' size, 0 when the verdict records none.
		Size int32
	}
	cases := map[string]struct {
		holder    datacenter.Holder
		in        func(in *TakeInput)
		admission []Check
		want      want
		message   string
	}{
		"run: a free datacenter is locked": {holder: run,
			want: want{Verdict: Locking, Reason: cbv1.ReasonDatacenterUpdating, Size: 3}, message: "locking CassandraDatacenter bench/dc1"},
		"sweep: a free datacenter is locked": {holder: sweep,
			want: want{Verdict: Locking, Reason: cbv1.ReasonDatacenterUpdating, Size: 3}},
		"run: missing, before the deadline: wait": {holder: run, in: func(in *TakeInput) { in.DC = nil },
			want: want{Verdict: Waiting, Reason: cbv1.ReasonDatacenterNotFound}, message: "CassandraDatacenter bench/dc1 not found"},
		"sweep: missing past the deadline: refused": {holder: sweep, in: func(in *TakeInput) { in.DC, in.Deadline = nil, now },
			want: want{Verdict: Refused, Reason: cbv1.ReasonPrepareDeadlineExceeded}, message: "; gave up"},
		"run: not opted in: wait": {holder: run, in: func(in *TakeInput) { delete(in.DC.Annotations, cbv1.AllowBenchmarksAnnotation) },
			want: want{Verdict: Waiting, Reason: cbv1.ReasonDatacenterNotOptedIn}},
		"run: its own lock from an earlier pass: record": {holder: run, in: func(in *TakeInput) { in.DC = dc1(3, origConfig, "bench/r") },
			want: want{Verdict: Recording, Reason: cbv1.ReasonDatacenterUpdating, Size: 3}, message: "for the run and recorded its size 3"},
		"sweep: its own lock from an earlier pass: record": {holder: sweep, in: func(in *TakeInput) { in.DC = dc1(3, origConfig, "sweep:bench/sw") },
			want: want{Verdict: Recording, Reason: cbv1.ReasonDatacenterUpdating, Size: 3}, message: "for the sweep and recorded its size 3"},
		"sweep: its own lock and its originals: held": {holder: sweep, in: func(in *TakeInput) {
			in.DC, in.Recorded, in.Started = dc1(2, tunedConfig, "sweep:bench/sw"), recorded, true
		}, want: want{Verdict: Held, Reason: cbv1.ReasonLocked}},
		"run: lent by its sweep, not recorded: admitted, then the sweep's originals recorded": {holder: run, in: func(in *TakeInput) {
			in.DC, in.Lent = dc1(2, tunedConfig, "sweep:bench/sw"), recorded
		}, want: want{Verdict: Recording, Reason: cbv1.ReasonDatacenterUpdating, Size: 3}, message: "recorded the sweep's original size 3"},
		"run: lent by its sweep, but the datacenter refuses the run": {holder: run, admission: []Check{refuseAll}, in: func(in *TakeInput) {
			in.DC, in.Lent = dc1(2, tunedConfig, "sweep:bench/sw"), recorded
		}, want: want{Verdict: Refused, Reason: cbv1.ReasonDatacenterUnsuitable}, message: "unsuitable; the datacenter was not changed"},
		"run: its own lock from an earlier pass is not admitted again": {holder: run, admission: []Check{refuseAll},
			in:   func(in *TakeInput) { in.DC = dc1(3, origConfig, "bench/r") },
			want: want{Verdict: Recording, Reason: cbv1.ReasonDatacenterUpdating, Size: 3}},
		"run: the lock removed after it started: lost": {holder: run, in: func(in *TakeInput) { in.Started = true },
			want: want{Verdict: LockLost, Reason: cbv1.ReasonLockLost}, message: "was removed while the run held it"},
		"sweep: the lock removed after it started: lost": {holder: sweep, in: func(in *TakeInput) { in.Started, in.Recorded = true, recorded },
			want: want{Verdict: LockLost, Reason: cbv1.ReasonLockLost}, message: "was removed while the sweep held it"},
		"run: refused by its own admission check": {holder: run, admission: []Check{refuseAll},
			want: want{Verdict: Refused, Reason: cbv1.ReasonDatacenterUnsuitable}, message: "unsuitable; the datacenter was not changed"},
		"sweep: refused by its own admission check": {holder: sweep, admission: []Check{refuseAll},
			want: want{Verdict: Refused, Reason: cbv1.ReasonDatacenterUnsuitable}, message: "unsuitable; the sweep did not lock the datacenter and created no run"},
		"run: held by a live sweep: busy": {holder: run, in: func(in *TakeInput) { in.DC, in.HolderAlive = dc1(3, origConfig, "sweep:bench/other"), true },
			want: want{Verdict: Waiting, Reason: cbv1.ReasonDatacenterBusy}, message: "in use by BenchmarkSweep bench/other; the run starts when it is done"},
		"sweep: held by a live run: busy": {holder: sweep, in: func(in *TakeInput) { in.DC, in.HolderAlive = dc1(3, origConfig, "bench/other"), true },
			want: want{Verdict: Waiting, Reason: cbv1.ReasonDatacenterBusy}, message: "in use by BenchmarkRun bench/other; the sweep starts when it is done"},
		"run: a stale lock (its holder gone) is taken": {holder: run, in: func(in *TakeInput) { in.DC = dc1(3, origConfig, "bench/gone") },
			want: want{Verdict: Locking, Reason: cbv1.ReasonDatacenterUpdating, Size: 3}},
		"run: an older run's turn: queued, its place named": {holder: run, in: func(in *TakeInput) {
			in.Next, in.Position = types.NamespacedName{Namespace: "bench", Name: "older"}, 2
		}, want: want{Verdict: Waiting, Reason: cbv1.ReasonDatacenterBusy}, message: "next promised to BenchmarkRun bench/older, which waited for it first; the run starts when it is done (number 2 in the queue)"},
		"run: its own turn: locked": {holder: run, in: func(in *TakeInput) { in.Next, in.Position = run.NamespacedName, 1 },
			want: want{Verdict: Locking, Reason: cbv1.ReasonDatacenterUpdating, Size: 3}},
		"sweep: an older run waits: it goes first": {holder: sweep, in: func(in *TakeInput) { in.Next = types.NamespacedName{Namespace: "bench", Name: "early"} },
			want: want{Verdict: Waiting, Reason: cbv1.ReasonDatacenterBusy}, message: "next promised to BenchmarkRun bench/early, which waited for it first; the sweep starts when it is done"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := input(tc.holder)
			if tc.in != nil {
				tc.in(&in)
			}
			got := NewTakeChain(tc.admission, nil).Evaluate(in)
			g := want{Verdict: got.Verdict, Reason: got.Reason}
			if got.Originals != nil {
				g.Size = got.Originals.Size
			}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !strings.Contains(got.Message, tc.message) {
				t.Errorf("message %q does not contain %q", got.Message, tc.message)
			}
		})
	}
}

// Status written by the release before this one carried hadConfig beside originalConfig: it
// reads as the same originals.
func TestOriginalsOfStatusWrittenWithHadConfig(t *testing.T) {
	cases := map[string]struct {
		stored string
		want   *Originals
	}{
		"a datacenter that had a config": {stored: `{"name":"dc1","namespace":"bench","originalSize":3,"hadConfig":true,"originalConfig":` + origConfig + `,"size":5}`,
			want: &Originals{Size: 3, Config: json.RawMessage(origConfig)}},
		"a datacenter that had none": {stored: `{"name":"dc1","namespace":"bench","originalSize":3,"size":5}`,
			want: &Originals{Size: 3}},
		"nothing recorded yet": {stored: `{"name":"dc1","namespace":"bench"}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for kind, into := range map[string]func() *cbv1.HeldDatacenter{
				"run": func() *cbv1.HeldDatacenter {
					var st cbv1.DatacenterStatus
					if err := json.Unmarshal([]byte(tc.stored), &st); err != nil {
						t.Fatal(err)
					}
					return &st.HeldDatacenter
				},
				"sweep": func() *cbv1.HeldDatacenter {
					var st cbv1.HeldDatacenter
					if err := json.Unmarshal([]byte(tc.stored), &st); err != nil {
						t.Fatal(err)
					}
					return &st
				},
			} {
				got := OriginalsOf(into())
				if (got == nil) != (tc.want == nil) || got != nil && (got.Size != tc.want.Size || string(got.Config) != string(tc.want.Config)) {
					t.Errorf("%s: originals %+v, want %+v", kind, got, tc.want)
				}
			}
		})
	}
}

// What a holder stores reads back as what it recorded, through JSON as the apiserver keeps it.
func TestStoredReadsBack(t *testing.T) {
	for name, o := range map[string]Originals{
		"with a config": {Size: 3, Config: json.RawMessage(origConfig)},
		"without":       {Size: 1},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(cbv1.DatacenterStatus{HeldDatacenter: Stored(types.NamespacedName{Namespace: "bench", Name: "dc1"}, o), Size: 5})
			if err != nil {
				t.Fatal(err)
			}
			var st cbv1.DatacenterStatus
			if err := json.Unmarshal(b, &st); err != nil {
				t.Fatal(err)
			}
			got := OriginalsOf(&st.HeldDatacenter)
			if got == nil || got.Size != o.Size || string(got.Config) != string(o.Config) || st.Name != "dc1" || st.Namespace != "bench" {
				t.Errorf("stored %s, read back %+v", b, got)
			}
		})
	}
}
