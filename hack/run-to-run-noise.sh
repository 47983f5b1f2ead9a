#!/usr/bin/env bash
# Measures run-to-run noise on this machine: runs the same closed-loop spec N times against a
# local Cassandra node with `cassbench run`, after two runs it does not keep (a node that just
# started runs far slower until its JIT has warmed up: 144 and 1,240 ops/s before some 7,000
# here), keeps each run's results file in DIR, and prints cassbench history of DIR (each run's
# ops/s and latency) and the coefficient of variation of ops/s, the figure the change-point
# simulation (internal/changepoint) takes as its noise.
#
#   hack/run-to-run-noise.sh [N=10] [DIR=/tmp/cassbench-noise]
#
# The node is the shared local cluster unless CASSBENCH_CASSANDRA_DIR and
# CASSBENCH_CASSANDRA_OFFSET put it elsewhere (hack/cassandra.sh); the runs go to its node 1.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n=${1:-10}
dir=${2:-/tmp/cassbench-noise}
host=127.0.0.$((1 + ${CASSBENCH_CASSANDRA_OFFSET:-0}))
mkdir -p "$dir"
bin="$dir/cassbench"
(cd "$root" && "${GO:-go}" build -o "$bin" ./cmd/cassbench)
spec() {
  cat <<YAML
apiVersion: cassbench.io/v1alpha1
kind: BenchmarkRun
metadata:
  name: noise-$1
  labels: {cassbench.io/experiment: run-to-run-noise}
spec:
  datacenterRef:
    name: dc1
  schema:
    recreate: true
    table:
      profile: key-value
  writers:
    replicas: 2
    concurrency: 8
    warmup: 5s
    duration: 15s
YAML
}
run() {
  spec "$1" > "$dir/noise-$1.yaml"
  "$root/hack/cassandra.sh" use --nodes 1 -- "$bin" run -f "$dir/noise-$1.yaml" --hosts "$host" -o json > "$2"
}
run warm-1 /dev/null
run warm-2 /dev/null
for i in $(seq -w 1 "$n"); do
  run "$i" "$dir/noise-$i.json"
  echo "run $i of $n done" >&2
done
"$bin" history "$dir" --experiment run-to-run-noise
"$bin" history "$dir" --experiment run-to-run-noise -o csv | awk -F, '
  NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ops_per_second") c = i; next }
  { x[NR] = $c; s += $c; n++ }
  END { m = s / n; for (i in x) v += (x[i] - m) ^ 2; sd = sqrt(v / (n - 1));
        printf "ops/s over %d runs: mean %.0f, sd %.0f, coefficient of variation %.1f%%\n", n, m, sd, 100 * sd / m }'
