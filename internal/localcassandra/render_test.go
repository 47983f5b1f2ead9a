package localcassandra

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestOverrideYAML(t *testing.T) {
	doc := `# header
cluster_name: 'x'
seed_provider:
  - class_name: A
    parameters:
      - seeds: "127.0.0.1:7000"
# about writes
concurrent_writes: 32
concurrent_reads: 32
`
	tests := map[string]struct {
		sets []string
		want string
	}{
		"nothing": {want: doc + "# --- overrides written by hack/cassandra.sh ---\n"},
		"replace nested, last wins, first-given order": {
			sets: []string{"seed_provider=[{class_name: B}]", "concurrent_writes=48", "new_key=1", "concurrent_writes=64"},
			// The comment after seed_provider goes with it: lines belong to the key above them.
			want: "# header\ncluster_name: 'x'\nconcurrent_reads: 32\n# --- overrides written by hack/cassandra.sh ---\n" +
				"seed_provider: [{class_name: B}]\nconcurrent_writes: 64\nnew_key: 1\n",
		},
		"empty value removes": {
			sets: []string{"concurrent_reads=", "cluster_name="},
			want: "# header\nseed_provider:\n  - class_name: A\n    parameters:\n      - seeds: \"127.0.0.1:7000\"\n# about writes\nconcurrent_writes: 32\n# --- overrides written by hack/cassandra.sh ---\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := OverrideYAML(doc, tc.sets); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// Values computed by the shell arithmetic of the earlier script, whose nodes keep their tokens.
func TestInitialTokens(t *testing.T) {
	tests := map[string]struct {
		i, n, t int
		want    string
	}{
		"one node one token": {1, 1, 1, "-1"},
		"node 2 of 3":        {2, 3, 2, "-4611686018427387905,4611686018427387901"},
		"node 3 of 3":        {3, 3, 4, "-5380300354831952558,-768614336404564658,3843071682022823242,8454757700450211142"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := InitialTokens(tc.i, tc.n, tc.t); got != tc.want {
				t.Errorf("InitialTokens(%d, %d, %d) = %s, want %s", tc.i, tc.n, tc.t, got, tc.want)
			}
		})
	}
}

// A node's cassandra.yaml is valid YAML with its own addresses, directories and balanced
// tokens, the auth settings of an --auth cluster, and cluster options before node options.
func TestWriteNodeConf(t *testing.T) {
	dir := t.TempDir()
	l := Layout{Cache: dir, Dir: dir, Version: "5.0.9", Offset: 10}
	if err := os.MkdirAll(filepath.Join(l.Dist(), "conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(l.Dist(), "conf", "cassandra.yaml"), []byte(BaseYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(l.NodeDir(2), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(l.Nodes(), "cluster.conf"), "version=5.0.9\nnodes=2\nheap=512M\nauth=1\nset=concurrent_writes=48\nset=num_tokens=4\n")
	write(filepath.Join(l.NodeDir(2), "node.conf"), "set=concurrent_writes=64\nset=concurrent_reads=\n")
	if err := l.writeNodeConf(2); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(l.NodeDir(2), "conf", "cassandra.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := yaml.Unmarshal(data, &got); err != nil {
		t.Fatalf("node config is not YAML: %v\n%s", err, data)
	}
	want := map[string]any{
		"listen_address":        "127.0.0.12",
		"rpc_address":           "127.0.0.12",
		"commitlog_directory":   l.NodeDir(2) + "/commitlog",
		"concurrent_writes":     float64(64),
		"num_tokens":            float64(4),
		"initial_token":         InitialTokens(2, 2, 4),
		"roles_validity":        "5m",
		"native_transport_port": float64(9042),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
	if _, ok := got["concurrent_reads"]; ok {
		t.Errorf("concurrent_reads= kept the key: %v", got["concurrent_reads"])
	}
	if a := got["authenticator"].(map[string]any)["class_name"]; a != "org.apache.cassandra.auth.PasswordAuthenticator" {
		t.Errorf("authenticator = %v", a)
	}
	if seeds := string(data); !strings.Contains(seeds, `seeds: "127.0.0.11:7000"`) {
		t.Errorf("seed is not node 1 of the layout:\n%s", seeds)
	}
	// Tokens are chosen once: a node with data keeps them even when the cluster grows.
	write(filepath.Join(l.Nodes(), "cluster.conf"), "version=5.0.9\nnodes=3\nheap=512M\nauth=1\nset=num_tokens=4\n")
	if err := l.writeNodeConf(2); err != nil {
		t.Fatal(err)
	}
	if tokens := readText(filepath.Join(l.NodeDir(2), "tokens")); tokens != InitialTokens(2, 2, 4) {
		t.Errorf("tokens changed to %s", tokens)
	}
}

func TestJVMArgs(t *testing.T) {
	l := Layout{Cache: "/c", Dir: "/d", Version: "5.0.9", Offset: 10}
	args := l.jvmArgs(1, "1G", "/c/jamm.jar", []string{"-Dextra=1"})
	joined := strings.Join(args, "\x00") + "\x00"
	for _, want := range []string{"-Xms1G\x00-Xmx1G\x00", "-Dcassandra.storagedir=/d/nodes/node1\x00", "-Dcassandra.jmx.local.port=7210\x00", "-javaagent:/c/jamm.jar\x00",
		"-Dextra=1\x00-cp\x00/c/5.0.9/lib/*\x00org.apache.cassandra.service.CassandraDaemon\x00"} {
		if !strings.Contains(joined, want) {
			t.Errorf("java arguments lack %q: %q", want, args)
		}
	}
	if got := shellQuote([]string{"java", "-Dx=a b", "it's"}); got != `java '-Dx=a b' 'it'\''s'` {
		t.Errorf("shellQuote = %s", got)
	}
}

// A reset to fewer nodes wipes what nodes beyond them left: the nodes started would
// otherwise wait for those as down peers (make demo after make test's two-node cluster
// waited for schema agreement with node 2 in vain).
func TestNodesBeyond(t *testing.T) {
	dir := t.TempDir()
	c := &Cluster{Layout: Layout{Cache: dir, Dir: dir, Version: "5.0.9"}}
	if c.hasNodesBeyond(1) {
		t.Error("an empty layout has nodes beyond 1")
	}
	for _, i := range []int{1, 2} {
		if err := os.MkdirAll(c.NodeDir(i), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if !c.hasNodesBeyond(1) || c.hasNodesBeyond(2) || c.hasNodesBeyond(3) {
		t.Errorf("nodes 1 and 2: beyond 1 %t, beyond 2 %t, beyond 3 %t; want true, false, false",
			c.hasNodesBeyond(1), c.hasNodesBeyond(2), c.hasNodesBeyond(3))
	}
}
