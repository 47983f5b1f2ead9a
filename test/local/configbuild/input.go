// Package configbuild renders a cass-operator pod's configuration the way the
// server-config-init container does: k8ssandra-client's `config build` (image
// k8ssandra/k8ssandra-client v0.8.12, which cass-operator v1.31.0 names in
// config/imageconfig/image_config.yaml). The module proxy refuses that version, so this is
// our own rendering of its rules, read from github.com/k8ssandra/k8ssandra-client at tag
// v0.8.12 (commit 42083e2d5d30): pkg/config/builder.go and pkg/config/types.go, and from the
// option tables it imports, github.com/burmanm/definitions-parser at 62c738b72e61
// (pkg/types/metadata.go, pkg/types/generated/*). Each rule cites the function it follows.
//
// Input: the CONFIG_FILE_DATA JSON cass-operator puts in the pod template, the node's
// addresses and rack, and a directory with the base config (what server-config-init-base
// copies). Output: cassandra.yaml, cassandra-rackdc.properties, cassandra-env.sh and the
// jvm*-server.options files in another directory.
package configbuild

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
)

// Input is CONFIG_FILE_DATA (types.go ConfigInput). Unknown sections are ignored, as
// upstream ignores them.
type Input struct {
	ClusterInfo     ClusterInfo    `json:"cluster-info"`
	DatacenterInfo  DatacenterInfo `json:"datacenter-info"`
	CassYaml        map[string]any `json:"cassandra-yaml,omitempty"`
	ServerOptions   map[string]any `json:"jvm-server-options,omitempty"`
	ServerOptions11 map[string]any `json:"jvm11-server-options,omitempty"`
	ServerOptions17 map[string]any `json:"jvm17-server-options,omitempty"`
	CassandraEnv    EnvOptions     `json:"cassandra-env-sh"`
}

// ClusterInfo names the cluster and its seeds (a comma-separated list of addresses).
type ClusterInfo struct {
	Name  string `json:"name"`
	Seeds string `json:"seeds"`
}

// DatacenterInfo names the datacenter.
type DatacenterInfo struct {
	Name string `json:"name"`
}

// EnvOptions is the cassandra-env-sh section.
type EnvOptions struct {
	MallocArenaMax int      `json:"malloc-arena-max,omitempty"`
	HeapDumpDir    string   `json:"heap-dump-dir,omitempty"`
	AdditionalOpts []string `json:"additional-jvm-opts,omitempty"`
}

// ParseInput reads CONFIG_FILE_DATA. Numbers stay as written (json.Number), as upstream's
// decoder keeps them (builder.go parseConfigInput: UseNumber), so 64 is written as 64, not
// 64.0 or 6.4e+01.
func ParseInput(data string) (*Input, error) {
	in := &Input{}
	d := json.NewDecoder(bytes.NewReader([]byte(data)))
	d.UseNumber()
	if err := d.Decode(in); err != nil {
		return nil, fmt.Errorf("CONFIG_FILE_DATA: %w", err)
	}
	return in, nil
}

// Node is what the builder learns from the pod's environment (builder.go parseNodeInfo).
type Node struct {
	Rack        string
	ListenIP    net.IP // POD_IP
	BroadcastIP net.IP // POD_IP, or HOST_IP when USE_HOST_IP_FOR_BROADCAST
	RPCIP       net.IP // 0.0.0.0, or :: for an IPv6 pod
}

// NodeFromEnv reads the node from the variables cass-operator sets on server-config-init:
// RACK_NAME, POD_IP, HOST_IP and USE_HOST_IP_FOR_BROADCAST. Upstream writes "<nil>" as
// listen_address when POD_IP is missing or bad; this one says so instead.
func NodeFromEnv(getenv func(string) string) (Node, error) {
	n := Node{Rack: getenv("RACK_NAME")}
	pod := net.ParseIP(getenv("POD_IP"))
	if pod == nil {
		return n, fmt.Errorf("POD_IP %q is not an IP address", getenv("POD_IP"))
	}
	useHost := false
	if v := getenv("USE_HOST_IP_FOR_BROADCAST"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return n, fmt.Errorf("USE_HOST_IP_FOR_BROADCAST %q is not a boolean", v)
		}
		useHost = b
	}
	n.ListenIP, n.BroadcastIP = pod, pod
	if useHost {
		// Upstream leaves broadcast_rpc_address empty when HOST_IP does not parse.
		n.BroadcastIP = net.ParseIP(getenv("HOST_IP"))
		if n.BroadcastIP == nil {
			return n, fmt.Errorf("HOST_IP %q is not an IP address, and USE_HOST_IP_FOR_BROADCAST is set", getenv("HOST_IP"))
		}
	}
	n.RPCIP = net.ParseIP("0.0.0.0")
	if pod.To4() == nil {
		n.RPCIP = net.ParseIP("::")
	}
	return n, nil
}
