package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// JVMWant is what the spec's jvm*-server-options ask of every node's JVM, in the keys
// cass-operator's config builder takes (max_heap_size becomes -Xmx, initial_heap_size -Xms,
// garbage_collector one of its -XX:+Use...GC flags), plus -Xmx/-Xms/-XX:+Use...GC given
// verbatim in additional-jvm-opts.
type JVMWant struct {
	// MaxHeap and InitialHeap in bytes; 0 when the spec does not say. Key names the spec key
	// each came from, for messages.
	MaxHeap, InitialHeap       int64
	MaxHeapKey, InitialHeapKey string
	// GC is the collector flag wanted ("UseG1GC"); GCKey the spec key it came from.
	GC, GCKey string
}

// Empty says whether the spec asks nothing of the JVM that can be checked.
func (w JVMWant) Empty() bool { return w.MaxHeap == 0 && w.InitialHeap == 0 && w.GC == "" }

// gcFlags maps the config builder's garbage_collector values to the JVM flag each sets.
var gcFlags = map[string]string{
	"g1gc":       "UseG1GC",
	"g1":         "UseG1GC",
	"zgc":        "UseZGC",
	"shenandoah": "UseShenandoahGC",
	"cms":        "UseConcMarkSweepGC",
	"parallel":   "UseParallelGC",
	"serial":     "UseSerialGC",
}

// ParseJVM reads the heap and collector the spec asks for. The sections are read in the order
// cass-operator writes them into jvm options files, a later one overriding an earlier one.
func ParseJVM(cfg *cbv1.DatacenterConfig) (JVMWant, error) {
	var w JVMWant
	if cfg == nil {
		return w, nil
	}
	sections := []struct {
		name string
		raw  []byte
	}{
		{"jvm-server-options", rawOf(cfg.JvmServerOptions)},
		{"jvm11-server-options", rawOf(cfg.Jvm11ServerOptions)},
		{"jvm17-server-options", rawOf(cfg.Jvm17ServerOptions)},
	}
	for _, sec := range sections {
		if len(bytes.TrimSpace(sec.raw)) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(sec.raw, &m); err != nil {
			return w, fmt.Errorf("reading spec.datacenter.config.%s: %w", sec.name, err)
		}
		for _, k := range []string{"max_heap_size", "initial_heap_size"} {
			v, ok := m[k]
			if !ok || v == nil {
				continue
			}
			n, err := ParseJavaSize(fmt.Sprint(v))
			if err != nil {
				return w, fmt.Errorf("spec.datacenter.config.%s.%s: %w", sec.name, k, err)
			}
			if k == "max_heap_size" {
				w.MaxHeap, w.MaxHeapKey = n, sec.name+"."+k
			} else {
				w.InitialHeap, w.InitialHeapKey = n, sec.name+"."+k
			}
		}
		if v, ok := m["garbage_collector"].(string); ok && v != "" {
			flag, ok := gcFlags[strings.ToLower(v)]
			if !ok {
				return w, fmt.Errorf("spec.datacenter.config.%s.garbage_collector %q is not one cassbench can verify (G1GC, ZGC, Shenandoah, CMS)", sec.name, v)
			}
			w.GC, w.GCKey = flag, sec.name+".garbage_collector"
		}
		for _, opt := range additional(m["additional-jvm-opts"]) {
			key := sec.name + ".additional-jvm-opts"
			switch {
			case strings.HasPrefix(opt, "-Xmx"):
				if n, err := ParseJavaSize(opt[4:]); err == nil {
					w.MaxHeap, w.MaxHeapKey = n, key
				}
			case strings.HasPrefix(opt, "-Xms"):
				if n, err := ParseJavaSize(opt[4:]); err == nil {
					w.InitialHeap, w.InitialHeapKey = n, key
				}
			default:
				if m := gcFlag.FindStringSubmatch(opt); m != nil {
					w.GC, w.GCKey = m[1], key
				}
			}
		}
	}
	return w, nil
}

func rawOf(r *runtime.RawExtension) []byte {
	if r == nil {
		return nil
	}
	return r.Raw
}

// additional reads additional-jvm-opts, which the config builder takes as a list or a
// space-separated string.
func additional(v any) []string {
	switch v := v.(type) {
	case string:
		return strings.Fields(v)
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, strings.Fields(fmt.Sprint(e))...)
		}
		return out
	}
	return nil
}

var gcFlag = regexp.MustCompile(`^-XX:\+(Use(?:G1|Z|Shenandoah|ConcMarkSweep|Parallel|Serial)GC)$`)

// ParseJavaSize reads a size as -Xmx takes it: a number of bytes with an optional k, m, g or t
// suffix in either case ("8G", "800m"). A trailing "B" ("512MB", "512MiB") is allowed.
func ParseJavaSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "i")
	mult := int64(1)
	if t != "" {
		switch t[len(t)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		}
		if mult != 1 {
			t = t[:len(t)-1]
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a heap size (e.g. 8G, 800M)", s)
	}
	return n * mult, nil
}

// JVMSeen is what one node shows of its JVM.
type JVMSeen struct {
	// Args are the JVM's input arguments as Cassandra logged them at start ("JVM Arguments:
	// [...]"), read from system_views.system_logs; nil where that table is not fed.
	Args []string
	// Settings are the node's system_views.settings, from which the heap is derived when
	// Args are missing.
	Settings map[string]string
}

// ParseJVMArguments reads the argument list out of Cassandra's start-up line
// "JVM Arguments: [-Xms512M, -Xmx512M, ...]"; ok is false for any other line.
func ParseJVMArguments(line string) (args []string, ok bool) {
	i := strings.Index(line, "JVM Arguments: [")
	if i < 0 {
		return nil, false
	}
	body := line[i+len("JVM Arguments: ["):]
	body = strings.TrimSuffix(strings.TrimSpace(body), "]")
	for _, a := range strings.Split(body, ", ") {
		if a = strings.TrimSpace(a); a != "" {
			args = append(args, a)
		}
	}
	return args, true
}

// heapDerivers are settings Cassandra sets to a quarter of the JVM's maximum heap
// (Runtime.maxMemory, floored to MiB) when cassandra.yaml leaves them unset: the one view of
// the heap that every node answers through CQL alone.
var heapDerivers = []string{"memtable_heap_space", "memtable_offheap_space"}

// DerivedHeaps lists the maximum heap each derivable setting implies, in bytes, skipping
// those the spec sets itself (pinned).
func DerivedHeaps(settings map[string]string, pinned map[string]bool) map[string]int64 {
	out := map[string]int64{}
	for _, name := range heapDerivers {
		if pinned[name] || pinned[name+"_in_mb"] {
			continue
		}
		_, v, ok := Lookup(name, settings)
		if !ok || v == "" {
			continue
		}
		q, unit, ok := parseQuantity(v)
		if !ok {
			continue
		}
		if unit == "" {
			unit = "MiB"
		}
		b, dim, ok := toBase(q, unit)
		if !ok || dim != dimBytes || b <= 0 {
			continue
		}
		out[name] = int64(b) * 4
	}
	return out
}

// heapClose says whether a heap found through a quarter-heap setting is the heap wanted:
// the setting is floored to whole MiB (4 MiB of heap), G1 rounds the heap up to its region
// size (at most 32 MiB), and collectors that keep a survivor space out of Runtime.maxMemory
// (Serial, Parallel) report a few percent less than -Xmx. A heap off by a factor, which is
// what a setting that did not apply looks like, is far outside this.
func heapClose(want, found int64) bool {
	lo := want - want/20 - 4<<20
	hi := want + 32<<20
	return found >= lo && found <= hi
}

// Unread is a spec key that could not be checked on a node, and why.
type Unread struct{ Key, Reason string }

const notLogged = "readable only from the JVM arguments in system_views.system_logs, which this node does not keep"

// CheckJVM compares what the spec asks of the JVM with what one node shows. It returns the
// names of the spec keys verified, those that could not be read on this node, and an error
// naming node, key, wanted and found for the first that differs.
func CheckJVM(node string, want JVMWant, seen JVMSeen, pinned map[string]bool) (verified []string, unread []Unread, err error) {
	if want.Empty() {
		return nil, nil, nil
	}
	if seen.Args != nil {
		verified, err := checkJVMArgs(node, want, seen.Args)
		return verified, nil, err
	}
	return checkJVMSettings(node, want, seen.Settings, pinned)
}

// checkJVMArgs checks the heap and collector wanted against the JVM's own arguments.
func checkJVMArgs(node string, want JVMWant, args []string) (verified []string, err error) {
	var xmx, xms int64
	gc := ""
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-Xmx"):
			xmx, _ = ParseJavaSize(a[4:])
		case strings.HasPrefix(a, "-Xms"):
			xms, _ = ParseJavaSize(a[4:])
		default:
			if m := gcFlag.FindStringSubmatch(a); m != nil {
				gc = m[1]
			}
		}
	}
	checks := []struct {
		key         string
		want, found int64
	}{
		{want.MaxHeapKey, want.MaxHeap, xmx},
		{want.InitialHeapKey, want.InitialHeap, xms},
	}
	for _, c := range checks {
		if c.want == 0 {
			continue
		}
		if c.found != c.want {
			return verified, fmt.Errorf("node %s: %s is %s (JVM arguments), wanted %s", node, c.key, FormatSize(c.found), FormatSize(c.want))
		}
		verified = append(verified, c.key)
	}
	if want.GC != "" {
		if gc == "" {
			gc = "UseG1GC" // the JVM's own default since Java 9
		}
		if gc != want.GC {
			return verified, fmt.Errorf("node %s: %s is -XX:+%s (JVM arguments), wanted -XX:+%s", node, want.GCKey, gc, want.GC)
		}
		verified = append(verified, want.GCKey)
	}
	return verified, nil
}

// checkJVMSettings checks what it can without the JVM's arguments: the maximum heap from the
// memtable spaces Cassandra derives from it (system_views.settings); the rest is unread.
func checkJVMSettings(node string, want JVMWant, settings map[string]string, pinned map[string]bool) (verified []string, unread []Unread, err error) {
	if want.MaxHeap != 0 {
		derived := DerivedHeaps(settings, pinned)
		var matched bool
		var names []string
		var found int64
		agree := true
		for _, name := range heapDerivers {
			h, ok := derived[name]
			if !ok {
				continue
			}
			if heapClose(want.MaxHeap, h) {
				matched = true
			}
			if found != 0 && h != found {
				agree = false
			}
			found = h
			names = append(names, name)
		}
		switch {
		case matched:
			verified = append(verified, want.MaxHeapKey)
		case len(names) > 0 && agree:
			return verified, unread, fmt.Errorf("node %s: %s is %s (4 × %s in system_views.settings), wanted %s",
				node, want.MaxHeapKey, FormatSize(found), strings.Join(names, " and "), FormatSize(want.MaxHeap))
		default:
			unread = append(unread, Unread{want.MaxHeapKey, "memtable_heap_space and memtable_offheap_space are set explicitly, so the heap cannot be derived from them"})
		}
	}
	if want.InitialHeap != 0 {
		unread = append(unread, Unread{want.InitialHeapKey, notLogged})
	}
	if want.GC != "" {
		unread = append(unread, Unread{want.GCKey, notLogged})
	}
	return verified, unread, nil
}

// FormatSize renders bytes the way heap sizes are written: whole GiB as "8G", else whole MiB
// as "800M", else bytes.
func FormatSize(b int64) string {
	switch {
	case b == 0:
		return "unknown"
	case b%(1<<30) == 0:
		return fmt.Sprintf("%dG", b>>30)
	case b%(1<<20) == 0:
		return fmt.Sprintf("%dM", b>>20)
	}
	return strconv.FormatInt(b, 10)
}
