// Package disruption schedules faults inside a local run (`cassbench run --disrupt`) and
// computes each one's recovery figures from the run's merged timeline. It does no I/O: the
// command stops and starts nodes, and hands the times it did so back here.
package disruption

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind is what a step of a schedule does.
type Kind string

// The steps a schedule may hold.
const (
	// StopNode stops a local node (SIGTERM, as hack/cassandra.sh stop does).
	StopNode Kind = "stop-node"
	// StartNode starts a stopped local node again and waits for it to serve CQL.
	StartNode Kind = "start-node"
	// Flush flushes the run's table on a node (nodetool flush).
	Flush Kind = "flush"
	// Compact major-compacts the run's table on a node (nodetool compact).
	Compact Kind = "compact"
)

// Step is one action of a schedule: Kind on Node (1-based, as hack/cassandra.sh counts
// them) At a time from the measured window's start.
type Step struct {
	Kind Kind
	Node int
	At   time.Duration
}

func (s Step) String() string {
	return fmt.Sprintf("%s %d at %s", s.Kind, s.Node, s.At)
}

// Disruption is one fault as the figures see it: a stop-node paired with the start-node of
// the same node that follows it, or a flush or compact on its own.
type Disruption struct {
	// Name is the steps, as the user wrote them ("stop-node 2 at 20s; start-node 2 at 40s").
	Name string
	Kind Kind
	Node int
	// Start and End are the planned times from the measured window's start; a flush or
	// compact ends when its command returns, so End is Start until the run fills it in.
	Start, End time.Duration
}

// Parse reads a schedule: steps separated by ";", each "KIND NODE at DURATION" with KIND one
// of stop-node, start-node, flush, compact, NODE a positive node number and DURATION a Go
// duration from the measured window's start. Every stop-node must be followed by a
// start-node of the same node (a node left stopped would spoil the next run); a node may not
// be stopped twice at once, nor started while up. Errors name the step.
func Parse(s string) ([]Step, error) {
	var steps []Step
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		st, err := parseStep(part)
		if err != nil {
			return nil, err
		}
		steps = append(steps, st)
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("no steps in %q: want for example \"stop-node 2 at 20s; start-node 2 at 40s\"", s)
	}
	slices.SortStableFunc(steps, func(a, b Step) int { return int(a.At - b.At) })
	if _, err := Pair(steps); err != nil {
		return nil, err
	}
	return steps, nil
}

func parseStep(part string) (Step, error) {
	f := strings.Fields(part)
	if len(f) != 4 || f[2] != "at" {
		return Step{}, fmt.Errorf("step %q: want \"KIND NODE at DURATION\", KIND one of stop-node, start-node, flush, compact", part)
	}
	k := Kind(f[0])
	switch k {
	case StopNode, StartNode, Flush, Compact:
	default:
		return Step{}, fmt.Errorf("step %q: unknown kind %q: want stop-node, start-node, flush or compact", part, f[0])
	}
	node, err := strconv.Atoi(f[1])
	if err != nil || node < 1 {
		return Step{}, fmt.Errorf("step %q: node %q is not a positive node number", part, f[1])
	}
	at, err := time.ParseDuration(f[3])
	if err != nil || at < 0 {
		return Step{}, fmt.Errorf("step %q: time %q is not a duration from the window's start (such as 20s)", part, f[3])
	}
	return Step{Kind: k, Node: node, At: at}, nil
}

// Pair turns steps sorted by time into disruptions: each stop-node with the next start-node
// of its node; a flush or compact alone.
func Pair(steps []Step) ([]Disruption, error) {
	var out []Disruption
	open := map[int]int{} // node -> index in out of its stop
	for _, st := range steps {
		switch st.Kind {
		case StopNode:
			if _, down := open[st.Node]; down {
				return nil, fmt.Errorf("step %q: node %d is already stopped", st, st.Node)
			}
			open[st.Node] = len(out)
			out = append(out, Disruption{Kind: StopNode, Node: st.Node, Start: st.At, End: st.At, Name: st.String()})
		case StartNode:
			i, down := open[st.Node]
			if !down {
				return nil, fmt.Errorf("step %q: node %d is not stopped before it", st, st.Node)
			}
			delete(open, st.Node)
			out[i].End = st.At
			out[i].Name += "; " + st.String()
		default:
			out = append(out, Disruption{Kind: st.Kind, Node: st.Node, Start: st.At, End: st.At, Name: st.String()})
		}
	}
	for node, i := range open {
		return nil, fmt.Errorf("step %q: node %d is never started again: add \"start-node %d at ...\"", out[i].Name, node, node)
	}
	return out, nil
}

// Check refuses a schedule that the run cannot measure: a step at or past the measured
// window's length, or on a node that is not one of nodes (the running local nodes by number).
func Check(steps []Step, window time.Duration, nodes []int) error {
	for _, st := range steps {
		if window > 0 && st.At >= window {
			return fmt.Errorf("step %q is at or past the end of the measured window (%s)", st, window)
		}
		if !slices.Contains(nodes, st.Node) {
			return fmt.Errorf("step %q: node %d is not a running local node (running: %v)", st, st.Node, nodes)
		}
	}
	return nil
}
