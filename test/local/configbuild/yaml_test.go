package configbuild

import (
	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

const baseText = `# a comment the output drops
cluster_name: 'Test Cluster'
num_tokens: 16
concurrent_writes: 32
auto_snapshot: true
rpc_address: localhost
broadcast_address: 1.2.3.4
endpoint_snitch: SimpleSnitch
commitlog_directory: /var/lib/cassandra/commitlog
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1:7000"
client_encryption_options:
  enabled: true
  keystore: conf/.keystore
data_file_directories:
  - /a
  - /b
`

var node4 = Node{Rack: "r1", ListenIP: net.ParseIP("10.0.0.5"), BroadcastIP: net.ParseIP("10.0.0.5"), RPCIP: net.ParseIP("0.0.0.0")}

// rendered is what every case gets from the operator's overrides over the base above.
func rendered(changes map[string]any) map[string]any {
	m := map[string]any{
		"cluster_name": "bench", "num_tokens": 16, "concurrent_writes": 32, "auto_snapshot": true,
		"rpc_address": "0.0.0.0", "endpoint_snitch": "GossipingPropertyFileSnitch",
		"commitlog_directory": "/var/lib/cassandra/commitlog",
		"seed_provider": []any{map[string]any{
			"class_name": "org.apache.cassandra.locator.K8SeedProvider",
			"parameters": []any{map[string]any{"seeds": "bench-seed-service,bench-dc1-additional-seed-service"}},
		}},
		"client_encryption_options": map[string]any{"enabled": true, "keystore": "conf/.keystore"},
		"data_file_directories":     []any{"/a", "/b"},
		"listen_address":            "10.0.0.5",
		"broadcast_rpc_address":     "10.0.0.5",
	}
	for k, v := range changes {
		if v == deleted {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	return m
}

type deletedKey struct{}

var deleted = deletedKey{}

// TestCassandraYAML has one case per rule of CassandraYAML (builder.go createCassandraYaml
// and k8ssandraOverrides at k8ssandra-client v0.8.12).
func TestCassandraYAML(t *testing.T) {
	cases := map[string]struct {
		section string // cassandra-yaml, as JSON
		node    Node
		want    map[string]any
		text    string // a line the output must have
	}{
		"no section: overrides only":            {section: `{}`, want: rendered(nil)},
		"a number replaces, written quoted":     {section: `{"concurrent_writes": 64}`, want: rendered(map[string]any{"concurrent_writes": "64"}), text: `concurrent_writes: "64"`},
		"an unknown key is kept as it is":       {section: `{"concurent_writes": 64}`, want: rendered(map[string]any{"concurent_writes": "64"})},
		"a nested map merges key by key":        {section: `{"client_encryption_options": {"keystore": "/etc/ks"}}`, want: rendered(map[string]any{"client_encryption_options": map[string]any{"enabled": true, "keystore": "/etc/ks"}})},
		"a nested false cannot turn true off":   {section: `{"client_encryption_options": {"enabled": false}}`, want: rendered(nil)},
		"a top-level false wins":                {section: `{"auto_snapshot": false}`, want: rendered(map[string]any{"auto_snapshot": false})},
		"a top-level null writes null":          {section: `{"commitlog_directory": null}`, want: rendered(map[string]any{"commitlog_directory": nil}), text: "commitlog_directory: null"},
		"a list replaces the whole list":        {section: `{"data_file_directories": ["/c"]}`, want: rendered(map[string]any{"data_file_directories": []any{"/c"}})},
		"an empty list replaces too":            {section: `{"data_file_directories": []}`, want: rendered(map[string]any{"data_file_directories": []any{}})},
		"an empty string keeps the base":        {section: `{"commitlog_directory": ""}`, want: rendered(nil)},
		"another type replaces":                 {section: `{"client_encryption_options": "off"}`, want: rendered(map[string]any{"client_encryption_options": "off"})},
		"the user's seeds and snitch lose":      {section: `{"seed_provider": [], "endpoint_snitch": "Ec2Snitch", "cluster_name": "x", "listen_address": "1.1.1.1"}`, want: rendered(nil)},
		"broadcast_address goes":                {section: `{"broadcast_address": "9.9.9.9"}`, want: rendered(nil)},
		"a set rpc_address stays":               {section: `{"rpc_address": "10.0.0.5"}`, want: rendered(map[string]any{"rpc_address": "10.0.0.5"})},
		"rpc_address for IPv6 preference":       {section: `{"rpc_interface_prefer_ipv6": true}`, want: rendered(map[string]any{"rpc_address": "::", "rpc_interface_prefer_ipv6": true})},
		"an IPv6 pod listens on ::":             {section: `{}`, node: Node{ListenIP: net.ParseIP("fd00::5"), BroadcastIP: net.ParseIP("fd00::5"), RPCIP: net.ParseIP("::")}, want: rendered(map[string]any{"rpc_address": "::", "listen_address": "fd00::5", "broadcast_rpc_address": "fd00::5"})},
		"node_proximity NetworkTopology (5.1)":  {section: `{"node_proximity": "NetworkTopologyProximity"}`, want: rendered(map[string]any{"node_proximity": "NetworkTopologyProximity", "initial_location_provider": "RackDCFileLocationProvider", "endpoint_snitch": "SimpleSnitch"})},
		"another node_proximity: no snitch set": {section: `{"node_proximity": "Other"}`, want: rendered(map[string]any{"node_proximity": "Other", "endpoint_snitch": "SimpleSnitch"})},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in, err := ParseInput(`{"cluster-info": {"name": "bench", "seeds": "bench-seed-service,bench-dc1-additional-seed-service"}, "datacenter-info": {"name": "dc1"}, "cassandra-yaml": ` + tc.section + `}`)
			if err != nil {
				t.Fatal(err)
			}
			node := tc.node
			if node.ListenIP == nil {
				node = node4
			}
			out, err := CassandraYAML([]byte(baseText), in, node)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]any{}
			if err := yaml.Unmarshal(out, &got); err != nil {
				t.Fatalf("output is not YAML: %v\n%s", err, out)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("cassandra.yaml (-want +got):\n%s\n%s", d, out)
			}
			if tc.text != "" && !strings.Contains(string(out), tc.text+"\n") {
				t.Errorf("output has no line %q:\n%s", tc.text, out)
			}
			if strings.Contains(string(out), "#") {
				t.Errorf("output keeps comments:\n%s", out)
			}
		})
	}
}

func TestCassandraYAMLErrors(t *testing.T) {
	in, _ := ParseInput(`{"cassandra-yaml": {"node_proximity": 3}}`)
	if _, err := CassandraYAML([]byte(baseText), in, node4); err == nil || !strings.Contains(err.Error(), "node_proximity") {
		t.Errorf("node_proximity 3: error %v, want one naming node_proximity", err)
	}
	if _, err := CassandraYAML([]byte("a: [\n"), &Input{}, node4); err == nil || !strings.Contains(err.Error(), "base cassandra.yaml") {
		t.Errorf("bad base: error %v, want one naming the base", err)
	}
}
