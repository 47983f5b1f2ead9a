#!/usr/bin/env bash
# The sample run of the Cassandra support matrix (make test-cassandra-matrix, docs/install.md):
# for each version given, start a one-node cluster of it (hack/cassandra.sh, its own
# directory and addresses), run hack/cassandra-matrix/run.yaml with `cassbench run` (setup
# checks the settings and the heap on the node, the writers load it, the server evidence is
# read from its virtual tables), and stop it; then one line per version with the times.
#
#   hack/cassandra-matrix.sh 5.0.9 4.1.10 4.0.19
#
# Nodes live in ${CASSBENCH_CASSANDRA_DIR:-$CACHE/cassandra-matrix} on 127.0.0.(k+1),
# k = ${CASSBENCH_CASSANDRA_OFFSET:-60}, beside the shared cluster.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${CASSBENCH_CACHE:-$HOME/.cache/cassbench}"
export CASSBENCH_CASSANDRA_DIR="${CASSBENCH_CASSANDRA_DIR:-$cache/cassandra-matrix}"
export CASSBENCH_CASSANDRA_OFFSET="${CASSBENCH_CASSANDRA_OFFSET:-60}"
node1="127.0.0.$((CASSBENCH_CASSANDRA_OFFSET + 1))"
bin="$("${GO:-go}" -C "$root" tool -n cassbench)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
summary=()
status=0
for v in "$@"; do
	export CASSBENCH_CASSANDRA_VERSION="$v"
	echo "== Cassandra $v"
	t0=$(date +%s)
	if ! "$root/hack/cassandra.sh" start --nodes 1 --heap 512M --reset --timeout 300 >"$out/start.log" 2>&1; then
		tail -40 "$out/start.log"
		summary+=("$v  start FAILED after $(($(date +%s) - t0))s")
		status=1
		"$root/hack/cassandra.sh" stop --force --kill >/dev/null 2>&1 || true
		continue
	fi
	t1=$(date +%s)
	result=ok
	if ! "$bin" run -f "$root/hack/cassandra-matrix/run.yaml" --hosts "$node1" >"$out/run.log" 2>&1; then
		result=FAILED
		status=1
	fi
	t2=$(date +%s)
	cat "$out/run.log"
	"$root/hack/cassandra.sh" stop --force >/dev/null 2>&1 || true
	summary+=("$v  start $((t1 - t0))s  run $((t2 - t1))s  $result  $(grep -m1 -o 'settings verified[^.]*' "$out/run.log" || true)")
done
echo "== Cassandra matrix ($(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%s\n' "${summary[@]}"
exit "$status"
