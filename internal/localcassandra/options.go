package localcassandra

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Options are the command-line options of the cluster commands.
type Options struct {
	Nodes int
	// Datacenters spreads the nodes over that many datacenters of one cluster (see
	// NodeDatacenter); 0 and 1 are the plain cluster of one.
	Datacenters int
	Heap        string
	HeapSet     bool     // --heap was given (restart changes the heap only then)
	Sets        []string // key=value: top-level cassandra.yaml settings, value as YAML; key= removes
	JVMOpts     []string
	Auth        bool // PasswordAuthenticator + CassandraAuthorizer, superuser cassandra/cassandra
	Timeout     time.Duration
	Reset       bool // start: wipe a cluster of other options, or data of nodes beyond Nodes, first
	Node        int  // stop, restart, pause, resume: one node (0: all, where allowed)
	Kill        bool // stop with SIGKILL
	Force       bool // do not wait for processes holding users.lock
}

var (
	heapRE = regexp.MustCompile(`^[0-9]+[kKmMgG]$`)
	setRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
)

// DefaultOptions are the options of a command given none.
func DefaultOptions() Options {
	o := Options{Nodes: 1, Heap: "512M", Timeout: 180 * time.Second}
	if s, err := strconv.Atoi(os.Getenv("CASSANDRA_START_TIMEOUT")); err == nil && s >= 0 {
		o.Timeout = time.Duration(s) * time.Second
	}
	return o
}

// ParseOptions reads --nodes N, --datacenters D, --heap H, --set k=v, --jvm-opt O, --auth, --timeout S,
// --reset, --node i, --kill and --force, each also as --name=value.
func ParseOptions(args []string) (Options, error) {
	o := DefaultOptions()
	var nodes, timeout, node, dcs string
	nodes, timeout = "1", strconv.Itoa(int(o.Timeout/time.Second))
	for len(args) > 0 {
		name, value, inline := strings.Cut(args[0], "=")
		takesValue := map[string]bool{"--nodes": true, "--datacenters": true, "--heap": true, "--set": true, "--jvm-opt": true, "--timeout": true, "--node": true}[name]
		if takesValue && !inline {
			if len(args) < 2 {
				return o, fmt.Errorf("%s needs a value", name)
			}
			value = args[1]
			args = args[1:]
		} else if !takesValue && inline {
			return o, fmt.Errorf("unknown option: %s", args[0])
		}
		args = args[1:]
		switch name {
		case "--nodes":
			nodes = value
		case "--datacenters":
			dcs = value
		case "--heap":
			o.Heap, o.HeapSet = value, true
		case "--set":
			o.Sets = append(o.Sets, value)
		case "--jvm-opt":
			o.JVMOpts = append(o.JVMOpts, value)
		case "--auth":
			o.Auth = true
		case "--timeout":
			timeout = value
		case "--reset":
			o.Reset = true
		case "--node":
			node = value
		case "--kill":
			o.Kill = true
		case "--force":
			o.Force = true
		default:
			return o, fmt.Errorf("unknown option: %s", name)
		}
	}
	n, err := strconv.Atoi(nodes)
	if err != nil || n < 1 || n > 254 || !isDigits(nodes) {
		return o, fmt.Errorf("--nodes must be 1..254")
	}
	o.Nodes = n
	if dcs != "" {
		if o.Datacenters, err = strconv.Atoi(dcs); err != nil || o.Datacenters < 1 || o.Datacenters > o.Nodes || !isDigits(dcs) {
			return o, fmt.Errorf("--datacenters must be 1..--nodes")
		}
	}
	if !heapRE.MatchString(o.Heap) {
		return o, fmt.Errorf("--heap must look like 512M or 2G")
	}
	s, err := strconv.Atoi(timeout)
	if err != nil || !isDigits(timeout) {
		return o, fmt.Errorf("--timeout must be seconds")
	}
	o.Timeout = time.Duration(s) * time.Second
	if node != "" {
		if o.Node, err = strconv.Atoi(node); err != nil || o.Node < 1 || !isDigits(node) {
			return o, fmt.Errorf("--node must be a node number")
		}
	}
	for _, kv := range o.Sets {
		if !setRE.MatchString(kv) {
			return o, fmt.Errorf("--set wants key=value, got: %s", kv)
		}
	}
	return o, nil
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// ConfText is the canonical text of the cluster options, as nodes/cluster.conf stores it:
// equal text means an equal cluster.
func (o Options) ConfText(version string) string {
	var b strings.Builder
	auth := 0
	if o.Auth {
		auth = 1
	}
	fmt.Fprintf(&b, "version=%s\nnodes=%d\nheap=%s\nauth=%d", version, o.Nodes, o.Heap, auth)
	// Written only for several, so that a cluster of one keeps the text it always had.
	if o.Datacenters > 1 {
		fmt.Fprintf(&b, "\ndatacenters=%d", o.Datacenters)
	}
	for _, s := range o.Sets {
		b.WriteString("\nset=" + s)
	}
	for _, s := range o.JVMOpts {
		b.WriteString("\njvm_opt=" + s)
	}
	return b.String()
}

// Args renders the cluster options as the command line that ParseOptions reads.
func (o Options) Args() []string {
	args := []string{"--nodes", strconv.Itoa(o.Nodes), "--heap", o.Heap}
	if o.Datacenters > 1 {
		args = append(args, "--datacenters", strconv.Itoa(o.Datacenters))
	}
	for _, s := range o.Sets {
		args = append(args, "--set", s)
	}
	for _, s := range o.JVMOpts {
		args = append(args, "--jvm-opt", s)
	}
	if o.Auth {
		args = append(args, "--auth")
	}
	return args
}

// confValues returns every value of key in a key=value file's text, in order.
func confValues(text, key string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, key+"="); ok {
			out = append(out, v)
		}
	}
	return out
}

// confValue returns the last value of key, or "".
func confValue(text, key string) string {
	v := confValues(text, key)
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

func readText(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(data), "\n")
}
