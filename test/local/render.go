package local

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// NodeSettings are a node's departures from the script's base config: cassandra.yaml keys with
// their values as YAML, and the heap.
type NodeSettings struct {
	Yaml map[string]string
	Heap string
}

// render turns a CassandraDatacenter's spec.config into node settings the way cass-operator's
// config builder for Cassandra 4.1 and newer (k8ssandra-client) does: every cassandra-yaml
// key is deep-merged into the base cassandra.yaml as it is, known to Cassandra or not (so a
// misspelt key reaches Cassandra, which refuses to start), a null removes the key, and of
// jvm-server-options the heap sizes become -Xms/-Xmx. What the local nodes cannot take is
// returned as notes rather than applied.
func render(config json.RawMessage, base map[string]any) (NodeSettings, []string, error) {
	s := NodeSettings{Yaml: map[string]string{}}
	trimmed := bytes.TrimSpace(config)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return s, nil, nil
	}
	var sections map[string]any
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber() // 64 stays 64, as the config builder keeps it
	if err := dec.Decode(&sections); err != nil {
		return s, nil, fmt.Errorf("spec.config is not a JSON object: %w", err)
	}
	var notes []string
	for _, section := range sortedKeys(sections) {
		value := sections[section]
		fields, ok := value.(map[string]any)
		if !ok {
			return s, nil, fmt.Errorf("spec.config.%s is not an object", section)
		}
		switch section {
		case "cassandra-yaml":
			for _, k := range sortedKeys(fields) {
				v := fields[k]
				if v == nil {
					s.Yaml[k] = ""
					continue
				}
				text, err := json.Marshal(deepMerge(base[k], v))
				if err != nil {
					return s, nil, fmt.Errorf("spec.config.cassandra-yaml.%s: %w", k, err)
				}
				s.Yaml[k] = string(text) // JSON is YAML
			}
		case "jvm-server-options":
			for _, k := range sortedKeys(fields) {
				v := fmt.Sprint(fields[k])
				switch k {
				case "max_heap_size":
					s.Heap = v
				case "initial_heap_size":
					if fields["max_heap_size"] == nil {
						s.Heap = v
					} else if fmt.Sprint(fields["max_heap_size"]) != v {
						notes = append(notes, fmt.Sprintf("initial_heap_size %s differs from max_heap_size; local nodes run with -Xms equal to -Xmx", v))
					}
				default:
					notes = append(notes, "jvm-server-options."+k+" is not applied to local nodes")
				}
			}
			if s.Heap != "" && !heapSize.MatchString(s.Heap) {
				return s, nil, fmt.Errorf("spec.config.jvm-server-options heap size %q is not like 512M or 2G", s.Heap)
			}
		default:
			notes = append(notes, "spec.config."+section+" is not applied to local nodes")
		}
	}
	return s, notes, nil
}

// args renders settings as restart options (hack/cassandra.sh restart, localcassandra.ParseOptions). Keys the node was given before
// (applied) and no longer wants go back to their base values, or are removed when the base
// config has none.
func (s NodeSettings) args(applied *NodeSettings, base map[string]any, defaultHeap string) []string {
	heap := s.Heap
	if heap == "" {
		heap = defaultHeap
	}
	out := []string{"--heap", heap}
	for _, k := range sortedKeys(s.Yaml) {
		out = append(out, "--set", k+"="+s.Yaml[k])
	}
	if applied != nil {
		for _, k := range sortedKeys(applied.Yaml) {
			if _, still := s.Yaml[k]; still {
				continue
			}
			v := ""
			if b, ok := base[k]; ok && b != nil {
				text, err := json.Marshal(b)
				if err == nil {
					v = string(text)
				}
			}
			out = append(out, "--set", k+"="+v)
		}
	}
	return out
}

// Equal tells whether two settings render the same node.
func (s NodeSettings) Equal(o NodeSettings) bool {
	if s.Heap != o.Heap || len(s.Yaml) != len(o.Yaml) {
		return false
	}
	for k, v := range s.Yaml {
		if w, ok := o.Yaml[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func (s NodeSettings) String() string {
	var parts []string
	for _, k := range sortedKeys(s.Yaml) {
		parts = append(parts, k+"="+s.Yaml[k])
	}
	if s.Heap != "" {
		parts = append(parts, "heap="+s.Heap)
	}
	if len(parts) == 0 {
		return "base config"
	}
	return strings.Join(parts, " ")
}

// deepMerge merges src into dst as the config builder does: maps key by key, anything else
// replaced.
func deepMerge(dst, src any) any {
	d, dok := dst.(map[string]any)
	s, sok := src.(map[string]any)
	if !dok || !sok {
		return src
	}
	out := make(map[string]any, len(d)+len(s))
	for k, v := range d {
		out[k] = v
	}
	for k, v := range s {
		out[k] = deepMerge(out[k], v)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
