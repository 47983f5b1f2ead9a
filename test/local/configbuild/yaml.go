package configbuild

import (
	"fmt"
	"reflect"

	"gopkg.in/yaml.v3"
)

// Base config file names (builder.go createCassandraYaml): Cassandra 5.0 images ship
// cassandra_latest.yaml, which wins over cassandra.yaml when both are there.
const (
	baseYAML   = "cassandra.yaml"
	latestYAML = "cassandra_latest.yaml"
)

// CassandraYAML renders cassandra.yaml from the base file's text (builder.go
// createCassandraYaml, then k8ssandraOverrides):
//  1. the base is parsed, which drops its comments;
//  2. the cassandra-yaml section is deep-merged into it (see merge);
//  3. at the top level a boolean always wins, even false, and a null removes nothing but
//     writes null (upstream's fix-ups after goalesce);
//  4. the operator's settings win over everything (overrides).
//
// Output is gopkg.in/yaml.v3's (v3.0.1, the version upstream pins), as upstream writes it:
// keys sorted, four-space indent.
func CassandraYAML(base []byte, in *Input, node Node) ([]byte, error) {
	doc := map[string]any{}
	if err := yaml.Unmarshal(base, &doc); err != nil {
		return nil, fmt.Errorf("base cassandra.yaml: %w", err)
	}
	merged, _ := merge(doc, in.CassYaml).(map[string]any)
	if merged == nil {
		merged = map[string]any{}
	}
	for k, v := range in.CassYaml {
		switch v.(type) {
		case bool, nil:
			merged[k] = v
		}
	}
	if err := overrides(merged, in, node); err != nil {
		return nil, err
	}
	// Numbers of the section are json.Number, a string type, so yaml.v3 writes them quoted
	// ("256"), as upstream does (its builder_test.go TestCassandraYamlWriting reads num_tokens
	// back as "256"); Cassandra's loader converts them by the property's type.
	out, err := yaml.Marshal(merged)
	if err != nil {
		return nil, fmt.Errorf("writing cassandra.yaml: %w", err)
	}
	return out, nil
}

// merge is goalesce.DeepMerge(base, user) with its default options, which upstream uses
// (github.com/adutra/goalesce at 132a3887da57, README "Merging" and map.go, interface.go):
// a missing or null user value keeps the base one; values of different types take the
// user's; two maps merge key by key; two lists take the user's whole (atomic); two scalars
// of one type take the user's unless it is its type's zero value (false, "", 0), which
// keeps the base one. So a nested false cannot turn a base true off, a quirk upstream has.
func merge(base, user any) any {
	switch {
	case user == nil:
		return base
	case base == nil:
		return user
	case reflect.TypeOf(base) != reflect.TypeOf(user):
		return user
	}
	switch u := user.(type) {
	case map[string]any:
		b := base.(map[string]any)
		out := make(map[string]any, len(b)+len(u))
		for k, v := range b {
			out[k] = v
		}
		for k, v := range u {
			if bv, ok := b[k]; ok {
				out[k] = merge(bv, v)
			} else {
				out[k] = v
			}
		}
		return out
	case []any:
		return u
	}
	if reflect.ValueOf(user).IsZero() {
		return base
	}
	return user
}

// overrides are the settings the operator's pods must have whatever the user asks
// (builder.go k8ssandraOverrides).
func overrides(m map[string]any, in *Input, node Node) error {
	m["seed_provider"] = []any{map[string]any{
		"class_name": "org.apache.cassandra.locator.K8SeedProvider",
		"parameters": []any{map[string]any{"seeds": in.ClusterInfo.Seeds}},
	}}
	m["listen_address"] = node.ListenIP.String()
	// rpc_address only when it is "" or localhost: a missing key stays missing.
	if m["rpc_address"] == "" || m["rpc_address"] == "localhost" {
		if v6, ok := m["rpc_interface_prefer_ipv6"].(bool); ok && v6 {
			m["rpc_address"] = "::"
		} else {
			m["rpc_address"] = node.RPCIP.String()
		}
	}
	delete(m, "broadcast_address") // Cassandra then broadcasts listen_address
	m["broadcast_rpc_address"] = node.BroadcastIP.String()
	// Cassandra 5.1 replaces endpoint_snitch with node_proximity.
	if p, found := m["node_proximity"]; found {
		s, ok := p.(string)
		if !ok {
			return fmt.Errorf("cassandra-yaml.node_proximity is %v, not a class name", p)
		}
		if s == "NetworkTopologyProximity" {
			m["initial_location_provider"] = "RackDCFileLocationProvider"
		}
	} else {
		m["endpoint_snitch"] = "GossipingPropertyFileSnitch"
	}
	m["cluster_name"] = in.ClusterInfo.Name
	return nil
}
