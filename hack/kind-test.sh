#!/usr/bin/env bash
# make test-kind: the whole kind workflow on this machine, and the host put back after it, also
# on failure or Ctrl-C. Stages: a Docker engine (hack/docker.sh up, unless one runs), the
# cluster (kind-up), cassbench from its image under the restricted Pod Security Standard
# (kind-deploy; without a registry, pulled by digest from the cluster's own), what the real kubelet shows of the datacenter and the manager, the e2e tests
# (config/samples/kind-demo.yaml Succeeded on the real cass-operator and Cassandra, also from a
# restricted namespace; writers under a CPU limit, one OOM-killed, the manager's pod deleted
# mid-run; dc1 scaled to two nodes and given back), then
# kind-down and docker-down, which check that no container, network, iptables chain or changed
# sysctl is left. Prints the time of each stage.
#
# KEEP=1 leaves the cluster and the engine running for a look (then run make kind-down
# docker-down).
set -euo pipefail
cd "$(dirname "$0")/.."
export KIND=${KIND:-kind} KUBECTL=${KUBECTL:-kubectl} HELM=${HELM:-helm} KUSTOMIZE=${KUSTOMIZE:-kustomize} GO=${GO:-go}
timings=$(mktemp)

stage() {
	local name=$1 start=$SECONDS
	shift
	echo "==> stage $name" >&2
	"$@"
	echo "$name $((SECONDS - start)) s" >>"$timings"
}

teardown() {
	local rc=$?
	trap - EXIT INT TERM
	if [[ -n "${KEEP:-}" ]]; then
		echo "KEEP=1: the cluster and the engine stay up (make kind-down docker-down)" >&2
	else
		local start=$SECONDS
		if docker info >/dev/null 2>&1; then
			hack/kind-down.sh || rc=1
		fi
		hack/docker.sh down || rc=1
		echo "teardown $((SECONDS - start)) s" >>"$timings"
	fi
	echo "== stage times" >&2
	cat "$timings" >&2
	rm -f "$timings"
	exit "$rc"
}
trap teardown EXIT
trap 'exit 130' INT TERM

# The manager, as the real kubelet runs it: admitted under restricted and ready (probes
# passing). manager_steady, after the e2e tests, checks that no container of it restarted, so
# the liveness probe held over at least a minute of runs (it waits out the rest of the minute
# when the tests were quicker); a manager pod the tests replaced (the scenario that deletes it
# mid-run) is checked the same.
manager_since=0
check_manager() {
	source hack/kind-common.sh
	k -n "$CASSBENCH_NAMESPACE" wait pod -l app.kubernetes.io/name=cassbench --for=condition=Ready --timeout=3m
	[[ $(k get namespace "$CASSBENCH_NAMESPACE" -o jsonpath='{.metadata.labels.pod-security\.kubernetes\.io/enforce}') == restricted ]] ||
		{ echo "namespace $CASSBENCH_NAMESPACE does not enforce restricted" >&2; return 1; }
	manager_since=$SECONDS
}

manager_steady() {
	source hack/kind-common.sh
	local left=$((60 - (SECONDS - manager_since))) restarts
	if ((left > 0)); then
		sleep "$left"
	fi
	restarts=$(k -n "$CASSBENCH_NAMESPACE" get pod -l app.kubernetes.io/name=cassbench -o jsonpath='{.items[*].status.containerStatuses[*].restartCount}')
	if [[ -z "$restarts" || -n "${restarts//[0 ]/}" ]]; then
		k -n "$CASSBENCH_NAMESPACE" describe pod -l app.kubernetes.io/name=cassbench >&2
		echo "the manager restarted (restart counts: ${restarts:-no pod}): its probes fail under a real kubelet" >&2
		return 1
	fi
	k -n "$CASSBENCH_NAMESPACE" get pod -l app.kubernetes.io/name=cassbench -o wide >&2
}

# The datacenter kind-up made (it started while kind-deploy installed cassbench), as the real
# kubelet runs it: Ready, both containers of its pod ready, and the open-files limit its Cassandra container got (printed: the engine's, which
# this machine cannot raise; Cassandra recommends 100000 and starts with what it gets).
check_datacenter() {
	source hack/kind-common.sh
	local pod=demo-dc1-default-sts-0
	wait_datacenter
	k -n "$DEMO_NAMESPACE" wait pod "$pod" --for=condition=Ready --timeout=1m
	echo "dc1: $pod runs $(k -n "$DEMO_NAMESPACE" get pod "$pod" -o jsonpath='{.spec.containers[?(@.name=="cassandra")].image}'); its Cassandra container's open-files limit is $(k -n "$DEMO_NAMESPACE" exec "$pod" -c cassandra -- sh -c 'ulimit -n')" >&2
}

stage docker-up hack/docker.sh up
# cassbench is installed while dc1 starts: the datacenter stage waits for it after.
stage kind-up env KIND_UP_WAIT=0 hack/kind-up.sh
stage kind-deploy hack/kind-deploy.sh
stage datacenter check_datacenter
stage manager check_manager
stage e2e hack/kind-e2e.sh
stage manager-steady manager_steady
