package local

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/test/local/configbuild"
)

// nodeSettings are the start options of a local node that runs the config server-config-init
// rendered in dir: every cassandra.yaml key the datacenter's cassandra-yaml section names,
// with the value the rendered cassandra.yaml holds (absent there: removed), and the heap of
// the rendered jvm-server.options. The rest of the node's config stays the local cluster's
// (addresses, seeds, snitch, directories), which is where a local node must differ from a
// pod: it shares the host with the other nodes. The node's datacenter and rack are the
// rendered cassandra-rackdc.properties' (cass-operator names the datacenter in
// CONFIG_FILE_DATA's datacenter-info): a node option, it comes after the cluster's, so a pod
// of a second CassandraDatacenter of the cluster starts its node in that datacenter, joining
// the local cluster's ring through its seeds (node 1) as cass-operator's seed service would.
func nodeSettings(dir string, in *configbuild.Input) (localcassandra.Options, error) {
	o := localcassandra.Options{Timeout: localcassandra.DefaultOptions().Timeout}
	o.JVMOpts = []string{"-Dcassandra-rackdc.properties=file://" + filepath.Join(dir, "cassandra-rackdc.properties")}
	data, err := os.ReadFile(filepath.Join(dir, "cassandra.yaml"))
	if err != nil {
		return o, err
	}
	rendered := map[string]any{}
	if err := yaml.Unmarshal(data, &rendered); err != nil {
		return o, fmt.Errorf("the rendered cassandra.yaml: %w", err)
	}
	for _, k := range sortedKeys(in.CassYaml) {
		v, ok := rendered[k]
		if !ok || v == nil {
			o.Sets = append(o.Sets, k+"=")
			continue
		}
		text, err := json.Marshal(v) // JSON is YAML
		if err != nil {
			return o, fmt.Errorf("cassandra.yaml %s: %w", k, err)
		}
		o.Sets = append(o.Sets, k+"="+string(text))
	}
	heap, err := optionValue(filepath.Join(dir, "jvm-server.options"), "-Xmx")
	if err != nil {
		return o, err
	}
	if heap != "" {
		o.Heap, o.HeapSet = heap, true
	}
	return o, nil
}

// optionValue is the value of the last line of a jvm options file that starts with prefix.
func optionValue(path, prefix string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	value := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, prefix) {
			value = strings.TrimPrefix(line, prefix)
		}
	}
	return value, sc.Err()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
