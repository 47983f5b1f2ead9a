#!/usr/bin/env bash
# Measures ScyllaDB's fork of the Go driver (github.com/scylladb/gocql) against the Apache
# driver cassbench's writer is built on, on the same prepared insert against one local node:
# writes per CPU-second of the client at each concurrency, the two drivers alternating within
# every round so that a node that speeds up or slows down weighs on both alike. It reports each
# run, the medians and the ratio scylla/apache. The fork is measured here rather than swapped in
# through a replace directive because it is the driver's v1 API under another module path
# (hack/driverbench/main.go says more).
#
#   hack/bench-driver.sh [--duration 10s] [--concurrency "1 32"] [--rounds 3] [--host 127.0.0.1]
#                        [--username cassandra --password cassandra]
#
# Starts one node with hack/cassandra.sh unless a node already answers on --host; the local
# nodes' superuser is cassandra/cassandra when they run with authentication.
set -euo pipefail

DURATION=10s
CONCURRENCY="1 32"
ROUNDS=3
HOST=127.0.0.1
CREDS=(-username cassandra -password cassandra)
while [[ $# -gt 0 ]]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --concurrency) CONCURRENCY="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --host) HOST="$2"; shift 2 ;;
    --username) CREDS[1]="$2"; shift 2 ;;
    --password) CREDS[3]="$2"; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
    *) echo "bench-driver: unknown argument $1" >&2; exit 2 ;;
  esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${CASSBENCH_CACHE:-$HOME/.cache/cassbench}"
OUT="$CACHE/bench/driver-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT" "$CACHE/bin"
BIN="$CACHE/bin/driverbench"
(cd "$ROOT/hack/driverbench" && go build -o "$BIN" .)

if ! (exec 3<>"/dev/tcp/$HOST/9042") 2>/dev/null; then
  "$ROOT/hack/cassandra.sh" start --nodes 1 >&2
fi
# One unmeasured run per driver warms the node's JIT and creates the table.
for d in apache scylla; do "$BIN" -driver "$d" -host "$HOST" "${CREDS[@]}" -duration 5s -concurrency 8 >/dev/null; done

for c in $CONCURRENCY; do
  for r in $(seq 1 "$ROUNDS"); do
    for d in apache scylla; do
      "$BIN" -driver "$d" -host "$HOST" "${CREDS[@]}" -duration "$DURATION" -concurrency "$c" | tee -a "$OUT/runs.jsonl"
    done
  done
done

python3 - "$OUT/runs.jsonl" <<'PY' | tee "$OUT/report.txt"
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
by = {}
for r in runs:
    by.setdefault((r["concurrency"], r["driver"]), []).append(r)
print("concurrency driver  writes/s  writes/cpu-s  rss MiB  errors  (median of %d)" % max(len(v) for v in by.values()))
for c in sorted({k[0] for k in by}):
    eff = {}
    for d in ("apache", "scylla"):
        rs = by.get((c, d), [])
        if not rs:
            continue
        eff[d] = statistics.median(r["writes"] / r["cpuSeconds"] for r in rs)
        print("%11d %-7s %9.0f %13.0f %8.1f %7d" % (c, d, statistics.median(r["writes"] / r["seconds"] for r in rs),
              eff[d], statistics.median(r["maxRssKiB"] for r in rs) / 1024, sum(r["errors"] for r in rs)))
    if len(eff) == 2:
        rounds = [s["writes"] / s["cpuSeconds"] / (a["writes"] / a["cpuSeconds"]) for a, s in zip(by[(c, "apache")], by[(c, "scylla")])]
        print("%11d scylla/apache writes per CPU-second: %.2f (rounds %s)" % (c, eff["scylla"] / eff["apache"], ", ".join("%.2f" % x for x in rounds)))
PY
echo "bench-driver: runs and report in $OUT" >&2
