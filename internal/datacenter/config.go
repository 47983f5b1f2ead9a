// Package datacenter holds the pure logic the controller applies to a cass-operator
// CassandraDatacenter: merging a run's tuning into its config, deciding whether it is ready,
// whether it admits a run, and which run holds or gets it next.
package datacenter

import (
	"bytes"
	"encoding/json"
	"fmt"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Sections maps each DatacenterConfig section to its key in a datacenter's spec.config.
func Sections(c *cbv1.DatacenterConfig) map[string]*runtime.RawExtension {
	if c == nil {
		return nil
	}
	out := map[string]*runtime.RawExtension{}
	for key, raw := range map[string]*runtime.RawExtension{
		"cassandra-yaml":       c.CassandraYaml,
		"jvm-server-options":   c.JvmServerOptions,
		"jvm11-server-options": c.Jvm11ServerOptions,
		"jvm17-server-options": c.Jvm17ServerOptions,
		"cassandra-env-sh":     c.CassandraEnvSh,
	} {
		if raw != nil && len(raw.Raw) > 0 {
			out[key] = raw
		}
	}
	return out
}

// MergeConfig deep-merges the run's tuning into a datacenter's spec.config and returns the
// merged document. Objects merge key by key; any other value (scalars, lists) replaces the
// datacenter's. An empty original is treated as {}.
func MergeConfig(original json.RawMessage, tuning *cbv1.DatacenterConfig) (json.RawMessage, error) {
	base := map[string]any{}
	if len(bytes.TrimSpace(original)) > 0 && !bytes.Equal(bytes.TrimSpace(original), []byte("null")) {
		if err := json.Unmarshal(original, &base); err != nil {
			return nil, fmt.Errorf("reading the datacenter's spec.config: %w", err)
		}
	}
	for key, raw := range Sections(tuning) {
		var patch any
		if err := json.Unmarshal(raw.Raw, &patch); err != nil {
			return nil, fmt.Errorf("reading spec.datacenter.config.%s: %w", key, err)
		}
		base[key] = deepMerge(base[key], patch)
	}
	out, err := json.Marshal(base)
	if err != nil {
		return nil, fmt.Errorf("encoding the merged config: %w", err)
	}
	return out, nil
}

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

// SameJSON tells whether two JSON documents are equal as values, ignoring formatting and key
// order; two empty documents are equal.
func SameJSON(a, b json.RawMessage) bool {
	var av, bv any
	if len(bytes.TrimSpace(a)) > 0 {
		if json.Unmarshal(a, &av) != nil {
			return false
		}
	}
	if len(bytes.TrimSpace(b)) > 0 {
		if json.Unmarshal(b, &bv) != nil {
			return false
		}
	}
	ab, _ := json.Marshal(av)
	bb, _ := json.Marshal(bv)
	return bytes.Equal(ab, bb)
}

// CassandraYaml returns the run's cassandra-yaml settings as a flat map, for verification.
func CassandraYaml(t *cbv1.DatacenterTuning) (map[string]any, error) {
	if t == nil || t.Config == nil || t.Config.CassandraYaml == nil || len(t.Config.CassandraYaml.Raw) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	if err := json.Unmarshal(t.Config.CassandraYaml.Raw, &out); err != nil {
		return nil, fmt.Errorf("reading spec.datacenter.config.cassandra-yaml: %w", err)
	}
	return out, nil
}

// NativePort is the CQL port the datacenter's nodes listen on: native_transport_port from
// its cassandra-yaml, else Cassandra's default.
func NativePort(dc *cassdcapi.CassandraDatacenter) int32 {
	var config struct {
		CassandraYaml struct {
			Port *int32 `json:"native_transport_port"`
		} `json:"cassandra-yaml"`
	}
	if json.Unmarshal(dc.Spec.Config, &config) == nil && config.CassandraYaml.Port != nil && *config.CassandraYaml.Port > 0 {
		return *config.CassandraYaml.Port
	}
	return 9042
}
