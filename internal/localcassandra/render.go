package localcassandra

import (
	_ "embed"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// BaseYAML is the base cassandra.yaml: cassandra-all ships no conf/, so this is a complete
// one in the style of Cassandra 5.0's conf/cassandra_latest.yaml (trie memtables, BTI
// sstables, UCS, SAI, no 4.x compatibility). Per-node keys (addresses, directories, tokens)
// are replaced when a node's config is written.
//
//go:embed base.yaml
var BaseYAML string

//go:embed logback-node.xml
var nodeLogback string

//go:embed logback-tools.xml
var toolsLogback string

var topLevelKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*[ \t]*:`)

// OverrideYAML replaces top-level keys of a YAML document: sets are key=value, the value
// written as YAML as it is, the last one of a key winning; an empty value removes the key so
// that Cassandra's built-in default applies. A key's nested lines and the lines after it up
// to the next top-level key go with it, so the document must keep its keys at column 0 (as
// BaseYAML does).
func OverrideYAML(doc string, sets []string) string {
	last := map[string]string{}
	var order []string
	for _, kv := range sets {
		k, v, _ := strings.Cut(kv, "=")
		if _, seen := last[k]; !seen {
			order = append(order, k)
		}
		last[k] = v
	}
	var b strings.Builder
	skip := false
	for _, line := range strings.SplitAfter(doc, "\n") {
		if line == "" {
			continue
		}
		if topLevelKey.MatchString(line) {
			k := strings.TrimRight(line[:strings.IndexByte(line, ':')], " \t")
			_, skip = last[k]
		}
		if !skip {
			b.WriteString(line)
		}
	}
	if doc != "" && !strings.HasSuffix(doc, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("# --- overrides written by hack/cassandra.sh ---\n")
	for _, k := range order {
		if v := last[k]; v != "" {
			b.WriteString(k + ": " + v + "\n")
		}
	}
	return b.String()
}

// InitialTokens are node i's tokens of n nodes with t tokens each: interleaved and evenly
// spaced over the Murmur3 ring, so that a fresh cluster is balanced and nodes can bootstrap
// concurrently.
func InitialTokens(i, n, t int) string {
	half := int64(math.MaxInt64) / int64(t*n)
	out := make([]string, 0, t)
	for j := range t {
		k := int64(j*n + i - 1)
		// Summed in this order no partial sum leaves int64.
		tok := int64(math.MinInt64) + k*half + k*half + half
		out = append(out, strconv.FormatInt(tok, 10))
	}
	return strings.Join(out, ",")
}

// lastSetting is the last value given for name in key=value sets.
func lastSetting(name string, sets []string) string {
	v := ""
	for _, kv := range sets {
		if k, val, _ := strings.Cut(kv, "="); k == name {
			v = val
		}
	}
	return v
}

// nodeSets are the cassandra.yaml settings of node i: its addresses and directories, the
// authentication of an --auth cluster, the cluster's --set options, then the node's own.
func (l Layout) nodeSets(i int, clusterConf, nodeConf string) []string {
	dir, ip, seed := l.NodeDir(i), l.NodeIP(i), l.NodeIP(1)
	sets := []string{
		"listen_address=" + ip,
		"rpc_address=" + ip,
		"data_file_directories=[" + dir + "/data]",
		"commitlog_directory=" + dir + "/commitlog",
		"saved_caches_directory=" + dir + "/saved_caches",
		"hints_directory=" + dir + "/hints",
		"cdc_raw_directory=" + dir + "/cdc_raw",
		"storage_port=" + strconv.Itoa(StoragePort),
		"native_transport_port=" + strconv.Itoa(CQLPort),
		`seed_provider=[{class_name: org.apache.cassandra.locator.SimpleSeedProvider, parameters: [{seeds: "` + seed + ":" + strconv.Itoa(StoragePort) + `"}]}]`,
	}
	if dcs, _ := strconv.Atoi(confValue(clusterConf, "datacenters")); dcs > 1 {
		sets = append(sets, "endpoint_snitch="+Snitch)
	}
	if confValue(clusterConf, "auth") == "1" {
		sets = append(sets, authSets(l.Release())...)
	}
	sets = append(sets, confValues(clusterConf, "set")...)
	return append(sets, confValues(nodeConf, "set")...)
}

// writeNodeConf writes node i's cassandra.yaml and logback.xml from the base config, the
// cluster options (cluster.conf) and the node's own restart options (node.conf).
func (l Layout) writeNodeConf(i int) error {
	dir := l.NodeDir(i)
	for _, sub := range []string{"conf/triggers", "data", "commitlog", "saved_caches", "hints", "cdc_raw", "logs"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	clusterConf := readText(filepath.Join(l.Nodes(), "cluster.conf"))
	sets := l.nodeSets(i, clusterConf, readText(filepath.Join(dir, "node.conf")))
	// Balanced tokens, chosen once when the node has no data yet and kept in node<i>/tokens.
	if lastSetting("initial_token", sets) == "" {
		tokensFile := filepath.Join(dir, "tokens")
		tokens := readText(tokensFile)
		if tokens == "" {
			nt := lastSetting("num_tokens", sets)
			if nt == "" {
				nt = "16"
			}
			n, _ := strconv.Atoi(confValue(clusterConf, "nodes"))
			n = max(n, i)
			dcs, _ := strconv.Atoi(confValue(clusterConf, "datacenters"))
			t, err := strconv.Atoi(nt)
			// A node with data keeps the tokens it has.
			if entries, _ := os.ReadDir(filepath.Join(dir, "data")); err == nil && t > 0 && isDigits(nt) && len(entries) == 0 {
				tokens = datacenterTokens(i, n, dcs, t)
			}
			content := ""
			if tokens != "" {
				content = tokens + "\n"
			}
			if err := os.WriteFile(tokensFile, []byte(content), 0o644); err != nil {
				return err
			}
		}
		if tokens != "" {
			sets = append([]string{`initial_token="` + tokens + `"`}, sets...)
		}
	}
	// The release's base from the binary, not Dist()/conf: a version fetched before its
	// release had a base of its own has 5.0's there.
	base := BaseYAMLFor(l.Release())
	if err := os.WriteFile(filepath.Join(dir, "conf", "cassandra.yaml"), []byte(OverrideYAML(base, sets)), 0o644); err != nil {
		return err
	}
	dcs, _ := strconv.Atoi(confValue(clusterConf, "datacenters"))
	if err := os.WriteFile(filepath.Join(dir, "conf", "cassandra-rackdc.properties"), []byte(rackDCProperties(i, dcs)), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "conf", "logback.xml"), []byte(nodeLogback), 0o644)
}

// jvmArgs are the java arguments that run node i: the heap given, the options of Cassandra's
// jvm-server.options and of its Java's jvm11- or jvm17-server.options that matter on a small
// machine (moduleArgs), startup
// delays shortened for a local cluster, then the --jvm-opt options (cluster's, then node's).
func (l Layout) jvmArgs(i int, heap, jamm string, extra []string) []string {
	dir := l.NodeDir(i)
	args := []string{
		"-Xms" + heap, "-Xmx" + heap, "-Xss256k",
		"-ea", "-da:net.openhft...",
		"-XX:+UseThreadPriorities", "-XX:+UseTLAB", "-XX:+ResizeTLAB", "-XX:+UseNUMA", "-XX:+PerfDisableSharedMem",
		"-XX:+UseG1GC", "-XX:+ParallelRefProcEnabled", "-XX:MaxTenuringThreshold=1",
		"-XX:G1RSetUpdatingPauseTimePercent=5", "-XX:MaxGCPauseMillis=300", "-XX:InitiatingHeapOccupancyPercent=70",
		"-XX:+HeapDumpOnOutOfMemoryError", "-XX:HeapDumpPath=" + dir + "/logs", "-XX:+ExitOnOutOfMemoryError",
		"-Xlog:gc=info:file=" + dir + "/logs/gc.log:time,uptime:filecount=3,filesize=10M",
		"-Djava.net.preferIPv4Stack=true",
		"-Djdk.attach.allowAttachSelf=true",
		"-Dio.netty.tryReflectionSetAccessible=true",
		"-Dio.netty.allocator.useCacheForAllThreads=true",
		"-Dio.netty.allocator.maxOrder=11",
		"-javaagent:" + jamm,
		"-Dcassandra.storagedir=" + dir,
		"-Dcassandra.config=file://" + dir + "/conf/cassandra.yaml",
		"-Dcassandra.logdir=" + dir + "/logs",
		"-Dcassandra.triggers_dir=" + dir + "/conf/triggers",
		"-Dlogback.configurationFile=file://" + dir + "/conf/logback.xml",
		// Read by GossipingPropertyFileSnitch only (a cluster of several datacenters).
		"-Dcassandra-rackdc.properties=file://" + dir + "/conf/cassandra-rackdc.properties",
		"-Dcassandra.jmx.local.port=" + strconv.Itoa(l.JMXPort(i)),
		"-Dcassandra-foreground=yes",
		"-Dcassandra.skip_wait_for_gossip_to_settle=0",
		"-Dcassandra.ring_delay_ms=2000",
		"-Dcassandra.consistent.rangemovement=false",
		"-Dcassandra.superuser_setup_delay_ms=500",
		"-Dcassandra.shutdown_announce_in_ms=500",
		"-Dcassandra.auth_bcrypt_gensalt_log2_rounds=" + strconv.Itoa(loginRounds),
	}
	args = append(args, l.moduleArgs()...)
	args = append(args, extra...)
	return append(args, "-cp", l.Lib()+"/*", "org.apache.cassandra.service.CassandraDaemon")
}

// toolArgs are the java arguments of a command-line tool (nodetool): small and quick to start.
func (l Layout) toolArgs() []string {
	return []string{
		"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
		"--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED",
		"--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "-Djava.net.preferIPv4Stack=true",
		"-Dlogback.configurationFile=" + filepath.Join(l.Dist(), "conf", "logback-tools.xml"),
		"-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-cp", l.Lib() + "/*",
	}
}

// shellQuote quotes args for the command.sh record of how a node was started.
func shellQuote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,+@%") == "" {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
