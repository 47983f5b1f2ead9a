package disruption

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	s := time.Second
	steps, err := Parse(" start-node 2 at 40s; stop-node 2 at 20s ;flush 1 at 5s; ")
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{{Flush, 1, 5 * s}, {StopNode, 2, 20 * s}, {StartNode, 2, 40 * s}}
	if !reflect.DeepEqual(steps, want) {
		t.Fatalf("got %v, want %v", steps, want)
	}
	ds, err := Pair(steps)
	if err != nil {
		t.Fatal(err)
	}
	wantD := []Disruption{
		{Name: "flush 1 at 5s", Kind: Flush, Node: 1, Start: 5 * s, End: 5 * s},
		{Name: "stop-node 2 at 20s; start-node 2 at 40s", Kind: StopNode, Node: 2, Start: 20 * s, End: 40 * s},
	}
	if !reflect.DeepEqual(ds, wantD) {
		t.Fatalf("got %+v, want %+v", ds, wantD)
	}
}

func TestParseRefuses(t *testing.T) {
	for in, want := range map[string]string{
		"":                   "no steps",
		"stop-node 2":        `want "KIND NODE at DURATION"`,
		"reboot 2 at 1s":     `unknown kind "reboot"`,
		"flush x at 1s":      `node "x" is not a positive node number`,
		"flush 0 at 1s":      `node "0"`,
		"flush 1 at soon":    `time "soon"`,
		"flush 1 at -1s":     `time "-1s"`,
		"stop-node 2 at 1s":  "node 2 is never started again",
		"start-node 2 at 1s": "node 2 is not stopped before it",
		"stop-node 2 at 1s; stop-node 2 at 2s; start-node 2 at 3s": "node 2 is already stopped",
	} {
		_, err := Parse(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", in, err, want)
		}
	}
}

func TestCheck(t *testing.T) {
	steps, err := Parse("stop-node 2 at 20s; start-node 2 at 40s")
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(steps, time.Minute, []int{1, 2}); err != nil {
		t.Errorf("in the window on a local node: %v", err)
	}
	if err := Check(steps, 40*time.Second, []int{1, 2}); err == nil || !strings.Contains(err.Error(), `"start-node 2 at 40s" is at or past the end of the measured window (40s)`) {
		t.Errorf("past the window: %v", err)
	}
	if err := Check(steps, time.Minute, []int{1}); err == nil || !strings.Contains(err.Error(), "node 2 is not a running local node (running: [1])") {
		t.Errorf("not a local node: %v", err)
	}
}
