# Sourced by hack/kind-*.sh: settings and checks they share.
# shellcheck shell=bash

cd "$(dirname "${BASH_SOURCE[0]}")/.."

KIND=${KIND:-kind}
KUBECTL=${KUBECTL:-kubectl}
HELM=${HELM:-helm}
KUSTOMIZE=${KUSTOMIZE:-kustomize}
GO=${GO:-go}
KIND_CLUSTER=${KIND_CLUSTER:-cassbench}
# Where kind-up puts the datacenter and test-e2e its runs.
DEMO_NAMESPACE=${DEMO_NAMESPACE:-cassbench-demo}
CASSBENCH_NAMESPACE=${CASSBENCH_NAMESPACE:-cassbench-system}
CERT_MANAGER_VERSION=${CERT_MANAGER_VERSION:-v1.19.1}
CONTEXT="kind-${KIND_CLUSTER}"

log() { printf '\n==> %s\n' "$*" >&2; }

# kind runs Kubernetes nodes as Docker containers: nothing here works without an engine.
require_docker() {
	if ! docker info >/dev/null 2>&1; then
		echo "$(basename "$0"): needs a running Docker engine, and 'docker info' failed." >&2
		echo "Start Docker (kind also needs the internet to pull images), or run 'make test', which needs neither." >&2
		exit 1
	fi
}

require_cluster() {
	if ! "$KIND" get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER"; then
		echo "$(basename "$0"): no kind cluster '$KIND_CLUSTER': run 'make kind-up' first." >&2
		exit 1
	fi
}

# kubectl against the kind cluster only, whatever the current context is.
k() { "$KUBECTL" --context "$CONTEXT" "$@"; }
