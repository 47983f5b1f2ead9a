package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Setting is one cassandra-yaml key the run asked for, flattened the way
// system_views.settings names nested keys ("authenticator.class_name").
type Setting struct {
	Name string
	// Want is the value as text; CheckValue is false for lists and nulls, whose rendering in
	// the virtual table is not something a spec can be compared with.
	Want       string
	CheckValue bool
}

// ParseSettings flattens the spec's cassandra-yaml object into settings sorted by name.
func ParseSettings(raw []byte) ([]Setting, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep 0.1 and 10000000000 exactly as written
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("reading spec.datacenter.config.cassandra-yaml: %w", err)
	}
	var out []Setting
	flatten("", m, &out)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func flatten(prefix string, m map[string]any, out *[]Setting) {
	for k, v := range m {
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		switch v := v.(type) {
		case map[string]any:
			flatten(name, v, out)
		case nil, []any:
			*out = append(*out, Setting{Name: name})
		case json.Number:
			*out = append(*out, Setting{Name: name, Want: v.String(), CheckValue: true})
		case bool:
			*out = append(*out, Setting{Name: name, Want: strconv.FormatBool(v), CheckValue: true})
		default:
			*out = append(*out, Setting{Name: name, Want: fmt.Sprint(v), CheckValue: true})
		}
	}
}

// renames are the suffixes Cassandra 4.1 dropped when settings gained units
// (compaction_throughput_mb_per_sec became compaction_throughput, "64MiB/s"), with the unit
// a bare number under the old name meant.
var renames = []struct{ suffix, unit string }{
	{"_in_mb_per_sec", "MiB/s"},
	{"_mb_per_sec", "MiB/s"},
	{"_megabits_per_sec", "megabits/s"},
	{"_in_kb_per_sec", "KiB/s"},
	{"_kb_per_sec", "KiB/s"},
	{"_in_ms", "ms"},
	{"_ms", "ms"},
	{"_in_secs", "s"},
	{"_in_seconds", "s"},
	{"_seconds", "s"},
	{"_in_kb", "KiB"},
	{"_in_mb", "MiB"},
	{"_mb", "MiB"},
	{"_in_bytes", "B"},
	{"_in_minutes", "m"},
	{"_in_sec", "s"},
}

// renamedWhole are the options 4.1 and 5.0 renamed beyond their unit suffix (the @Replaces
// annotations of org.apache.cassandra.config.Config in cassandra-all 4.1.10 and 5.0.9), new
// name to old names; the unit of an old name still comes from its suffix (renames).
var renamedWhole = map[string][]string{
	"internode_timeout":                                  {"cross_node_timeout"},
	"internode_socket_send_buffer_size":                  {"internode_send_buff_size_in_bytes"},
	"internode_socket_receive_buffer_size":               {"internode_recv_buff_size_in_bytes"},
	"native_transport_max_request_data_in_flight":        {"native_transport_max_concurrent_requests_in_bytes"},
	"native_transport_max_request_data_in_flight_per_ip": {"native_transport_max_concurrent_requests_in_bytes_per_ip"},
	"trace_type_query_ttl":                               {"tracetype_query_ttl"},
	"trace_type_repair_ttl":                              {"tracetype_repair_ttl"},
	"user_defined_functions_warn_timeout":                {"user_defined_function_warn_timeout"},
	"user_defined_functions_fail_timeout":                {"user_defined_function_fail_timeout"},
	"keyspaces_warn_threshold":                           {"keyspace_count_warn_threshold"},
	"tables_warn_threshold":                              {"table_count_warn_threshold"},
	"partition_size_warn_threshold":                      {"compaction_large_partition_warning_threshold_mb", "compaction_large_partition_warning_threshold"},
	"partition_tombstones_warn_threshold":                {"compaction_tombstone_warning_threshold"},
}

// Lookup finds a setting on one node by the name asked for or, failing that, by its other
// name across the 4.1 renames (either direction), so a spec written for one Cassandra
// version verifies on another.
func Lookup(name string, values map[string]string) (found, value string, ok bool) {
	for _, n := range aliases(name) {
		if v, ok := values[n]; ok {
			return n, v, true
		}
	}
	return "", "", false
}

// aliases lists name first, then the names it may have under the other naming scheme.
func aliases(name string) []string {
	out := []string{name}
	for _, r := range renames {
		if base, ok := strings.CutSuffix(name, r.suffix); ok {
			out = append(out, base)
			break
		}
	}
	if !strings.Contains(name, "_in_") && !strings.HasSuffix(name, "_per_sec") {
		for _, r := range renames {
			out = append(out, name+r.suffix)
		}
	}
	for newName, olds := range renamedWhole {
		if name == newName {
			out = append(out, olds...)
		}
		if slices.Contains(olds, name) {
			out = append(out, newName)
		}
	}
	// 5.0 takes authenticator, authorizer, role_manager and network_authorizer as
	// {class_name: ...}, which system_views.settings shows as authenticator.class_name; 4.x
	// takes and shows a plain class name.
	if base, ok := strings.CutSuffix(name, ".class_name"); ok {
		out = append(out, base)
	} else if !strings.Contains(name, ".") {
		out = append(out, name+".class_name")
	}
	if base, ok := strings.CutPrefix(name, "enable_"); ok {
		out = append(out, base+"_enabled")
	}
	if base, ok := strings.CutSuffix(name, "_enabled"); ok {
		out = append(out, "enable_"+base)
	}
	return out
}

// oldUnits are the units of old names whose suffix does not say it.
var oldUnits = map[string]string{
	"tracetype_query_ttl":                "s",
	"tracetype_repair_ttl":               "s",
	"user_defined_function_warn_timeout": "ms",
	"user_defined_function_fail_timeout": "ms",
}

// impliedUnit is the unit a bare number means under this name.
func impliedUnit(name string) string {
	if u, ok := oldUnits[name]; ok {
		return u
	}
	for _, r := range renames {
		if strings.HasSuffix(name, r.suffix) {
			return r.unit
		}
	}
	return ""
}

// SameValue says whether a node's value found under foundName is the value wanted under
// name, allowing for the ways the same value is spelled: units ("48" under an _mb_per_sec
// name is "48MiB/s"; "10s" is "10000ms"), numbers ("64" and "64.0"), case of booleans and
// enums, and class names given without their package.
func SameValue(name, want, foundName, found string) bool {
	want, found = strings.TrimSpace(want), strings.TrimSpace(found)
	if strings.EqualFold(want, found) {
		return true
	}
	if strings.Contains(found, ".") && !strings.Contains(want, ".") && strings.HasSuffix(found, "."+want) {
		return true
	}
	wv, wu, wok := parseQuantity(want)
	fv, fu, fok := parseQuantity(found)
	if !wok || !fok {
		return false
	}
	if wu == "" {
		wu = impliedUnit(name)
	}
	if fu == "" {
		fu = impliedUnit(foundName)
	}
	// A bare number on one side means the other side's unit: the setting's own.
	if wu == "" {
		wu = fu
	}
	if fu == "" {
		fu = wu
	}
	wb, wdim, ok1 := toBase(wv, wu)
	fb, fdim, ok2 := toBase(fv, fu)
	if !ok1 || !ok2 || wdim != fdim {
		return false
	}
	return math.Abs(wb-fb) <= 1e-9*math.Max(math.Abs(wb), math.Abs(fb))
}

// parseQuantity splits "48MiB/s" into 48 and "MiB/s"; a bare number has no unit.
func parseQuantity(s string) (float64, string, bool) {
	i := 0
	for i < len(s) && (s[i] == '-' || s[i] == '+' || s[i] == '.' || s[i] == 'e' && i > 0 || s[i] >= '0' && s[i] <= '9') {
		i++
	}
	// "e" ends a number only when digits follow: "5ms" must not lose its unit to it.
	for i > 0 && s[i-1] == 'e' {
		i--
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, "", false
	}
	return v, strings.TrimSpace(s[i:]), true
}

type dimension int

const (
	dimNone dimension = iota
	dimTime
	dimBytes
	dimRate
)

var unitScale = map[string]struct {
	dim   dimension
	scale float64
}{
	"":   {dimNone, 1},
	"ns": {dimTime, 1e-9}, "us": {dimTime, 1e-6}, "µs": {dimTime, 1e-6}, "ms": {dimTime, 1e-3},
	"s": {dimTime, 1}, "m": {dimTime, 60}, "h": {dimTime, 3600}, "d": {dimTime, 86400},
	"B": {dimBytes, 1}, "KiB": {dimBytes, 1 << 10}, "MiB": {dimBytes, 1 << 20}, "GiB": {dimBytes, 1 << 30},
	"B/s": {dimRate, 1}, "KiB/s": {dimRate, 1 << 10}, "MiB/s": {dimRate, 1 << 20}, "GiB/s": {dimRate, 1 << 30},
	"megabits/s": {dimRate, 125000},
}

func toBase(v float64, unit string) (float64, dimension, bool) {
	u, ok := unitScale[unit]
	if !ok {
		return 0, 0, false
	}
	return v * u.scale, u.dim, true
}

// CheckNode compares the wanted settings with one node's system_views.settings and returns
// the first that is missing or different, naming the node, its Cassandra version (when
// known) and, where the node knows the setting by another name, that name: 4.0 knows options
// only by the names with units (write_request_timeout_in_ms: 2000), 5.0 shows the new ones
// (write_request_timeout: 2000ms), 4.1 both.
func CheckNode(node, version string, settings []Setting, values map[string]string) error {
	where := "node " + node
	if version != "" {
		where += " (Cassandra " + version + ")"
	}
	for _, s := range settings {
		foundName, found, ok := Lookup(s.Name, values)
		if !ok {
			if version == "" {
				return fmt.Errorf("setting %q is not a Cassandra setting (%s)", s.Name, where)
			}
			msg := fmt.Sprintf("setting %q is not a setting of Cassandra %s (node %s)", s.Name, version, node)
			if !strings.HasPrefix(version, "5.") {
				// An option of a later release, most likely: renamed ones are matched above.
				msg += "; the options this release knows are in its system_views.settings (cassbench matches the ones 4.1 renamed, such as write_request_timeout and write_request_timeout_in_ms, itself)"
			}
			return errors.New(msg)
		}
		if s.CheckValue && !SameValue(s.Name, s.Want, foundName, found) {
			if found == "" {
				found = "unset"
			}
			if foundName != s.Name {
				found += " (as " + foundName + describeUnit(foundName) + ")"
			}
			return fmt.Errorf("%s: %s is %s, wanted %s", where, s.Name, found, s.Want)
		}
	}
	return nil
}

// describeUnit names the unit a bare number means under name, for messages.
func describeUnit(name string) string {
	if u := impliedUnit(name); u != "" {
		return ", in " + u
	}
	return ""
}

// startupKeys are cassandra.yaml keys an existing node must keep: a node that finds a
// different value than the one its data was written with refuses to start (num_tokens,
// initial_token, partitioner: the token ring on disk; cluster_name: the one in system.local),
// so a rolling restart with them would take the datacenter down node by node.
var startupKeys = map[string]string{
	"num_tokens":    "the tokens a node owns are fixed when it first joins",
	"initial_token": "the tokens a node owns are fixed when it first joins",
	"partitioner":   "data on disk is placed by the partitioner it was written with",
	"cluster_name":  "a node checks the cluster name stored in its system keyspace",
}

// CheckStartupKeys refuses a cassandra-yaml key that would stop the datacenter's existing
// nodes from starting, naming it. A run cannot start from new nodes, so no value is safe.
func CheckStartupKeys(settings []Setting) error {
	for _, st := range settings {
		if why, ok := startupKeys[st.Name]; ok {
			return fmt.Errorf("spec.datacenter.config.cassandra-yaml.%s is refused: existing nodes would not start with a changed %s (%s); remove it, or set it on a new datacenter with cass-operator itself", st.Name, st.Name, why)
		}
	}
	return nil
}
