#!/usr/bin/env bash
# Compares the cassbench writer with latte (a Rust Cassandra benchmark known to be frugal) on
# one local Cassandra node: the same table shape (bigint key, 100-byte blob), the same
# concurrency, the same duration, one after the other. What it reports is client efficiency:
# successful writes per CPU-second the client used (user+sys, from /usr/bin/time), the ratio
# cassbench/latte, and each client's peak RSS. Throughput itself is the node's, not the
# client's: on a small machine the node is the bottleneck for both.
#
#   hack/bench-writer.sh [--duration 20s] [--concurrency 128] [--node-warmup 10s|0] [--no-latte] [--profile]
#
# --profile adds a second writer run with -cpuprofile/-memprofile and prints the top of both
# profiles. Output and reports go to $CASSBENCH_CACHE/bench/<time>/ (default ~/.cache/cassbench).
# Cassandra comes from hack/cassandra.sh (one node); if a cluster already runs, its node 1 is
# used as it is, and figures are discarded if that node restarts during a run.
set -euo pipefail

LATTE_VERSION=0.29.0
DURATION=20s
CONCURRENCY=128
NODE_WARMUP=10s
RUN_LATTE=1
PROFILE=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --concurrency) CONCURRENCY="$2"; shift 2 ;;
    --node-warmup) NODE_WARMUP="$2"; shift 2 ;;
    --no-latte) RUN_LATTE=0; shift ;;
    --profile) PROFILE=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "bench-writer: unknown argument $1" >&2; exit 2 ;;
  esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${CASSBENCH_CACHE:-$HOME/.cache/cassbench}"
LATTE="$CACHE/latte-$LATTE_VERSION/bin/latte"
OUT="$CACHE/bench/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"
log() { echo "bench-writer: $*" >&2; }

# --- Cassandra -------------------------------------------------------------------------------
# Like a test process (internal/testutil/cassandra), the benchmark decides under cluster.lock
# and then holds users.lock shared until it exits, so no one stops or replaces the cluster
# under a run: they wait for it.
mkdir -p "$CACHE/cassandra"
exec 7>"$CACHE/cassandra/cluster.lock"
flock -w 1800 7 || { log "timed out waiting for $CACHE/cassandra/cluster.lock"; exit 1; }
status=$("$ROOT/hack/cassandra.sh" status 2>&1 || true)
if grep -q '^node1 .*CQL up' <<<"$status"; then
  # Restarting a cluster that tests may be using is not this script's call.
  log "Cassandra runs already: benchmarking against its node 1 (127.0.0.1) as it is"
else
  # Nothing runs, so no one loses a cluster: a stopped one of other options may be replaced.
  "$ROOT/hack/cassandra.sh" start --nodes 1 --reset >&2
fi
exec 8>"$CACHE/cassandra/users.lock"
flock -s -w 1800 8 || { log "timed out waiting for $CACHE/cassandra/users.lock"; exit 1; }
flock -u 7
# node1_pid prints the pid of node 1's JVM: if it changes during a client's run, someone
# restarted the node under the benchmark and the figures mean nothing.
node1_pid() { "$ROOT/hack/cassandra.sh" status 2>&1 | awk '/^node1 .*CQL up/ { for (i = 1; i < NF; i++) if ($i == "pid") print $(i+1) }'; }
check_node() {
  local now
  now=$(node1_pid)
  if [[ $now != "$NODE_PID" ]]; then
    log "node 1 restarted or went down during the $1 run (pid $NODE_PID, now ${now:-none}): figures discarded"
    exit 1
  fi
}
NODE_PID=$(node1_pid)
USER_ARGS=() LATTE_AUTH=()
if grep -q '^auth=1' "$CACHE/cassandra/nodes/cluster.conf" 2>/dev/null; then
  USER_ARGS=(--username cassandra --password cassandra)
  LATTE_AUTH=(--user cassandra --password cassandra)
fi

# --- clients ---------------------------------------------------------------------------------
log "building cassbench"
(cd "$ROOT" && go build -o "$OUT/cassbench" ./cmd/cassbench)
if [[ $RUN_LATTE == 1 && ! -x $LATTE ]]; then
  log "installing latte $LATTE_VERSION into $CACHE/latte-$LATTE_VERSION (a few minutes, once)"
  if ! cargo install latte-cli --locked --version "$LATTE_VERSION" --root "$CACHE/latte-$LATTE_VERSION" >"$OUT/latte-install.log" 2>&1; then
    log "latte could not be installed (see $OUT/latte-install.log): reporting the writer alone"
    RUN_LATTE=0
  fi
fi

cat >"$OUT/spec.yaml" <<EOF
spec:
  datacenterRef: {name: local}
  schema: {keyspace: bench_writer, recreate: true, table: {profile: key-value}}
  workload: {valueSize: {min: 100, max: 100}}
  writers: {replicas: 1, concurrency: $CONCURRENCY, duration: $DURATION, connectionsPerHost: 1}
EOF

cat >"$OUT/latte.rn" <<'EOF'
use latte::*;

const KEYSPACE = "bench_latte";
const INSERT = "insert";

pub async fn schema(ctx) {
    ctx.execute(`DROP KEYSPACE IF EXISTS ${KEYSPACE}`).await?;
    ctx.execute(`CREATE KEYSPACE ${KEYSPACE} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`).await?;
    ctx.execute(`CREATE TABLE ${KEYSPACE}.key_value (key bigint PRIMARY KEY, value blob)`).await?;
    Ok(())
}

pub async fn prepare(ctx) {
    ctx.prepare(INSERT, `INSERT INTO ${KEYSPACE}.key_value (key, value) VALUES (?, ?)`).await?;
    Ok(())
}

pub async fn run(ctx, i) {
    ctx.execute_prepared(INSERT, [i, blob(i, 100)]).await
}
EOF

# calc EXPR evaluates arithmetic in floating point.
calc() { awk "BEGIN { print $1 }"; }

# cpu_rss FILE prints "cpu-seconds peak-rss-kib" from /usr/bin/time's "%U %S %M".
cpu_rss() { awk '{printf "%.3f %d\n", $1 + $2, $3}' "$1"; }

# --- node warm-up ----------------------------------------------------------------------------
# A freshly started JVM is slower until its JIT has compiled the write path; whichever client
# ran first would pay for it. A throwaway writer run comes first instead.
"$OUT/cassbench" setup -f "$OUT/spec.yaml" "${USER_ARGS[@]}" --termination-log "" >"$OUT/setup.json" 2>"$OUT/setup.log" ||
  { cat "$OUT/setup.log" >&2; exit 1; }
if [[ $NODE_WARMUP != 0 ]]; then
  log "warming the node up for $NODE_WARMUP"
  sed "s/duration: $DURATION/duration: $NODE_WARMUP/" "$OUT/spec.yaml" >"$OUT/warmup.yaml"
  "$OUT/cassbench" writer -f "$OUT/warmup.yaml" "${USER_ARGS[@]}" --run-id "bench-warm-$$" \
    --metrics-addr "" --termination-log "" >"$OUT/warmup.json" 2>"$OUT/warmup.log"
fi

# --- cassbench writer ------------------------------------------------------------------------
log "cassbench writer: concurrency $CONCURRENCY for $DURATION"
"$OUT/cassbench" setup -f "$OUT/spec.yaml" "${USER_ARGS[@]}" --termination-log "" >"$OUT/setup.json" 2>"$OUT/setup.log" ||
  { cat "$OUT/setup.log" >&2; exit 1; }
/usr/bin/time -f "%U %S %M" -o "$OUT/writer.time" \
  "$OUT/cassbench" writer -f "$OUT/spec.yaml" "${USER_ARGS[@]}" --run-id "bench-$$" \
  --metrics-addr "" --termination-log "" >"$OUT/writer.json" 2>"$OUT/writer.log"
check_node cassbench
read -r W_CPU W_RSS < <(cpu_rss "$OUT/writer.time")
W_OPS=$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["w"]; print(w["ok"])' "$OUT/writer.json")
W_FAILED=$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["w"]; print(sum(v for k, v in w.items() if k in ("wto","rto","una","ovl","cto","oth")))' "$OUT/writer.json")
W_RUNTIME=$(grep '^runtime:' "$OUT/writer.log" || true)

# --- latte -----------------------------------------------------------------------------------
if [[ $RUN_LATTE == 1 ]]; then
  log "latte $LATTE_VERSION: concurrency $CONCURRENCY for $DURATION"
  # latte writes a log file into its working directory: keep it with the reports.
  (
    cd "$OUT"
    "$LATTE" schema latte.rn "${LATTE_AUTH[@]}" 127.0.0.1 >latte-schema.log 2>&1
    /usr/bin/time -f "%U %S %M" -o latte.time \
      "$LATTE" run latte.rn -d "$DURATION" -w 0 -t 1 -p "$CONCURRENCY" -c 1 -q \
      -o latte.json "${LATTE_AUTH[@]}" 127.0.0.1 >latte.log 2>&1
  )
  check_node latte
  read -r L_CPU L_RSS < <(cpu_rss "$OUT/latte.time")
  read -r L_OPS L_FAILED < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["result"]; print(r["request_count"] - r["error_count"], r["error_count"])' "$OUT/latte.json")
fi

# --- report ----------------------------------------------------------------------------------
{
  echo
  echo "table: bigint key, 100-byte blob; concurrency $CONCURRENCY; duration $DURATION; one connection"
  printf '%-16s %10s %8s %9s %14s %14s\n' client writes failed "CPU-s" "writes/CPU-s" "peak RSS MiB"
  printf '%-16s %10d %8d %9.2f %14.0f %14.1f\n' "cassbench" "$W_OPS" "$W_FAILED" "$W_CPU" \
    "$(calc "$W_OPS / $W_CPU")" "$(calc "$W_RSS / 1024")"
  if [[ $RUN_LATTE == 1 ]]; then
    printf '%-16s %10d %8d %9.2f %14.0f %14.1f\n' "latte $LATTE_VERSION" "$L_OPS" "$L_FAILED" "$L_CPU" \
      "$(calc "$L_OPS / $L_CPU")" "$(calc "$L_RSS / 1024")"
    printf 'cassbench/latte writes per CPU-second: %.2f\n' "$(calc "($W_OPS / $W_CPU) / ($L_OPS / $L_CPU)")"
  else
    echo "latte: not run"
  fi
  [[ -n $W_RUNTIME ]] && echo "cassbench writer $W_RUNTIME"
  echo "reports: $OUT"
} | tee "$OUT/report.txt"

if [[ $PROFILE == 1 ]]; then
  log "profiling a second writer run"
  "$OUT/cassbench" setup -f "$OUT/spec.yaml" "${USER_ARGS[@]}" --termination-log "" >"$OUT/setup-prof.json" 2>"$OUT/setup-prof.log"
  "$OUT/cassbench" writer -f "$OUT/spec.yaml" "${USER_ARGS[@]}" --run-id "bench-prof-$$" \
    --metrics-addr "" --termination-log "" --cpuprofile "$OUT/writer.cpu" --memprofile "$OUT/writer.mem" \
    >"$OUT/writer-prof.json" 2>"$OUT/writer-prof.log"
  {
    echo; echo "CPU profile (top 20 by cumulative):"
    go tool pprof -top -cum -nodecount 20 "$OUT/cassbench" "$OUT/writer.cpu" 2>/dev/null | tail -n 21
    echo; echo "allocations (top 15 objects):"
    go tool pprof -top -sample_index=alloc_objects -nodecount 15 "$OUT/cassbench" "$OUT/writer.mem" 2>/dev/null | tail -n 16
  } | tee -a "$OUT/report.txt"
fi
