#!/usr/bin/env bash
# Checks a capacity search against brute force on the same local cluster: `cassbench run` of
# hack/capacity/search.yaml (or $SPEC) finds the capacity C; then one fixed-rate run per rate
# in steps of 2.5% of C, from $FROM% to $TO% of C, each as long as the search's first tries of
# a rate ran on average, judged by the same objective (p99 of the response time, timeouts per
# million, at most 1% of the starts missed). The brute-force knee is the highest rate whose
# objective held. Prints both answers, both wall times and the machine's load, and keeps every
# result under $OUT.
#
#   CASSBENCH_CASSANDRA_DIR=/var/tmp/x CASSBENCH_CASSANDRA_OFFSET=20 hack/cassandra.sh start --nodes 2
#   HOSTS=127.0.0.21,127.0.0.22 hack/capacity-vs-sweep.sh
#
# RATES (a list, say "21500 23650") skips the search and runs each rate REPEAT times (4 by
# default) for LEN (say 40s), judged by $SPEC's objective: how often a rate meets it, and how
# far its p99 moves from run to run, show how wide the band around the knee is, which one
# comparison with brute force cannot.
#
# Needs jq, bc and python3 with PyYAML. Quiet: only the summary goes to stdout; each run's log is in $OUT.
#
# On a machine other work shares, the node's capacity moves with that work, and a sweep of 20
# minutes does not measure one node. NODE_CPU (root, cgroup v1) holds it still: the nodes of
# $CASSBENCH_CASSANDRA_DIR (or the PIDs in $NODE_PIDS) go into a cpu cgroup of their own, and
# this script with its writers into another, both weighted far above anything else, so that
# they get the CPU they ask for whatever else runs. NODE_CPU=0 adds no quota (the knee is where
# the node and its writers fill the machine); NODE_CPU=0.5 also limits the nodes to half a
# core (a CFS period of NODE_CPU_PERIOD_US, 2 ms by default), whose throttling then sets the
# latency at every rate. The period is short because a node out of quota stops for the rest of
# it: at 10 ms a stall of up to 5 ms now and then set the p99 of a window near the knee, and a
# rate met one run and missed the next by ten times (docs/capacity.md, "The band is the
# quota's"). The kernel takes no quota under 1 ms, so the period is raised to fit a smaller
# NODE_CPU. At exit every process goes back where it was and both groups are
# removed (checked). How a quota throttles a JVM depends on the kernel: on one machine half a
# core took the node's knee under a tenth of its whole core's (docs/capacity.md, "starting from
# what a saturated step completed"); check a few RATES with and without it first.
#
# NODE_CORES (a CPU list, say 1) pins every thread of the nodes to those CPUs, and this script
# with its writers to the others (CLIENT_CORES, by default the rest): the node's capacity is
# then that of its cores, and the writers' CPU, the Go runtime's and the JVM's collections no
# longer trade places on one core from step to step. Each process's affinity is put back at exit
# (checked). It combines with NODE_CPU.
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

# isolate CORES: see the header; unisolate runs at exit.
NODE_CPU_PERIOD_US=${NODE_CPU_PERIOD_US:-2000}
cg_root="" cg_node="" cg_client="" cg_home="" cg_homes=()
cpu_cgroup() { awk -F: '$2 ~ /(^|,)cpu(,|$)/ {print $3; exit}' "/proc/$1/cgroup"; }
isolate() {
	local cores=$1 pids pid
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		echo "NODE_CPU: cgroup v2 is not handled by this script; use a cgroup v1 host or leave NODE_CPU unset" >&2
		exit 2
	fi
	cg_root=/sys/fs/cgroup/cpu
	[ -w "$cg_root" ] || { echo "NODE_CPU needs root and $cg_root writable" >&2; exit 2; }
	pids=$(node_pids)
	[ -n "$pids" ] || { echo "NODE_CPU: no node PIDs (is the cluster up?)" >&2; exit 2; }
	cg_home=$(cpu_cgroup $$)
	cg_node=$cg_root/cassbench-capacity-node-$$
	cg_client=$cg_root/cassbench-capacity-client-$$
	mkdir "$cg_node" "$cg_client"
	# 262144 is cpu.shares' maximum: the groups win every contest with ordinary processes (1024).
	echo 262144 >"$cg_node/cpu.shares"
	echo 262144 >"$cg_client/cpu.shares"
	if [ "$cores" != 0 ]; then
		# A short period: with the default 100 ms a node out of quota waits up to 100 ms, and
		# p99 measures the throttling instead of the node's queue. The quota is at least 1 ms.
		local period quota
		period=$(awk -v c="$cores" -v p="$NODE_CPU_PERIOD_US" 'BEGIN { q = c * p; if (q < 1000) p = int(1000 / c + 0.999); print p }')
		[ "$period" = "$NODE_CPU_PERIOD_US" ] || echo "NODE_CPU=$cores: CFS period raised from $NODE_CPU_PERIOD_US to $period us, for a quota of at least 1 ms" >&2
		quota=$(awk -v c="$cores" -v p="$period" 'BEGIN { printf "%d", c * p }')
		echo -1 >"$cg_node/cpu.cfs_quota_us"
		echo "$period" >"$cg_node/cpu.cfs_period_us"
		echo "$quota" >"$cg_node/cpu.cfs_quota_us"
	fi
	for pid in $pids; do
		cg_homes+=("$pid:$(cpu_cgroup "$pid")")
		echo "$pid" >"$cg_node/cgroup.procs"
	done
	echo $$ >"$cg_client/cgroup.procs"
	echo "NODE_CPU=$cores: node PIDs $(echo $pids), quota $(cat "$cg_node/cpu.cfs_quota_us")/$(cat "$cg_node/cpu.cfs_period_us") us (-1: none); node and writers weighted 262144"
}
# unisolate puts back what isolate changed; it returns 1 if it could not.
unisolate() {
	local g pid home entry left=0
	[ -n "$cg_node" ] || return 0
	for g in "$cg_node" "$cg_client"; do
		[ -d "$g" ] || continue
		for pid in $(cat "$g/cgroup.procs"); do
			home=$cg_home
			for entry in "${cg_homes[@]}"; do [ "${entry%%:*}" = "$pid" ] && home=${entry#*:}; done
			echo "$pid" >"$cg_root$home/cgroup.procs" 2>/dev/null || true
		done
		rmdir "$g" 2>/dev/null || true
		[ -d "$g" ] && { echo "NODE_CPU: could not remove $g" >&2; left=1; }
	done
	[ "$left" = 0 ] && echo "NODE_CPU: both cgroups removed, their processes back where they were" >&2
	return "$left"
}

# pin CPUS: see the header; unpin runs at exit.
pinned=() # pid:affinity list before
affinity() { taskset -c -p "$1" | awk '{print $NF}'; }
node_pids() {
	echo "${NODE_PIDS:-$(cat "${CASSBENCH_CASSANDRA_DIR:?NODE_CPU and NODE_CORES need CASSBENCH_CASSANDRA_DIR or NODE_PIDS}"/nodes/*/cassandra.pid 2>/dev/null || true)}"
}
pin() {
	local cores=$1 client=${CLIENT_CORES:-} pids pid c
	if [ -z "$client" ]; then
		for c in $(seq 0 $(($(nproc --all) - 1))); do
			case ",$cores," in *",$c,"*) ;; *) client=${client:+$client,}$c ;; esac
		done
	fi
	[ -n "$client" ] || { echo "NODE_CORES=$cores leaves no CPU for the writers; set CLIENT_CORES" >&2; exit 2; }
	pids=$(node_pids)
	[ -n "$pids" ] || { echo "NODE_CORES: no node PIDs (is the cluster up?)" >&2; exit 2; }
	for pid in $pids; do
		pinned+=("$pid:$(affinity "$pid")")
		taskset -a -c -p "$cores" "$pid" >/dev/null
	done
	pinned+=("$$:$(affinity $$)")
	taskset -c -p "$client" $$ >/dev/null
	echo "NODE_CORES=$cores: every thread of node PIDs $(echo $pids) on CPUs $cores; the writers on $client"
}
unpin() {
	local entry pid was t left=0
	for entry in "${pinned[@]}"; do
		pid=${entry%%:*} was=${entry#*:}
		[ -d "/proc/$pid" ] || continue
		taskset -a -c -p "$was" "$pid" >/dev/null 2>&1 || true
		for t in /proc/"$pid"/task/*; do
			[ "$(affinity "${t##*/}" 2>/dev/null || echo "$was")" = "$was" ] || left=1
		done
	done
	[ "${#pinned[@]}" = 0 ] || { [ "$left" = 0 ] && echo "NODE_CORES: every pinned process has its CPUs back" >&2; }
	[ "$left" = 0 ] || echo "NODE_CORES: some threads kept their pinned CPUs" >&2
	return "$left"
}
cleanup() {
	local rc=$?
	unpin || rc=1
	unisolate || rc=1
	exit "$rc"
}
trap cleanup EXIT
# Before pin: isolate moves the script into its cgroup, and the pinned affinity comes after.
[ -n "${NODE_CPU:-}" ] && isolate "$NODE_CPU"
[ -n "${NODE_CORES:-}" ] && pin "$NODE_CORES"
load() { cut -d' ' -f1-3 /proc/loadavg; }


# us DURATION: a duration of the spec's (500ms, 1.5s) in microseconds.
us() { jq -rn --arg d "$1" 'if ($d|endswith("ms")) then ($d|rtrimstr("ms")|tonumber*1000) elif ($d|endswith("s")) then ($d|rtrimstr("s")|tonumber*1000000) else error("p99 in ms or s") end'; }
# fixed RATE LEN TSV NAME runs $OUT/spec.json at RATE for LEN without its capacity search,
# judges it by the objective in p99_us and tpm, appends a line to TSV and sets met.
fixed() {
	local rate=$1 len=$2 tsv=$3 name=$4 got_p99 timeouts ops missed due
	jq --argjson rate "$rate" --arg len "$len" 'del(.spec.capacity) | .spec.writers.rate = $rate | .spec.writers.duration = $len' \
		"$OUT/spec.json" >"$OUT/$name.json"
	"$BIN" run -f "$OUT/$name.json" "${conn[@]}" -o json >"$OUT/$name.out.json" 2>"$OUT/$name.log" || true
	read -r got_p99 timeouts ops missed due < <(jq -r '.results | [.writes.response.p99, (.errors.writeTimeout + .errors.readTimeout + .errors.clientTimeout), .operations, (.schedule.missed // 0), (.schedule.due // 0)] | @tsv' "$OUT/$name.out.json")
	met=no
	if [ "$got_p99" -le "$p99_us" ] && [ $((timeouts * 1000000)) -le $((tpm * ops)) ] && [ $((missed * 100)) -le "$due" ]; then
		met=yes
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rate" "$got_p99" "$timeouts" "$ops" "$missed" "$due" "$met" >>"$tsv"
}
python3 -c 'import sys, yaml, json; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))' "$SPEC" >"$OUT/spec.json"

if [ -n "${RATES:-}" ]; then
	len=${LEN:?RATES needs LEN, the length of each run (say 40s)}
	p99=$(jq -r '.spec.capacity.objective.p99 // error("RATES needs a spec with a capacity objective")' "$OUT/spec.json")
	p99_us=$(us "$p99")
	tpm=$(jq '.spec.capacity.objective.timeoutsPerMillion // 100' "$OUT/spec.json")
	echo "load before the runs: $(load) on $(nproc --all) cores"
	printf 'rate\tp99_us\ttimeouts\tops\tmissed\tdue\tmet\n' >"$OUT/band.tsv"
	for rep in $(seq 1 "${REPEAT:-4}"); do
		for rate in $RATES; do fixed "$rate" "$len" "$OUT/band.tsv" "band-$rate-$rep"; done
	done
	for rate in $RATES; do
		awk -F'\t' -v r="$rate" -v obj="$p99" '$1 == r { n++; m += ($7 == "yes"); p = p (p ? ", " : "") int($2 / 1000) } END { printf "%s ops/s: met %d of %d runs of the p99 %s objective; p99 (ms) %s\n", r, m, n, obj, p }' "$OUT/band.tsv"
	done
	echo "load after: $(load); results in $OUT (band.tsv)"
	exit 0
fi

echo "load before the search: $(load) on $(nproc --all) cores"
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

# Each brute-force run is as long as the search's steps ran on average, counting each rate's
# first try only: a sweep runs every rate once, and a confirmation (a missed rate tried again)
# runs one round by design, shorter than any step that judged a rate first.
step_s=$(jq -rn --arg d "$step" '$d | rtrimstr("s") | tonumber')
read -r first_runs firsts < <(jq -r 'reduce .results.capacity.steps[] as $s ({seen: {}, runs: 0, n: 0};
	($s.targetOpsPerSecond | tostring) as $r | if .seen[$r] then . else .seen[$r] = true | .runs += $s.runs | .n += 1 end) | "\(.runs) \(.n)"' "$OUT/search.json")
len=$(echo "scale=1; $step_s * $first_runs / $firsts" | bc)
echo "brute force: each run ${len}s, the mean of the search's $firsts first tries ($first_runs rounds)"
p99_us=$(us "$p99")

t0=$(now)
knee=0
printf 'rate\tp99_us\ttimeouts\tops\tmissed\tdue\tmet\n' >"$OUT/sweep.tsv"
for pct10 in $(seq $((FROM * 10)) 25 $((TO * 10))); do
	rate=$((capacity * pct10 / 1000))
	fixed "$rate" "${len}s" "$OUT/sweep.tsv" "fixed-$rate"
	[ "$met" = no ] || knee=$rate
done
sweep_wall=$(echo "$(now) - $t0" | bc)
echo "brute force: knee $knee ops/s over $(($(wc -l <"$OUT/sweep.tsv") - 1)) runs of ${len}s from ${FROM}% to ${TO}% of $capacity in steps of 2.5%, wall ${sweep_wall}s; load after: $(load)"
if [ "$knee" -gt 0 ]; then
	echo "search/knee: $(echo "scale=3; $capacity / $knee" | bc); wall search/sweep: $(echo "scale=3; $search_wall / $sweep_wall" | bc)"
fi
echo "results in $OUT (search.json, sweep.tsv)"
