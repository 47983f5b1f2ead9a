#!/usr/bin/env bash
# Runs a real Apache Cassandra 5.0 cluster on this machine's loopback addresses, built from
# org.apache.cassandra:cassandra-all and its runtime dependencies on Maven Central (no tarball,
# no Docker). Node i listens on 127.0.0.i (CQL 9042, storage 7000, JMX 127.0.0.1:7199+i).
#
#   hack/cassandra.sh fetch                       # download jars + write a base cassandra.yaml (idempotent)
#   hack/cassandra.sh start [--nodes N] [--heap 512M] [--set key=value ...] [--jvm-opt OPT ...]
#                           [--auth] [--timeout 180] [--reset]
#   hack/cassandra.sh check <start options>       # exit 0 if the stored cluster config equals these options
#   hack/cassandra.sh stop [--node i] [--kill] [--force]
#   hack/cassandra.sh restart --node i [--set key=value ...] [--heap H] [--jvm-opt OPT ...] [--timeout S]
#   hack/cassandra.sh pause --node i | resume --node i   # SIGSTOP / SIGCONT node i's JVM (a frozen node)
#   hack/cassandra.sh status
#   hack/cassandra.sh wipe [--force]              # stop all nodes and delete all node directories
#   hack/cassandra.sh nodetool [--node i] ARGS... # org.apache.cassandra.tools.NodeTool against node i
#
# Layout (CACHE = ${CASSBENCH_CACHE:-$HOME/.cache/cassbench}):
#   CACHE/cassandra/<version>/lib/*.jar             cassandra-all + runtime deps (incl. jamm agent)
#   CACHE/cassandra/<version>/conf/cassandra.yaml   base config (cassandra-all ships no conf/)
#   CACHE/cassandra/nodes/cluster.conf              options the running cluster was started with
#   CACHE/cassandra/nodes/node<i>/{conf,data,commitlog,saved_caches,hints,cdc_raw,logs}, cassandra.pid
#
# --set key=value replaces (or adds) a top-level cassandra.yaml setting; the value is written as
# YAML as-is (e.g. --set 'authenticator={class_name: PasswordAuthenticator}'); key= removes the
# key so Cassandra's built-in default applies. --auth enables PasswordAuthenticator and
# CassandraAuthorizer (superuser cassandra/cassandra, auth caches valid 5 minutes). start is a
# no-op when the cluster already runs with the same options (stopped nodes are started again,
# keeping their data); a larger --nodes with otherwise equal options adds nodes (they
# bootstrap); other options while nodes run fail with exit 3 unless --reset, which wipes the
# cluster first. restart --node i changes one node (settings accumulate in node<i>/node.conf)
# and marks the cluster as changed, so a plain start or check no longer matches it. Fresh
# nodes get evenly interleaved initial_token values (num_tokens each), so nodes 2..N bootstrap
# concurrently and ownership is balanced.
# stop, wipe, restart and a --reset that changes options first wait until no test process
# (internal/testutil/cassandra, which holds users.lock shared) uses the cluster; --force skips it.
# Env: CASSANDRA_VERSION, CASSBENCH_CACHE, CASSANDRA_START_TIMEOUT (seconds, default 180).
set -euo pipefail

CASSANDRA_VERSION="${CASSANDRA_VERSION:-5.0.9}"
CACHE="${CASSBENCH_CACHE:-$HOME/.cache/cassbench}"
CROOT="$CACHE/cassandra"
DIST="$CROOT/$CASSANDRA_VERSION"
LIB="$DIST/lib"
NODES="$CROOT/nodes"
DEP_PLUGIN="org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
CQL_PORT=9042
STORAGE_PORT=7000
JMX_BASE=7199
SCRIPT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"

log() { echo "cassandra: $*" >&2; }
die() { echo "cassandra: error: $*" >&2; exit 1; }

mkdir -p "$CROOT"

# Test processes (internal/testutil/cassandra) hold a shared flock on users.lock while they use
# the cluster. Commands that stop nodes or replace the cluster take it exclusively first, so they
# wait for running tests instead of pulling the cluster from under them. The Go helper, which
# holds that lock itself, sets CASSBENCH_USERS_LOCK_HELD=1; --force skips the wait.
FORCE=0
take_users_lock() {
  [[ -z "${CASSBENCH_USERS_LOCK_HELD:-}" ]] || return 0
  ((FORCE)) && return 0
  exec 8>"$CROOT/users.lock"
  if ! flock -n -x 8; then
    log "waiting for test processes using the cluster to exit (they hold $CROOT/users.lock; --force skips this)"
    flock -x -w 1800 8 || die "timed out waiting for $CROOT/users.lock"
  fi
}

take_lock() {
  exec 9>"$CROOT/.script.lock"
  flock -w 1800 9 || die "timed out waiting for $CROOT/.script.lock"
}

# ---------------------------------------------------------------------------------------------
# fetch
# ---------------------------------------------------------------------------------------------

fetched() { [[ -f "$DIST/.complete" ]]; }

fetch() {
  fetched && return 0
  take_lock
  fetched && return 0
  command -v mvn >/dev/null || die "mvn not found (needed once to fetch cassandra-all from Maven Central)"
  local tmp
  tmp=$(mktemp -d "$CROOT/.fetch.XXXXXX")
  log "fetching org.apache.cassandra:cassandra-all:$CASSANDRA_VERSION and its runtime dependencies"
  cat >"$tmp/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>cassbench.local</groupId>
  <artifactId>cassandra-fetch</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.cassandra</groupId>
      <artifactId>cassandra-all</artifactId>
      <version>$CASSANDRA_VERSION</version>
    </dependency>
  </dependencies>
</project>
EOF
  if ! mvn -B -q -f "$tmp/pom.xml" "$DEP_PLUGIN:copy-dependencies" -DincludeScope=runtime \
      -DoutputDirectory="$tmp/lib" >"$tmp/mvn.log" 2>&1; then
    tail -n 40 "$tmp/mvn.log" >&2
    rm -rf "$tmp"
    die "mvn could not fetch cassandra-all $CASSANDRA_VERSION"
  fi
  [[ -f "$tmp/lib/cassandra-all-$CASSANDRA_VERSION.jar" ]] || { rm -rf "$tmp"; die "cassandra-all jar missing after mvn"; }
  compgen -G "$tmp/lib/jamm-*.jar" >/dev/null || { rm -rf "$tmp"; die "jamm agent jar missing after mvn"; }
  rm -rf "$DIST"
  mkdir -p "$DIST/conf"
  mv "$tmp/lib" "$LIB"
  rm -rf "$tmp"
  write_base_yaml >"$DIST/conf/cassandra.yaml"
  write_tools_logback >"$DIST/conf/logback-tools.xml"
  touch "$DIST/.complete"
  log "fetched $(find "$LIB" -name '*.jar' | wc -l) jars into $LIB ($(du -sh "$DIST" | cut -f1))"
  exec 9>&- # callers take users.lock before the script lock
}

# cassandra-all ships no conf/: this is a complete base in the style of Cassandra 5.0's
# conf/cassandra_latest.yaml (trie memtables, BTI sstables, UCS, SAI, no 4.x compatibility).
# Per-node keys (addresses, directories, tokens) are replaced when a node's config is written.
write_base_yaml() {
  cat <<'EOF'
# Base cassandra.yaml for Apache Cassandra 5.0, written by hack/cassandra.sh.
# Modelled on conf/cassandra_latest.yaml; per-node settings are replaced by the script.
cluster_name: 'cassbench'
num_tokens: 16
allocate_tokens_for_local_replication_factor: 3

hinted_handoff_enabled: true
max_hint_window: 3h
hinted_handoff_throttle: 1024KiB
max_hints_delivery_threads: 2
hints_directory: /var/lib/cassandra/hints
hints_flush_period: 10000ms
max_hints_file_size: 128MiB
auto_hints_cleanup_enabled: false
batchlog_replay_throttle: 1024KiB
batchlog_endpoint_strategy: dynamic_remote

authenticator:
  class_name: org.apache.cassandra.auth.AllowAllAuthenticator
authorizer:
  class_name: org.apache.cassandra.auth.AllowAllAuthorizer
role_manager:
  class_name: org.apache.cassandra.auth.CassandraRoleManager
network_authorizer:
  class_name: org.apache.cassandra.auth.AllowAllNetworkAuthorizer
roles_validity: 2000ms
permissions_validity: 2000ms
credentials_validity: 2000ms

partitioner: org.apache.cassandra.dht.Murmur3Partitioner

data_file_directories:
  - /var/lib/cassandra/data
commitlog_directory: /var/lib/cassandra/commitlog
saved_caches_directory: /var/lib/cassandra/saved_caches
cdc_raw_directory: /var/lib/cassandra/cdc_raw
cdc_enabled: false

disk_failure_policy: stop
commit_failure_policy: stop

prepared_statements_cache_size:
key_cache_size:
key_cache_save_period: 4h
row_cache_size: 0MiB
row_cache_save_period: 0s
counter_cache_size:
counter_cache_save_period: 7200s

commitlog_sync: periodic
commitlog_sync_period: 10000ms
commitlog_segment_size: 32MiB
commitlog_disk_access_mode: legacy

seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1:7000"

concurrent_reads: 32
concurrent_writes: 32
concurrent_counter_writes: 32
concurrent_materialized_view_writes: 32

memtable_allocation_type: offheap_objects
memtable:
  configurations:
    skiplist:
      class_name: SkipListMemtable
    trie:
      class_name: TrieMemtable
    default:
      inherits: trie

sstable:
  selected_format: bti

default_compaction:
  class_name: UnifiedCompactionStrategy
  parameters:
    scaling_parameters: T4
    max_sstables_to_compact: 64
    target_sstable_size: 1GiB
    sstable_growth: 0.3333333333333333
    min_sstable_size: 100MiB

trickle_fsync: true
trickle_fsync_interval: 10240KiB

storage_port: 7000
listen_address: 127.0.0.1
start_native_transport: true
native_transport_port: 9042
native_transport_allow_older_protocols: true
rpc_address: 127.0.0.1
rpc_keepalive: true

incremental_backups: false
snapshot_before_compaction: false
auto_snapshot: true
column_index_cache_size: 2KiB
compaction_throughput: 64MiB/s
sstable_preemptive_open_interval: 50MiB
uuid_sstable_identifiers_enabled: true
stream_entire_sstables: true

read_request_timeout: 5000ms
range_request_timeout: 10000ms
write_request_timeout: 2000ms
counter_write_request_timeout: 5000ms
cas_contention_timeout: 1000ms
truncate_request_timeout: 60000ms
request_timeout: 10000ms
slow_query_log_timeout: 500ms

endpoint_snitch: SimpleSnitch
dynamic_snitch_update_interval: 100ms
dynamic_snitch_reset_interval: 600000ms
dynamic_snitch_badness_threshold: 1.0

server_encryption_options:
  internode_encryption: none
client_encryption_options:
  enabled: false
internode_compression: dc
inter_dc_tcp_nodelay: false

trace_type_query_ttl: 1d
trace_type_repair_ttl: 7d
gc_warn_threshold: 1000ms
tombstone_warn_threshold: 1000
tombstone_failure_threshold: 100000
batch_size_warn_threshold: 5KiB
batch_size_fail_threshold: 50KiB
unlogged_batch_across_partitions_warn_threshold: 10

user_defined_functions_enabled: false
materialized_views_enabled: false
sasi_indexes_enabled: false
transient_replication_enabled: false
drop_compact_storage_enabled: false
default_secondary_index: sai
default_secondary_index_enabled: true
storage_compatibility_mode: NONE
EOF
}

write_tools_logback() {
  cat <<'EOF'
<configuration>
  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%-5level %date{"HH:mm:ss,SSS"} %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="STDERR"/></root>
</configuration>
EOF
}

write_node_logback() {
  cat <<'EOF'
<configuration scan="false">
  <appender name="SYSTEMLOG" class="ch.qos.logback.core.rolling.RollingFileAppender">
    <file>${cassandra.logdir}/system.log</file>
    <rollingPolicy class="ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy">
      <fileNamePattern>${cassandra.logdir}/system.log.%d{yyyy-MM-dd}.%i.gz</fileNamePattern>
      <maxFileSize>50MB</maxFileSize>
      <maxHistory>3</maxHistory>
      <totalSizeCap>200MB</totalSizeCap>
    </rollingPolicy>
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <filter class="ch.qos.logback.classic.filter.ThresholdFilter"><level>WARN</level></filter>
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO">
    <appender-ref ref="SYSTEMLOG"/>
    <appender-ref ref="STDOUT"/>
  </root>
  <logger name="org.apache.cassandra" level="INFO"/>
</configuration>
EOF
}

# ---------------------------------------------------------------------------------------------
# node helpers
# ---------------------------------------------------------------------------------------------

node_dir() { echo "$NODES/node$1"; }
node_ip() { echo "127.0.0.$1"; }
node_jmx() { echo $((JMX_BASE + $1)); }

# node_pid i: prints the pid of node i's JVM if it runs, else fails.
node_pid() {
  local f pid
  f="$(node_dir "$1")/cassandra.pid"
  [[ -f "$f" ]] || return 1
  pid=$(<"$f")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "CassandraDaemon" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-Dcassandra.storagedir=$(node_dir "$1") " || return 1
  echo "$pid"
}
node_running() { node_pid "$1" >/dev/null; }

# node indices that have a directory, ascending
known_nodes() {
  local d
  for d in "$NODES"/node*; do
    [[ -d "$d" ]] || continue
    d=${d##*/node}
    [[ "$d" =~ ^[0-9]+$ ]] && echo "$d"
  done | sort -n
}

running_nodes() {
  local i
  for i in $(known_nodes); do node_running "$i" && echo "$i"; done
  return 0
}

# cql_probe ip [user pass]: a real CQL native-protocol v4 handshake over bash's /dev/tcp.
# OPTIONS must be answered with SUPPORTED listing CQL_VERSION; with credentials, STARTUP +
# SASL PLAIN AUTH_RESPONSE must end in AUTH_SUCCESS (or READY when auth is off).
cql_probe() {
  local ip=$1 user=${2:-} pass=${3:-}
  exec 3<>"/dev/tcp/$ip/$CQL_PORT" || return 1
  printf '\x04\x00\x00\x01\x05\x00\x00\x00\x00' >&3
  read_frame || return 1
  [[ $FR_OP == 6 && $FR_BODY == *43514c5f56455253494f4e* ]] || return 1
  [[ -n "$user" ]] || return 0
  printf '\x04\x00\x00\x02\x01\x00\x00\x00\x16\x00\x01\x00\x0bCQL_VERSION\x00\x053.0.0' >&3
  read_frame || return 1
  [[ $FR_OP == 2 ]] && return 0 # READY: no authentication required
  [[ $FR_OP == 3 ]] || return 1 # AUTHENTICATE
  local tl=$((2 + ${#user} + ${#pass}))
  printf "\\x04\\x00\\x00\\x03\\x0f$(hex32 $((tl + 4)))$(hex32 $tl)\\x00%s\\x00%s" "$user" "$pass" >&3
  read_frame || return 1
  [[ $FR_OP == 16 ]] # AUTH_SUCCESS
}
hex32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255)); }
read_frame() {
  local hdr len
  hdr=$(head -c 9 <&3 | od -An -v -tx1 | tr -d ' \n')
  [[ ${#hdr} == 18 ]] || return 1
  FR_OP=$((16#${hdr:8:2}))
  len=$((16#${hdr:10:8}))
  FR_BODY=$(head -c "$len" <&3 | od -An -v -tx1 | tr -d ' \n')
}
probe() { timeout 10 bash "$SCRIPT" __probe "$@" >/dev/null 2>&1; }

java_tool_opts() {
  echo --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-exports java.base/jdk.internal.ref=ALL-UNNAMED \
    --add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED \
    --add-opens java.base/sun.nio.ch=ALL-UNNAMED -Djava.net.preferIPv4Stack=true \
    -Dlogback.configurationFile="$DIST/conf/logback-tools.xml" -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1
}

nodetool_run() { # nodetool_run i args...
  local i=$1
  shift
  # shellcheck disable=SC2046
  java $(java_tool_opts) -cp "$LIB/*" org.apache.cassandra.tools.NodeTool -h 127.0.0.1 -p "$(node_jmx "$i")" "$@"
}

# up_count i: how many nodes node i's gossip sees as Up/Normal.
up_count() { nodetool_run "$1" status 2>/dev/null | grep -c '^UN' || true; }

# ---------------------------------------------------------------------------------------------
# configuration
# ---------------------------------------------------------------------------------------------

# Parsed options (filled by parse_opts).
O_NODES=1 O_HEAP=512M O_AUTH=0 O_TIMEOUT=${CASSANDRA_START_TIMEOUT:-180} O_RESET=0 O_NODE="" O_KILL=0
O_SETS=() O_JVM=()
O_HEAP_SET=0

parse_opts() {
  while (($#)); do
    case "$1" in
      --nodes) O_NODES=$2; shift 2 ;;
      --nodes=*) O_NODES=${1#*=}; shift ;;
      --heap) O_HEAP=$2; O_HEAP_SET=1; shift 2 ;;
      --heap=*) O_HEAP=${1#*=}; O_HEAP_SET=1; shift ;;
      --set) O_SETS+=("$2"); shift 2 ;;
      --set=*) O_SETS+=("${1#*=}"); shift ;;
      --jvm-opt) O_JVM+=("$2"); shift 2 ;;
      --jvm-opt=*) O_JVM+=("${1#*=}"); shift ;;
      --auth) O_AUTH=1; shift ;;
      --timeout) O_TIMEOUT=$2; shift 2 ;;
      --timeout=*) O_TIMEOUT=${1#*=}; shift ;;
      --reset) O_RESET=1; shift ;;
      --node) O_NODE=$2; shift 2 ;;
      --node=*) O_NODE=${1#*=}; shift ;;
      --kill) O_KILL=1; shift ;;
      --force) FORCE=1; shift ;;
      *) die "unknown option: $1" ;;
    esac
  done
  [[ "$O_NODES" =~ ^[1-9][0-9]*$ && "$O_NODES" -le 254 ]] || die "--nodes must be 1..254"
  [[ "$O_HEAP" =~ ^[0-9]+[kKmMgG]$ ]] || die "--heap must look like 512M or 2G"
  [[ "$O_TIMEOUT" =~ ^[0-9]+$ ]] || die "--timeout must be seconds"
  [[ -z "$O_NODE" || "$O_NODE" =~ ^[1-9][0-9]*$ ]] || die "--node must be a node number"
  local s
  for s in ${O_SETS[@]+"${O_SETS[@]}"}; do
    [[ "$s" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "--set wants key=value, got: $s"
  done
}

# The canonical text of the cluster options; equal text means an equal cluster.
cluster_conf_text() {
  local s
  echo "version=$CASSANDRA_VERSION"
  echo "nodes=$O_NODES"
  echo "heap=$O_HEAP"
  echo "auth=$O_AUTH"
  for s in ${O_SETS[@]+"${O_SETS[@]}"}; do echo "set=$s"; done
  for s in ${O_JVM[@]+"${O_JVM[@]}"}; do echo "jvm_opt=$s"; done
}

conf_get() { [[ -f "$1" ]] || return 0; sed -n "s/^$2=//p" "$1" | tail -n 1; }
conf_all() { [[ -f "$1" ]] || return 0; sed -n "s/^$2=//p" "$1"; }

# yaml_override FILE key=value...: replaces top-level keys in FILE (stdout). Empty value: remove.
yaml_override() {
  local file=$1
  shift
  local -A last=()
  local -a order=()
  local kv k
  for kv in "$@"; do
    k=${kv%%=*}
    [[ -v "last[$k]" ]] || order+=("$k")
    last[$k]=${kv#*=}
  done
  local keys="|"
  for k in ${order[@]+"${order[@]}"}; do keys+="$k|"; done
  awk -v keys="$keys" '
    /^[A-Za-z_][A-Za-z0-9_]*[ \t]*:/ { k = $0; sub(/[ \t]*:.*/, "", k); skip = index(keys, "|" k "|") > 0 }
    !skip { print }' "$file"
  echo "# --- overrides written by hack/cassandra.sh ---"
  for k in ${order[@]+"${order[@]}"}; do
    [[ -n "${last[$k]}" ]] && printf '%s: %s\n' "$k" "${last[$k]}"
  done
  return 0
}

# initial tokens for node i of n with t tokens each: interleaved and evenly spaced over the
# Murmur3 ring, so a fresh cluster is balanced and nodes can bootstrap concurrently.
initial_tokens() {
  local i=$1 n=$2 t=$3 j k tok out=""
  local half=$((9223372036854775807 / (t * n)))
  for ((j = 0; j < t; j++)); do
    k=$((j * n + i - 1))
    tok=$((-9223372036854775807 - 1 + k * half + k * half + half))
    out+="${out:+,}$tok"
  done
  echo "$out"
}

# effective_setting NAME sets...: last value given for NAME in key=value list
effective_setting() {
  local name=$1 v="" kv
  shift
  for kv in "$@"; do [[ "${kv%%=*}" == "$name" ]] && v=${kv#*=}; done
  echo "$v"
}

# write_node_conf i: writes node i's cassandra.yaml and logback.xml from the base config, the
# cluster options (cluster.conf) and the node's own restart options (node.conf).
write_node_conf() {
  local i=$1 dir ip
  dir=$(node_dir "$i")
  ip=$(node_ip "$i")
  mkdir -p "$dir"/{conf/triggers,data,commitlog,saved_caches,hints,cdc_raw,logs}
  local -a sets=(
    "listen_address=$ip"
    "rpc_address=$ip"
    "data_file_directories=[$dir/data]"
    "commitlog_directory=$dir/commitlog"
    "saved_caches_directory=$dir/saved_caches"
    "hints_directory=$dir/hints"
    "cdc_raw_directory=$dir/cdc_raw"
    "storage_port=$STORAGE_PORT"
    "native_transport_port=$CQL_PORT"
    "seed_provider=[{class_name: org.apache.cassandra.locator.SimpleSeedProvider, parameters: [{seeds: \"$(node_ip 1):$STORAGE_PORT\"}]}]"
  )
  if [[ "$(conf_get "$NODES/cluster.conf" auth)" == 1 ]]; then
    sets+=(
      "authenticator={class_name: org.apache.cassandra.auth.PasswordAuthenticator}"
      "authorizer={class_name: org.apache.cassandra.auth.CassandraAuthorizer}"
      "role_manager={class_name: org.apache.cassandra.auth.CassandraRoleManager}"
      # The default superuser's permissions are read at QUORUM: with the 2 s default caches a
      # stopped node soon fails every request in the login check rather than in the
      # benchmark's own consistency level.
      "roles_validity=5m"
      "permissions_validity=5m"
      "credentials_validity=5m"
    )
  fi
  local line
  while IFS= read -r line; do sets+=("$line"); done < <(conf_all "$NODES/cluster.conf" set; conf_all "$dir/node.conf" set)
  # Balanced tokens, chosen once when the node has no data yet and kept in node<i>/tokens.
  if [[ -z "$(effective_setting initial_token "${sets[@]}")" ]]; then
    if [[ ! -s "$dir/tokens" ]]; then
      local nt n
      nt=$(effective_setting num_tokens "${sets[@]}")
      nt=${nt:-16}
      n=$(conf_get "$NODES/cluster.conf" nodes)
      ((n >= i)) || n=$i
      if [[ "$nt" =~ ^[0-9]+$ && -z "$(ls -A "$dir/data")" ]]; then
        initial_tokens "$i" "$n" "$nt" >"$dir/tokens"
      else
        : >"$dir/tokens"
      fi
    fi
    [[ -s "$dir/tokens" ]] && sets=("initial_token=\"$(<"$dir/tokens")\"" "${sets[@]}")
  fi
  yaml_override "$DIST/conf/cassandra.yaml" "${sets[@]}" >"$dir/conf/cassandra.yaml"
  write_node_logback >"$dir/conf/logback.xml"
}

# start_node_process i: launches node i's JVM in the background (does not wait).
start_node_process() {
  local i=$1 dir heap jamm
  dir=$(node_dir "$i")
  write_node_conf "$i"
  heap=$(conf_get "$dir/node.conf" heap)
  heap=${heap:-$(conf_get "$NODES/cluster.conf" heap)}
  heap=${heap:-512M}
  jamm=$(compgen -G "$LIB/jamm-*.jar" | head -n 1)
  # shellcheck disable=SC2054 # the commas belong to -Xlog
  local -a opts=(
    -Xms"$heap" -Xmx"$heap" -Xss256k
    -ea -da:net.openhft...
    -XX:+UseThreadPriorities -XX:+UseTLAB -XX:+ResizeTLAB -XX:+UseNUMA -XX:+PerfDisableSharedMem
    -XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxTenuringThreshold=1
    -XX:G1RSetUpdatingPauseTimePercent=5 -XX:MaxGCPauseMillis=300 -XX:InitiatingHeapOccupancyPercent=70
    -XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath="$dir/logs" -XX:+ExitOnOutOfMemoryError
    -Xlog:gc=info:file="$dir/logs/gc.log":time,uptime:filecount=3,filesize=10M
    -Djava.net.preferIPv4Stack=true
    -Djdk.attach.allowAttachSelf=true
    --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
    --add-exports java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED
    --add-exports java.rmi/sun.rmi.registry=ALL-UNNAMED
    --add-exports java.rmi/sun.rmi.server=ALL-UNNAMED
    --add-exports java.sql/java.sql=ALL-UNNAMED
    --add-exports java.base/java.lang.ref=ALL-UNNAMED
    --add-exports jdk.unsupported/sun.misc=ALL-UNNAMED
    --add-exports jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED
    --add-exports jdk.attach/sun.tools.attach=ALL-UNNAMED
    --add-opens java.base/java.lang.module=ALL-UNNAMED
    --add-opens java.base/jdk.internal.loader=ALL-UNNAMED
    --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
    --add-opens java.base/jdk.internal.reflect=ALL-UNNAMED
    --add-opens java.base/jdk.internal.math=ALL-UNNAMED
    --add-opens java.base/jdk.internal.module=ALL-UNNAMED
    --add-opens java.base/jdk.internal.util.jar=ALL-UNNAMED
    --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED
    --add-opens java.base/sun.nio.ch=ALL-UNNAMED
    --add-opens java.base/java.io=ALL-UNNAMED
    --add-opens java.base/java.lang.reflect=ALL-UNNAMED
    --add-opens jdk.compiler/com.sun.tools.javac=ALL-UNNAMED
    --add-opens java.base/java.lang=ALL-UNNAMED
    --add-opens java.base/java.util=ALL-UNNAMED
    --add-opens java.base/java.nio=ALL-UNNAMED
    -Dio.netty.tryReflectionSetAccessible=true
    -Dio.netty.allocator.useCacheForAllThreads=true
    -Dio.netty.allocator.maxOrder=11
    -javaagent:"$jamm"
    -Dcassandra.storagedir="$dir"
    -Dcassandra.config="file://$dir/conf/cassandra.yaml"
    -Dcassandra.logdir="$dir/logs"
    -Dcassandra.triggers_dir="$dir/conf/triggers"
    -Dlogback.configurationFile="file://$dir/conf/logback.xml"
    -Dcassandra.jmx.local.port="$(node_jmx "$i")"
    -Dcassandra-foreground=yes
    -Dcassandra.skip_wait_for_gossip_to_settle=0
    -Dcassandra.ring_delay_ms=2000
    -Dcassandra.consistent.rangemovement=false
    -Dcassandra.superuser_setup_delay_ms=500
    -Dcassandra.shutdown_announce_in_ms=500
  )
  local line
  while IFS= read -r line; do opts+=("$line"); done < <(conf_all "$NODES/cluster.conf" jvm_opt; conf_all "$dir/node.conf" jvm_opt)
  {
    echo "# $(date -Is) start node $i"
    printf '%q ' java "${opts[@]}" -cp "$LIB/*" org.apache.cassandra.service.CassandraDaemon
    echo
  } >"$dir/conf/command.sh"
  echo "=== $(date -Is) starting node $i" >>"$dir/logs/stdout.log"
  # The JVM must inherit no descriptor but 0-2: an inherited lock file (ours, or a caller's
  # flock(1)) would stay locked for the node's whole life.
  (
    for fd in /proc/"$BASHPID"/fd/*; do
      fd=${fd##*/}
      ((fd > 2)) && eval "exec $fd>&-" 2>/dev/null
    done
    exec setsid java "${opts[@]}" -cp "$LIB/*" org.apache.cassandra.service.CassandraDaemon
  ) </dev/null >>"$dir/logs/stdout.log" 2>&1 &
  local pid=$! n
  STARTED_PIDS+=("$pid")
  echo "$pid" >"$dir/cassandra.pid"
  # node_pid recognises the JVM by its command line: wait for the exec to happen.
  for ((n = 0; n < 100; n++)); do
    node_running "$i" && return 0
    kill -0 "$pid" 2>/dev/null || return 0 # exited already: wait_cql reports it with the log
    sleep 0.1
  done
}

STARTED_PIDS=()

# node_failure i reason: reports the node's log, stops the nodes this call started, exits 1.
node_failure() {
  local i=$1 dir pid n
  dir=$(node_dir "$i")
  {
    echo "cassandra: error: node $i ($(node_ip "$i")) $2"
    echo "--- last lines of $dir/logs/system.log ---"
    tail -n 40 "$dir/logs/system.log" 2>/dev/null || true
    echo "--- last lines of $dir/logs/stdout.log ---"
    tail -n 20 "$dir/logs/stdout.log" 2>/dev/null || true
  } >&2
  for pid in ${STARTED_PIDS[@]+"${STARTED_PIDS[@]}"}; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in ${STARTED_PIDS[@]+"${STARTED_PIDS[@]}"}; do
    for ((n = 0; n < 60; n++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  ((${#STARTED_PIDS[@]} == 0)) || echo "cassandra: stopped the node(s) this call started" >&2
  exit 1
}

# wait_cql deadline i...: waits until every listed node answers the CQL handshake.
wait_cql() {
  local deadline=$1 i pending
  shift
  pending=("$@")
  while ((${#pending[@]})); do
    local still=()
    for i in "${pending[@]}"; do
      node_running "$i" || node_failure "$i" "exited during startup"
      if probe "$(node_ip "$i")"; then
        log "node $i ($(node_ip "$i")) answers CQL after $((SECONDS - START_T0))s"
      else
        still+=("$i")
      fi
    done
    pending=(${still[@]+"${still[@]}"})
    ((${#pending[@]})) || break
    ((SECONDS < deadline)) || node_failure "${pending[0]}" "did not answer CQL on $(node_ip "${pending[0]}"):$CQL_PORT within ${O_TIMEOUT}s"
    sleep 1
  done
}

# wait_ring deadline: waits until every running node sees all running nodes as UN.
wait_ring() {
  local deadline=$1 i want
  local -a nodes
  mapfile -t nodes < <(running_nodes)
  want=${#nodes[@]}
  for i in "${nodes[@]}"; do
    local seen=0
    while :; do
      seen=$(up_count "$i")
      ((seen == want)) && break
      ((SECONDS < deadline)) || node_failure "$i" "sees $seen of $want nodes Up/Normal after ${O_TIMEOUT}s"
      sleep 2
    done
  done
  log "all $want running node(s) see each other as UN"
}

wait_auth() { # wait_auth deadline: the default superuser can log in on node 1
  local deadline=$1
  [[ "$(conf_get "$NODES/cluster.conf" auth)" == 1 ]] || return 0
  until probe "$(node_ip 1)" cassandra cassandra; do
    ((SECONDS < deadline)) || node_failure 1 "does not accept cassandra/cassandra within ${O_TIMEOUT}s"
    sleep 1
  done
  log "superuser cassandra/cassandra can log in"
}

check_loopback() {
  local i=$1
  if command -v ip >/dev/null; then
    ip route get "$(node_ip "$i")" 2>/dev/null | grep -q ' dev lo' ||
      die "$(node_ip "$i") does not route to lo; add it (ip addr add $(node_ip "$i")/8 dev lo)"
  fi
}

# ---------------------------------------------------------------------------------------------
# subcommands
# ---------------------------------------------------------------------------------------------

cmd_check() {
  parse_opts "$@"
  local want have
  want=$(cluster_conf_text)
  have=$(cat "$NODES/cluster.conf" 2>/dev/null || true)
  if [[ "$want" == "$have" ]]; then
    echo "same"
  else
    echo "different"
    exit 1
  fi
}

cmd_start() {
  parse_opts "$@"
  [[ -z "$O_NODE" ]] || die "start takes --nodes; use restart --node i for one node"
  fetch
  if ((O_RESET)) && [[ "$(cluster_conf_text)" != "$(cat "$NODES/cluster.conf" 2>/dev/null || true)" ]]; then
    take_users_lock
  fi
  take_lock
  START_T0=$SECONDS
  local deadline=$((SECONDS + O_TIMEOUT)) want have i
  want=$(cluster_conf_text)
  have=$(cat "$NODES/cluster.conf" 2>/dev/null || true)
  local -a running
  mapfile -t running < <(running_nodes)
  local have_nodes
  have_nodes=$(conf_get "$NODES/cluster.conf" nodes)
  if [[ "$want" != "$have" && -n "$have_nodes" && "$have_nodes" -lt "$O_NODES" &&
    "$(grep -v '^nodes=' <<<"$want")" == "$(grep -v '^nodes=' <<<"$have")" ]]; then
    log "growing the cluster from $have_nodes to $O_NODES node(s)"
  elif [[ "$want" != "$have" ]]; then
    if ((O_RESET)); then
      [[ -z "$have" ]] || log "cluster options changed: wiping"
      wipe_locked
    elif ((${#running[@]})); then
      {
        echo "cassandra: error: nodes ${running[*]} run with other options; stop or wipe first, or pass --reset"
        echo "--- running with:"
        echo "$have"
        echo "--- requested:"
        echo "$want"
      } >&2
      exit 3
    else
      local prev
      prev=$(conf_get "$NODES/cluster.conf" nodes)
      if [[ -n "$prev" ]] && ((prev > O_NODES)); then
        log "warning: data of a $prev-node cluster is kept; nodes $((O_NODES + 1))..$prev will show as down (use wipe or --reset)"
      fi
      rm -f "$NODES"/node*/node.conf
    fi
  fi
  mkdir -p "$NODES"
  echo "$want" >"$NODES/cluster.conf"
  for ((i = 1; i <= O_NODES; i++)); do check_loopback "$i"; done

  local -a todo=()
  for ((i = 1; i <= O_NODES; i++)); do node_running "$i" || todo+=("$i"); done
  local started=${#todo[@]}
  if ((${#todo[@]} == 0)); then
    log "already running: $O_NODES node(s)"
  else
    log "starting node(s) ${todo[*]} of $O_NODES (Cassandra $CASSANDRA_VERSION, heap $O_HEAP)"
    if [[ "${todo[0]}" == 1 ]]; then
      start_node_process 1
      wait_cql "$deadline" 1
      todo=("${todo[@]:1}")
    fi
    if ((${#todo[@]})); then
      for i in "${todo[@]}"; do start_node_process "$i"; done
      wait_cql "$deadline" "${todo[@]}"
    fi
  fi
  # shellcheck disable=SC2046
  ((started)) || wait_cql "$deadline" $(seq 1 "$O_NODES")
  # A cluster this script brought up before was checked then: skip the (JVM-costly) ring check.
  ((started == 0)) || wait_ring "$deadline"
  wait_auth "$deadline"
  log "cluster up in $((SECONDS - START_T0))s: hosts $(for ((i = 1; i <= O_NODES; i++)); do printf '%s ' "$(node_ip "$i")"; done)port $CQL_PORT"
}

stop_nodes() { # stop_nodes kill(0|1) i...
  local hard=$1 i pid
  shift
  local -a pids=() which=()
  for i in "$@"; do
    if pid=$(node_pid "$i"); then
      if ((hard)); then kill -KILL "$pid" 2>/dev/null || true; else kill -TERM "$pid" 2>/dev/null || true; fi
      pids+=("$pid")
      which+=("$i")
    fi
  done
  ((${#pids[@]})) || return 0
  log "stopping node(s) ${which[*]}"
  local deadline=$((SECONDS + 90)) alive
  while :; do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || break
    if ((SECONDS >= deadline)); then
      log "node(s) did not exit within 90s: sending SIGKILL"
      for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
      deadline=$((SECONDS + 30))
    fi
    sleep 0.5
  done
  for i in "${which[@]}"; do rm -f "$(node_dir "$i")/cassandra.pid"; done
  log "stopped node(s) ${which[*]}"
}

cmd_stop() {
  parse_opts "$@"
  take_users_lock
  take_lock
  if [[ -n "$O_NODE" ]]; then
    stop_nodes "$O_KILL" "$O_NODE"
  else
    # shellcheck disable=SC2046
    stop_nodes "$O_KILL" $(known_nodes)
  fi
}

wipe_locked() {
  # shellcheck disable=SC2046
  stop_nodes 0 $(known_nodes)
  rm -rf "$NODES"
}

cmd_wipe() {
  parse_opts "$@"
  take_users_lock
  take_lock
  wipe_locked
  log "wiped $NODES"
}

cmd_restart() {
  parse_opts "$@"
  [[ -n "$O_NODE" ]] || die "restart needs --node i"
  [[ -f "$NODES/cluster.conf" ]] || die "no cluster: run start first"
  local n i=$O_NODE
  n=$(conf_get "$NODES/cluster.conf" nodes)
  ((i <= n)) || die "node $i is not part of the $n-node cluster"
  fetch
  take_users_lock
  take_lock
  START_T0=$SECONDS
  local deadline=$((SECONDS + O_TIMEOUT)) dir s
  dir=$(node_dir "$i")
  stop_nodes 0 "$i"
  mkdir -p "$dir"
  # Changes accumulate in node.conf and are recorded in cluster.conf, so the cluster no longer
  # counts as started with plain options (check fails; start refuses without --reset).
  ((O_HEAP_SET)) && { echo "heap=$O_HEAP" >>"$dir/node.conf"; echo "node$i.heap=$O_HEAP" >>"$NODES/cluster.conf"; }
  for s in ${O_SETS[@]+"${O_SETS[@]}"}; do echo "set=$s" >>"$dir/node.conf"; echo "node$i.set=$s" >>"$NODES/cluster.conf"; done
  for s in ${O_JVM[@]+"${O_JVM[@]}"}; do echo "jvm_opt=$s" >>"$dir/node.conf"; echo "node$i.jvm_opt=$s" >>"$NODES/cluster.conf"; done
  log "starting node $i"
  start_node_process "$i"
  wait_cql "$deadline" "$i"
  wait_ring "$deadline"
  log "node $i restarted in $((SECONDS - START_T0))s"
}

cmd_status() {
  if [[ ! -f "$NODES/cluster.conf" ]]; then
    echo "no cluster (fetched: $(fetched && echo yes || echo no), cache $CROOT)"
    return 0
  fi
  echo "cluster options ($NODES/cluster.conf):"
  sed 's/^/  /' "$NODES/cluster.conf"
  local i pid rss cql
  for i in $(known_nodes); do
    if pid=$(node_pid "$i"); then
      rss=$(awk '/VmRSS/ {printf "%d MiB", $2/1024}' "/proc/$pid/status" 2>/dev/null || echo "?")
      probe "$(node_ip "$i")" && cql="CQL up" || cql="CQL down"
      echo "node$i $(node_ip "$i") running pid $pid rss $rss, $cql, jmx 127.0.0.1:$(node_jmx "$i")"
    else
      echo "node$i $(node_ip "$i") stopped"
    fi
  done
}

# cmd_signal SIG --node i: sends SIG to node i's JVM. A paused node keeps its sockets open and
# answers nothing, as a node in a long GC pause or behind a dead link does.
cmd_signal() {
  local sig=$1 i=
  shift
  [[ "${1:-}" == --node && -n "${2:-}" ]] || die "usage: pause|resume --node i"
  i=$2
  local pid
  pid=$(node_pid "$i") || die "node $i does not run"
  kill "-$sig" "$pid"
}

cmd_nodetool() {
  local i=1
  if [[ "${1:-}" == --node ]]; then i=$2; shift 2; fi
  fetched || die "not fetched: run fetch first"
  nodetool_run "$i" "$@"
}

case "${1:-}" in
  fetch) shift; fetch; echo "$DIST" ;;
  start) shift; cmd_start "$@" ;;
  check) shift; cmd_check "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  restart) shift; cmd_restart "$@" ;;
  status) shift; cmd_status ;;
  wipe) shift; cmd_wipe "$@" ;;
  nodetool) shift; cmd_nodetool "$@" ;;
  pause) shift; cmd_signal STOP "$@" ;;
  resume) shift; cmd_signal CONT "$@" ;;
  __probe) shift; cql_probe "$@" ;;
  *)
    sed -n '2,/^set -euo/p' "$SCRIPT" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
