#!/usr/bin/env bash
# Compares the cassbench writer with latte (a Rust Cassandra benchmark known to be frugal) on
# one local Cassandra node: the same table shape (bigint key, 100-byte blob), the same requests
# in flight, the same duration, the same number of threads, one client at a time. What it
# reports is client efficiency: successful writes per CPU-second the client used (user+sys,
# from /usr/bin/time), the ratio cassbench/latte, and each client's peak RSS. The writer is
# cassbench-writer, the binary writer pods run, given the spec `cassbench validate -o json`
# admits, as a pod is given the spec the API server admitted. Throughput itself
# is the node's, not the client's: on a small machine the node is the bottleneck for both.
#
#   hack/bench-writer.sh [--duration 20s] [--concurrency "128"] [--threads "1 2"] [--rounds 3]
#                        [--rate "5000 10000"] [--rate-concurrency 128] [--pacing-tick 1ms]
#                        [--node-warmup 10s|0] [--no-latte] [--profile] [--baseline REV] [--stock]
#
# --rate adds open-loop points: at each rate (operations per second) the writer runs with
# writers.rate and up to --rate-concurrency in flight, latte with `run -r RATE` and as many
# in flight, so both ask the node for the same work and only the client's own cost differs.
# Those runs are reported with their schedule lag p50 (the writer's; latte's report has none).
# --pacing-tick D gives the writer's open loops writers.pacingTick D: it wakes once a tick and
# sends what is due together, as latte does on tokio's millisecond timer, instead of waking
# for each operation at its intended start.
# Every run is reported with the machine's one-minute load average as it ended: on a shared
# machine, CPU-seconds per write move less with load than throughput does, but not nothing.
#
# --stock also runs the writer with writers.driverIO: Stock (the driver's own sends and
# routing, without cassbench's batching layer) in every round: cassbench/stock in the report.
# --baseline REV also builds the writer of git revision REV and runs it as a third client in
# every round, so that a change's cost is a ratio against the code before it, measured side
# by side on the same node (cassbench/baseline in the report).
# --concurrency and --threads take lists: every pair (concurrency, threads) is measured, so
# `--concurrency "1 8 128 1024" --threads 1` gives the curve of efficiency against requests in
# flight, where each client saturates. Each pair is measured in its own rounds, the two clients alternating within a round
# so that a node that speeds up or slows down over the benchmark (JIT, compaction) weighs on
# both alike; the report gives every run and the medians. Threads are GOMAXPROCS for the writer
# (what a writer pod's CPU limit sets) and --threads for latte, whose --concurrency is per
# thread and so gets concurrency/threads. --profile adds a writer run with -cpuprofile and
# -memprofile at the first thread count and prints the top of both profiles and the shares of
# the CPU taken by the driver, the writer's own work, the scheduler and the collector. Output and
# reports go to $CASSBENCH_CACHE/bench/<time>/ (default ~/.cache/cassbench). Cassandra comes
# from hack/cassandra.sh (one node); if a cluster already runs, its node 1 is used as it is,
# and figures are discarded if that node restarts during a run. The script starts and times the
# clients; its arithmetic (the runs' figures, medians, ratios, the profile's shares) is
# hack/benchwriter's, a Go program with tests.
set -euo pipefail
ARGS=("$@") # for the run under `hack/cassandra.sh use`

LATTE_VERSION=0.29.0
DURATION=20s
CONCURRENCIES=128
THREADS="1 2"
ROUNDS=3
NODE_WARMUP=10s
RUN_LATTE=1
PROFILE=0
BASELINE=""
STOCK=0
RATES=""
RATE_CONCURRENCY=128
PACING_TICK=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --concurrency) CONCURRENCIES="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --node-warmup) NODE_WARMUP="$2"; shift 2 ;;
    --no-latte) RUN_LATTE=0; shift ;;
    --profile) PROFILE=1; shift ;;
    --baseline) BASELINE="$2"; shift 2 ;;
    --stock) STOCK=1; shift ;;
    --rate) RATES="$2"; shift 2 ;;
    --rate-concurrency) RATE_CONCURRENCY="$2"; shift 2 ;;
    --pacing-tick) PACING_TICK="$2"; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
    *) echo "bench-writer: unknown argument $1" >&2; exit 2 ;;
  esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${CASSBENCH_CACHE:-$HOME/.cache/cassbench}"
LATTE="$CACHE/latte-$LATTE_VERSION/bin/latte"
log() { echo "bench-writer: $*" >&2; }

# --- Cassandra -------------------------------------------------------------------------------
# Like a test process, the benchmark uses the cluster as it is when node 1 answers CQL
# (restarting a cluster that tests may be using is not its call) and otherwise starts one
# node; `hack/cassandra.sh use` holds users.lock shared while the benchmark runs, so no one
# stops or replaces the cluster under a run: they wait for it.
if [[ -z "${CASSBENCH_USERS_LOCK_HELD:-}" ]]; then
  exec "$ROOT/hack/cassandra.sh" use --nodes 1 -- "$0" ${ARGS[@]+"${ARGS[@]}"}
fi
OUT="$CACHE/bench/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"
# Node 1 listens on 127.0.0.(k+1) with CASSBENCH_CASSANDRA_OFFSET=k, as hack/cassandra.sh
# places it; every client is pointed there.
NODE1="127.0.0.$(( ${CASSBENCH_CASSANDRA_OFFSET:-0} + 1 ))"
export CASSBENCH_HOSTS="${CASSBENCH_HOSTS:-$NODE1}"
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
if grep -q '^auth=1' "${CASSBENCH_CASSANDRA_DIR:-$CACHE/cassandra}/nodes/cluster.conf" 2>/dev/null; then
  USER_ARGS=(--username cassandra --password cassandra)
  LATTE_AUTH=(--user cassandra --password cassandra)
fi

# --- clients ---------------------------------------------------------------------------------
log "building cassbench, cassbench-writer and benchwriter"
(cd "$ROOT" && go build -o "$OUT/cassbench" ./cmd/cassbench && go build -o "$OUT/cassbench-writer" ./cmd/cassbench-writer &&
  go build -o "$OUT/benchwriter" ./hack/benchwriter)
# A baseline from before cassbench-writer existed runs `cassbench writer`, as its pods did,
# given the spec rather than the admitted form; baseline_spec C names the file.
BASELINE_WRITER=()
if [[ -n $BASELINE ]]; then
  log "building the baseline writer at $BASELINE"
  git -C "$ROOT" worktree add --detach -q "$OUT/baseline-src" "$BASELINE"
  if [[ -d $OUT/baseline-src/cmd/cassbench-writer ]]; then
    (cd "$OUT/baseline-src" && go build -o "$OUT/cassbench-writer-baseline" ./cmd/cassbench-writer)
    BASELINE_WRITER=("$OUT/cassbench-writer-baseline" -f)
  else
    (cd "$OUT/baseline-src" && go build -o "$OUT/cassbench-baseline" ./cmd/cassbench)
    BASELINE_WRITER=("$OUT/cassbench-baseline" writer -f)
  fi
  git -C "$ROOT" worktree remove --force "$OUT/baseline-src"
fi
baseline_spec() {
  if [[ ${BASELINE_WRITER[0]} == */cassbench-writer-baseline ]]; then
    echo "$OUT/spec-$1.admitted.json"
  else
    echo "$OUT/spec-$1.yaml"
  fi
}
if [[ $RUN_LATTE == 1 && ! -x $LATTE ]]; then
  log "installing latte $LATTE_VERSION into $CACHE/latte-$LATTE_VERSION (a few minutes, once)"
  if ! cargo install latte-cli --locked --version "$LATTE_VERSION" --root "$CACHE/latte-$LATTE_VERSION" >"$OUT/latte-install.log" 2>&1; then
    log "latte could not be installed (see $OUT/latte-install.log): reporting the writer alone"
    RUN_LATTE=0
  fi
fi

# spec_for C [RATE] writes the writer's specs for C requests in flight (at RATE operations per
# second, when given): spec-C (batched I/O) and spec-stock-C, or spec-C-rRATE and
# spec-stock-C-rRATE, admitted as a pod is given them.
spec_for() {
  local c=$1 rate=${2:-} name=$1 rateField=""
  if [[ -n $rate ]]; then
    name="$c-r$rate" rateField=", rate: $rate${PACING_TICK:+, pacingTick: $PACING_TICK}"
  fi
  cat >"$OUT/spec-$name.yaml" <<EOF
apiVersion: cassbench.io/v1alpha1
kind: BenchmarkRun
metadata: {name: bench-writer}
spec:
  datacenterRef: {name: local}
  schema: {keyspace: bench_writer, recreate: true, table: {profile: key-value}}
  workload: {valueSize: {min: 100, max: 100}}
  writers: {replicas: 1, concurrency: $c, duration: $DURATION, connectionsPerHost: 1$rateField}
EOF
  sed "s/connectionsPerHost: 1/connectionsPerHost: 1, driverIO: Stock/" "$OUT/spec-$name.yaml" >"$OUT/spec-stock-$name.yaml"
  for s in "spec-$name" "spec-stock-$name"; do
    "$OUT/cassbench" validate -o json "$OUT/$s.yaml" >"$OUT/$s.admitted.json"
  done
}
for c in $CONCURRENCIES; do spec_for "$c"; done
for rate in $RATES; do spec_for "$RATE_CONCURRENCY" "$rate"; done
# The first concurrency's spec sets up the table, warms the node up and is profiled.
read -r FIRST_C _ <<<"$CONCURRENCIES"
cp "$OUT/spec-$FIRST_C.yaml" "$OUT/spec.yaml"
cp "$OUT/spec-$FIRST_C.admitted.json" "$OUT/spec.admitted.json"
if [[ $NODE_WARMUP != 0 ]]; then
  sed "s/duration: $DURATION/duration: $NODE_WARMUP/" "$OUT/spec.yaml" >"$OUT/warmup.yaml"
  "$OUT/cassbench" validate -o json "$OUT/warmup.yaml" >"$OUT/warmup.admitted.json"
fi

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

# --- node warm-up ----------------------------------------------------------------------------
# A freshly started JVM is slower until its JIT has compiled the write path; whichever client
# ran first would pay for it. A throwaway writer run comes first instead.
"$OUT/cassbench" setup -f "$OUT/spec.yaml" "${USER_ARGS[@]}" --termination-log "" >"$OUT/setup.json" 2>"$OUT/setup.log" ||
  { cat "$OUT/setup.log" >&2; exit 1; }
if [[ $NODE_WARMUP != 0 ]]; then
  log "warming the node up for $NODE_WARMUP"
  "$OUT/cassbench-writer" -f "$OUT/warmup.admitted.json" "${USER_ARGS[@]}" --run-id "bench-warm-$$" \
    --metrics-addr "" --termination-log "" >"$OUT/warmup.json" 2>"$OUT/warmup.log"
fi

# --- the runs --------------------------------------------------------------------------------
# Each run appends "client threads concurrency round writes failed cpu-seconds peak-rss-kib
# rate load lag-p50-µs" to runs.txt.
RUNS="$OUT/runs.txt"
: >"$RUNS"

# load1 prints the machine's one-minute load average.
load1() { cut -d' ' -f1 /proc/loadavg; }

# run_cassbench THREADS CONCURRENCY RATE ROUND [CLIENT WRITER-COMMAND...] (RATE 0: closed loop)
run_cassbench() {
  local t=$1 c=$2 rate=$3 r=$4 client=${5:-cassbench}
  local writer=("${@:6}") name=$c
  (( rate == 0 )) || name="$c-r$rate"
  [[ ${#writer[@]} -gt 0 ]] || writer=("$OUT/cassbench-writer" -f "$OUT/spec-$name.admitted.json")
  "$OUT/cassbench" setup -f "$OUT/spec.yaml" "${USER_ARGS[@]}" --termination-log "" >"$OUT/setup.json" 2>"$OUT/setup.log" ||
    { cat "$OUT/setup.log" >&2; exit 1; }
  GOMAXPROCS=$t /usr/bin/time -f "%U %S %M" -o "$OUT/$client-$t-$name-$r.time" \
    "${writer[@]}" "${USER_ARGS[@]}" --run-id "bench-$$-$client-$t-$name-$r" \
    --metrics-addr "" --termination-log "" >"$OUT/$client-$t-$name-$r.json" 2>"$OUT/$client-$t-$name-$r.log"
  local load
  load=$(load1)
  check_node "$client"
  "$OUT/benchwriter" record -client "$client" -threads "$t" -concurrency "$c" -rate "$rate" -round "$r" -load "$load" \
    -time "$OUT/$client-$t-$name-$r.time" -result "$OUT/$client-$t-$name-$r.json" >>"$RUNS"
}

# run_latte THREADS CONCURRENCY RATE ROUND (RATE 0: closed loop)
run_latte() {
  local t=$1 c=$2 rate=$3 r=$4 name=$2 rateArgs=()
  if (( rate != 0 )); then
    name="$c-r$rate" rateArgs=(-r "$rate")
  fi
  # latte writes a log file into its working directory: keep it with the reports.
  (
    cd "$OUT"
    "$LATTE" schema latte.rn "${LATTE_AUTH[@]}" "$NODE1" >latte-schema.log 2>&1
    /usr/bin/time -f "%U %S %M" -o "latte-$t-$name-$r.time" \
      "$LATTE" run latte.rn -d "$DURATION" -w 0 -t "$t" -p $((c / t)) -c 1 -q ${rateArgs[@]+"${rateArgs[@]}"} \
      -o "latte-$t-$name-$r.json" "${LATTE_AUTH[@]}" "$NODE1" >"latte-$t-$name-$r.log" 2>&1
  )
  local load
  load=$(load1)
  check_node latte
  "$OUT/benchwriter" record -client latte -latte -threads "$t" -concurrency "$c" -rate "$rate" -round "$r" -load "$load" \
    -time "$OUT/latte-$t-$name-$r.time" -result "$OUT/latte-$t-$name-$r.json" >>"$RUNS"
}

# The points, "concurrency rate": closed loops (rate 0) first.
POINTS=()
for c in $CONCURRENCIES; do POINTS+=("$c 0"); done
for rate in $RATES; do POINTS+=("$RATE_CONCURRENCY $rate"); done
for point in "${POINTS[@]}"; do
  read -r c rate <<<"$point"
  name=$c at=""
  if (( rate != 0 )); then
    name="$c-r$rate" at=" at $rate ops/s"
  fi
  for t in $THREADS; do
    if (( c % t != 0 )); then
      log "skipping $c in flight over $t threads: latte's requests in flight are per thread"
      continue
    fi
    for r in $(seq 1 "$ROUNDS"); do
      log "$t thread(s), $c in flight$at, round $r of $ROUNDS: cassbench writer for $DURATION"
      run_cassbench "$t" "$c" "$rate" "$r"
      if [[ -n $BASELINE ]]; then
        log "$t thread(s), $c in flight$at, round $r of $ROUNDS: baseline writer ($BASELINE)"
        run_cassbench "$t" "$c" "$rate" "$r" baseline "${BASELINE_WRITER[@]}" "$(baseline_spec "$name")"
      fi
      if [[ $STOCK == 1 ]]; then
        log "$t thread(s), $c in flight$at, round $r of $ROUNDS: the writer with the driver's stock I/O"
        run_cassbench "$t" "$c" "$rate" "$r" stock "$OUT/cassbench-writer" -f "$OUT/spec-stock-$name.admitted.json"
      fi
      if [[ $RUN_LATTE == 1 ]]; then
        log "$t thread(s), $c in flight$at, round $r of $ROUNDS: latte $LATTE_VERSION"
        run_latte "$t" "$c" "$rate" "$r"
      fi
    done
  done
done
W_RUNTIME=$(grep -h '^runtime:' "$OUT"/cassbench-*.log | tail -n 1 || true)

# --- report ----------------------------------------------------------------------------------
{
  echo
  echo "table: bigint key, 100-byte blob; $DURATION per run; one connection; in flight: $CONCURRENCIES${RATES:+; open loop at $RATES ops/s with up to $RATE_CONCURRENCY in flight}"
  echo "command: hack/bench-writer.sh ${ARGS[*]-}; $(nproc) cores; node 1 at $NODE1"
  "$OUT/benchwriter" report -runs "$RUNS" -latte-version "$LATTE_VERSION"
  [[ $RUN_LATTE == 1 ]] || echo "latte: not run"
  [[ -n $W_RUNTIME ]] && echo "cassbench writer (last run) $W_RUNTIME"
  echo "reports: $OUT"
} | tee "$OUT/report.txt"


if [[ $PROFILE == 1 ]]; then
  read -r PROFILE_THREADS _ <<<"$THREADS"
  log "profiling a writer run with $PROFILE_THREADS thread(s)"
  "$OUT/cassbench" setup -f "$OUT/spec.yaml" "${USER_ARGS[@]}" --termination-log "" >"$OUT/setup-prof.json" 2>"$OUT/setup-prof.log"
  GOMAXPROCS=$PROFILE_THREADS "$OUT/cassbench-writer" -f "$OUT/spec.admitted.json" "${USER_ARGS[@]}" --run-id "bench-prof-$$" \
    --metrics-addr "" --termination-log "" --cpuprofile "$OUT/writer.cpu" --memprofile "$OUT/writer.mem" \
    >"$OUT/writer-prof.json" 2>"$OUT/writer-prof.log"
  {
    echo; echo "CPU profile (top 20 by cumulative):"
    go tool pprof -top -cum -nodecount 20 "$OUT/cassbench-writer" "$OUT/writer.cpu" 2>/dev/null | tail -n 21
    echo; echo "where the writer's CPU goes (cumulative shares of the profile):"
    go tool pprof -top -cum -nodecount 100000 "$OUT/cassbench-writer" "$OUT/writer.cpu" 2>/dev/null | "$OUT/benchwriter" shares
    echo; echo "allocations (top 15 objects):"
    go tool pprof -top -sample_index=alloc_objects -nodecount 15 "$OUT/cassbench-writer" "$OUT/writer.mem" 2>/dev/null | tail -n 16
  } | tee -a "$OUT/report.txt"
fi
