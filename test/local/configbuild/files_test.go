package configbuild

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// configFileData is CONFIG_FILE_DATA as cass-operator v1.31 writes it for a datacenter with
// a config section (pkg/reconciliation/construct_podtemplatespec.go: the spec.config keys
// plus cluster-info and datacenter-info).
const configFileData = `{
  "cassandra-env-sh": {"malloc-arena-max": 8, "additional-jvm-opts": ["-Dcassandra.system_distributed_replication=dc1:1"]},
  "cassandra-yaml": {"concurrent_writes": 64},
  "cluster-info": {"name": "bench", "seeds": "bench-seed-service,bench-dc1-additional-seed-service"},
  "datacenter-info": {"graph-enabled": 0, "name": "dc1", "solr-enabled": 0, "spark-enabled": 0},
  "jvm-server-options": {"initial_heap_size": "512M", "max_heap_size": "512M"},
  "future-section": {"x": 1}
}`

func TestParseInput(t *testing.T) {
	in, err := ParseInput(configFileData)
	if err != nil {
		t.Fatal(err)
	}
	want := &Input{
		ClusterInfo:    ClusterInfo{Name: "bench", Seeds: "bench-seed-service,bench-dc1-additional-seed-service"},
		DatacenterInfo: DatacenterInfo{Name: "dc1"},
		CassYaml:       map[string]any{"concurrent_writes": json.Number("64")},
		ServerOptions:  map[string]any{"initial_heap_size": "512M", "max_heap_size": "512M"},
		CassandraEnv:   EnvOptions{MallocArenaMax: 8, AdditionalOpts: []string{"-Dcassandra.system_distributed_replication=dc1:1"}},
	}
	if d := cmp.Diff(want, in); d != "" {
		t.Errorf("input (-want +got):\n%s", d)
	}
	for data, wantErr := range map[string]string{
		`{`:                             "CONFIG_FILE_DATA: unexpected EOF",
		`{"cluster-info": {"name": 3}}`: "cluster-info.name",
		`{"cassandra-env-sh": {"malloc-arena-max": "eight"}}`: "malloc-arena-max",
	} {
		if _, err := ParseInput(data); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: error %v, want one saying %q", data, err, wantErr)
		}
	}
}

func TestNodeFromEnv(t *testing.T) {
	cases := map[string]struct {
		env  map[string]string
		want Node
		err  string
	}{
		"IPv4 pod": {env: map[string]string{"RACK_NAME": "r1", "POD_IP": "10.0.0.5"},
			want: Node{Rack: "r1", ListenIP: net.ParseIP("10.0.0.5"), BroadcastIP: net.ParseIP("10.0.0.5"), RPCIP: net.ParseIP("0.0.0.0")}},
		"IPv6 pod": {env: map[string]string{"POD_IP": "fd00::5"},
			want: Node{ListenIP: net.ParseIP("fd00::5"), BroadcastIP: net.ParseIP("fd00::5"), RPCIP: net.ParseIP("::")}},
		"host IP broadcast": {env: map[string]string{"POD_IP": "10.0.0.5", "HOST_IP": "192.168.1.9", "USE_HOST_IP_FOR_BROADCAST": "true"},
			want: Node{ListenIP: net.ParseIP("10.0.0.5"), BroadcastIP: net.ParseIP("192.168.1.9"), RPCIP: net.ParseIP("0.0.0.0")}},
		"host IP not asked for": {env: map[string]string{"POD_IP": "10.0.0.5", "HOST_IP": "192.168.1.9", "USE_HOST_IP_FOR_BROADCAST": "false"},
			want: Node{ListenIP: net.ParseIP("10.0.0.5"), BroadcastIP: net.ParseIP("10.0.0.5"), RPCIP: net.ParseIP("0.0.0.0")}},
		"no pod IP":         {env: map[string]string{}, err: `POD_IP "" is not an IP address`},
		"bad boolean":       {env: map[string]string{"POD_IP": "10.0.0.5", "USE_HOST_IP_FOR_BROADCAST": "yes"}, err: "USE_HOST_IP_FOR_BROADCAST"},
		"host IP not an IP": {env: map[string]string{"POD_IP": "10.0.0.5", "USE_HOST_IP_FOR_BROADCAST": "1"}, err: "HOST_IP"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := NodeFromEnv(func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("node (-want +got):\n%s", d)
			}
		})
	}
}

func TestRackDC(t *testing.T) {
	got := string(RackDC(&Input{DatacenterInfo: DatacenterInfo{Name: "dc1"}}, Node{Rack: "rack2"}))
	if got != "dc=dc1\nrack=rack2\n" {
		t.Errorf("rackdc = %q", got)
	}
}

func TestCassandraEnv(t *testing.T) {
	cases := map[string]struct {
		env  EnvOptions
		want string
	}{
		"nothing set": {want: "BASE\n\n"},
		"everything": {env: EnvOptions{MallocArenaMax: 4, HeapDumpDir: "/var/dumps", AdditionalOpts: []string{"-Da=1", "-Db=2"}},
			want: "export MALLOC_ARENA_MAX=4\nexport CASSANDRA_HEAPDUMP_DIR=/var/dumps\nBASE\n\nJVM_OPTS=\"$JVM_OPTS -Da=1\"\nJVM_OPTS=\"$JVM_OPTS -Db=2\"\n"},
	}
	for name, tc := range cases {
		if got := string(CassandraEnv([]byte("BASE\n"), tc.env)); got != tc.want {
			t.Errorf("%s: cassandra-env.sh = %q, want %q", name, got, tc.want)
		}
	}
}

// TestBuild renders a base config directory as server-config-init does: every output is
// there, cassandra_latest.yaml is the base when present, unchanged files are copied, and a
// second run replaces the outputs rather than appending to them.
func TestBuild(t *testing.T) {
	base, out := t.TempDir(), t.TempDir()
	files := map[string]string{
		"cassandra.yaml":        "num_tokens: 256\n",
		"cassandra_latest.yaml": "num_tokens: 16\nrpc_address: localhost\n",
		"cassandra-env.sh":      "# env\n",
		"jvm-server.options":    "# comment\n-Xms4G\n\n-Xmx4G\n-ea\n",
		"jvm17-server.options":  "-XX:+UseG1GC\n",
		"logback.xml":           "<configuration/>\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(base, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := ParseInput(configFileData)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := Build(base, out, in, node4); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{
		"cassandra-rackdc.properties": "dc=dc1\nrack=r1\n",
		"cassandra-env.sh":            "export MALLOC_ARENA_MAX=8\n# env\n\nJVM_OPTS=\"$JVM_OPTS -Dcassandra.system_distributed_replication=dc1:1\"\n",
		"jvm-server.options":          "-Xms512M\n-Xmx512M\n-ea\n",
		"jvm11-server.options":        "",
		"jvm17-server.options":        "-XX:+UseG1GC\n",
		"logback.xml":                 "<configuration/>\n",
		"cassandra.yaml": `broadcast_rpc_address: 10.0.0.5
cluster_name: bench
concurrent_writes: "64"
endpoint_snitch: GossipingPropertyFileSnitch
listen_address: 10.0.0.5
num_tokens: 16
rpc_address: 0.0.0.0
seed_provider:
    - class_name: org.apache.cassandra.locator.K8SeedProvider
      parameters:
        - seeds: bench-seed-service,bench-dc1-additional-seed-service
`,
	}
	got := map[string]string{}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = string(b)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("output directory (-want +got):\n%s", d)
	}
}

func TestBuildNeedsBaseFiles(t *testing.T) {
	base, out := t.TempDir(), t.TempDir()
	err := Build(base, out, &Input{}, node4)
	if err == nil || !strings.Contains(err.Error(), "cassandra-env.sh") {
		t.Errorf("error %v, want one naming the missing cassandra-env.sh", err)
	}
}
