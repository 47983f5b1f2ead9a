#!/usr/bin/env bash
# Checks a capacity search against brute force on the same local cluster: `cassbench run` of
# hack/capacity/search.yaml (or $SPEC) finds the capacity C; then one fixed-rate run per rate
# in steps of 2.5% of C, from $FROM% to $TO% of C, each as long as the search's steps ran on
# average, judged by the same objective (p99 of the response time, timeouts per million, at
# most 1% of the starts missed). The brute-force knee is the highest rate whose objective
# held. Prints both answers, both wall times and the machine's load, and keeps every result
# under $OUT.
#
#   CASSBENCH_CASSANDRA_DIR=/var/tmp/x CASSBENCH_CASSANDRA_OFFSET=20 hack/cassandra.sh start --nodes 2
#   HOSTS=127.0.0.21,127.0.0.22 hack/capacity-vs-sweep.sh
#
# Needs jq, bc and python3 with PyYAML. Quiet: only the summary goes to stdout; each run's log is in $OUT.
set -euo pipefail

cd "$(dirname "$0")/.."
SPEC=${SPEC:-hack/capacity/search.yaml}
HOSTS=${HOSTS:-127.0.0.1}
FROM=${FROM:-60}
TO=${TO:-140}
OUT=${OUT:-$(mktemp -d /tmp/capacity-vs-sweep.XXXXXX)}
BIN=${BIN:-$OUT/cassbench}
mkdir -p "$OUT"
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/cassbench
conn=(--hosts "$HOSTS")
[ -n "${CASSBENCH_USERNAME:-}" ] && conn+=(--username "$CASSBENCH_USERNAME")

now() { date +%s.%N; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "load before the search: $(load) on $(nproc) cores"
t0=$(now)
"$BIN" run -f "$SPEC" "${conn[@]}" -o json >"$OUT/search.json" 2>"$OUT/search.log"
search_wall=$(echo "$(now) - $t0" | bc)
capacity=$(jq '.results.capacity.opsPerSecond' "$OUT/search.json")
steps=$(jq '.results.capacity.steps | length' "$OUT/search.json")
runs=$(jq '[.results.capacity.steps[].runs] | add' "$OUT/search.json")
p99=$(jq -r '.spec.capacity.objective.p99' "$OUT/search.json")
tpm=$(jq '.spec.capacity.objective.timeoutsPerMillion' "$OUT/search.json")
step=$(jq -r '.spec.writers.duration' "$OUT/search.json")
echo "search: capacity $capacity ops/s ($(jq -r '.results.capacity.stop' "$OUT/search.json")) in $steps steps, $runs rounds of $step, wall ${search_wall}s; load after: $(load)"
[ "$capacity" -gt 0 ] || { echo "the search met nothing: no knee to compare" >&2; exit 1; }

# Each brute-force run is as long as the search's steps ran on average.
step_s=$(jq -rn --arg d "$step" '$d | rtrimstr("s") | tonumber')
len=$(echo "scale=1; $step_s * $runs / $steps" | bc)
p99_us=$(jq -rn --arg d "$p99" 'if ($d|endswith("ms")) then ($d|rtrimstr("ms")|tonumber*1000) elif ($d|endswith("s")) then ($d|rtrimstr("s")|tonumber*1000000) else error("p99 in ms or s") end')

python3 -c 'import sys, yaml, json; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))' "$SPEC" >"$OUT/spec.json"
t0=$(now)
knee=0
printf 'rate\tp99_us\ttimeouts\tops\tmissed\tdue\tmet\n' >"$OUT/sweep.tsv"
for pct10 in $(seq $((FROM * 10)) 25 $((TO * 10))); do
	rate=$((capacity * pct10 / 1000))
	jq --argjson rate "$rate" --arg len "${len}s" 'del(.spec.capacity) | .spec.writers.rate = $rate | .spec.writers.duration = $len' \
		"$OUT/spec.json" >"$OUT/fixed-$rate.json"
	"$BIN" run -f "$OUT/fixed-$rate.json" "${conn[@]}" -o json >"$OUT/fixed-$rate.out.json" 2>"$OUT/fixed-$rate.log" || true
	read -r got_p99 timeouts ops missed due < <(jq -r '.results | [.writes.response.p99, (.errors.writeTimeout + .errors.readTimeout + .errors.clientTimeout), .operations, (.schedule.missed // 0), (.schedule.due // 0)] | @tsv' "$OUT/fixed-$rate.out.json")
	met=no
	if [ "$got_p99" -le "$p99_us" ] && [ $((timeouts * 1000000)) -le $((tpm * ops)) ] && [ $((missed * 100)) -le "$due" ]; then
		met=yes
		knee=$rate
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rate" "$got_p99" "$timeouts" "$ops" "$missed" "$due" "$met" >>"$OUT/sweep.tsv"
done
sweep_wall=$(echo "$(now) - $t0" | bc)
echo "brute force: knee $knee ops/s over $(($(wc -l <"$OUT/sweep.tsv") - 1)) runs of ${len}s from ${FROM}% to ${TO}% of $capacity in steps of 2.5%, wall ${sweep_wall}s; load after: $(load)"
if [ "$knee" -gt 0 ]; then
	echo "search/knee: $(echo "scale=3; $capacity / $knee" | bc); wall search/sweep: $(echo "scale=3; $search_wall / $sweep_wall" | bc)"
fi
echo "results in $OUT (search.json, sweep.tsv)"
