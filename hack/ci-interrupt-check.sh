#!/usr/bin/env bash
# Interrupts .ci/run while a kind cluster it started is up, and fails unless the host is back
# as it was: no container of the cluster, no `kind` network, the Docker engine stopped if the
# run started it (left running if it ran before), and the host's sysctls, iptables and network
# links as recorded here before the run (a record of its own: hack/docker.sh down deletes the
# engine's).
#
#   hack/ci-interrupt-check.sh [INT|TERM]    # the signal, TERM by default
#
# .ci/run makes `docker-up kind-up` instead of `test` (CI_MAKE_TARGETS), and gets the signal
# once the cluster's API server answers, which is after the kubelet changed the host's sysctls.
# Root only (as docker-up); refuses to start where the kind cluster exists already.
set -euo pipefail
cd "$(dirname "$0")/.."
sig=${1:-TERM}
KIND_CLUSTER=${KIND_CLUSTER:-cassbench}
case "$sig" in INT) want_rc=130 ;; TERM) want_rc=143 ;; *) echo "usage: $0 [INT|TERM]" >&2; exit 2 ;; esac
[[ $(id -u) == 0 ]] || { echo "$0: needs root, as make docker-up" >&2; exit 1; }

fail() { echo "ci-interrupt-check: FAIL: $*" >&2; exit 1; }
engine_up() { docker info >/dev/null 2>&1; }
cluster_containers() {
	engine_up || return 0
	docker ps -a --filter "label=io.x-k8s.kind.cluster=$KIND_CLUSTER" --format '{{.Names}}'
}

[[ -z "$(cluster_containers)" ]] || fail "the kind cluster $KIND_CLUSTER exists already: delete it first (make kind-down)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# .ci/run stops the local Cassandra cluster on exit: point it at an empty directory of its own,
# so that it stops nothing another test uses (the shared cluster by default).
export CASSBENCH_CASSANDRA_DIR=$tmp/cassandra CASSBENCH_CASSANDRA_OFFSET=${CASSBENCH_CASSANDRA_OFFSET:-130}
CASSBENCH_DOCKER_STATE=$tmp/host hack/docker.sh record
had_engine=0
engine_up && had_engine=1

# As a job of its own (set -m): without job control, bash starts background commands with
# SIGINT ignored, and a signal ignored on entry cannot be trapped.
set -m
CI_MAKE_TARGETS="docker-up kind-up" .ci/run >"$tmp/log" 2>&1 &
pid=$!
set +m
start=$SECONDS
until engine_up && docker exec "$KIND_CLUSTER-control-plane" \
	kubectl --kubeconfig /etc/kubernetes/admin.conf get --raw=/readyz >/dev/null 2>&1; do
	if ! kill -0 "$pid" 2>/dev/null; then
		tail -30 "$tmp/log" >&2
		fail ".ci/run ended before the kind cluster was up"
	fi
	((SECONDS - start < 1800)) || { kill -s TERM "$pid"; fail "no kind cluster answered within 30 min"; }
	sleep 3
done
echo "ci-interrupt-check: the kind cluster answers after $((SECONDS - start)) s; sending SIG$sig to .ci/run ($pid)" >&2
kill -s "$sig" "$pid"
start=$SECONDS
rc=0
wait "$pid" || rc=$?
echo "ci-interrupt-check: .ci/run exited $rc after $((SECONDS - start)) s; its output ends:" >&2
tail -15 "$tmp/log" >&2

failed=0
[[ $rc == "$want_rc" ]] || { echo "ci-interrupt-check: .ci/run exited $rc, want $want_rc (interrupted by SIG$sig)" >&2; failed=1; }
if engine_up; then
	left=$(cluster_containers)
	[[ -z "$left" ]] || { echo "ci-interrupt-check: containers of $KIND_CLUSTER left: $left" >&2; failed=1; }
	docker network inspect kind >/dev/null 2>&1 && { echo "ci-interrupt-check: the Docker network kind is left" >&2; failed=1; }
	[[ $had_engine == 1 ]] || { echo "ci-interrupt-check: the Docker engine the run started still runs" >&2; failed=1; }
elif [[ $had_engine == 1 ]]; then
	echo "ci-interrupt-check: the Docker engine that ran before the run was stopped" >&2
	failed=1
fi
CASSBENCH_DOCKER_STATE=$tmp/host hack/docker.sh check || failed=1
[[ $failed == 0 ]] || fail "the host is not as it was before .ci/run"
echo "ci-interrupt-check: PASS: .ci/run interrupted by SIG$sig put the host back" >&2
