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
# Where the images come from: "registry" (kind's node image, cert-manager's and cass-operator's
# published images, pulled) or "local" (built here by hack/kind-images.sh and
# hack/cassbench-image.sh, for a machine that reaches no image registry). "auto" picks local
# when registry.k8s.io does not answer.
KIND_IMAGES=${KIND_IMAGES:-auto}

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

# images_mode prints registry or local, deciding auto by asking registry.k8s.io once.
images_mode() {
	case "$KIND_IMAGES" in
	registry | local) echo "$KIND_IMAGES" ;;
	auto)
		if curl -sS -o /dev/null --max-time 10 https://registry.k8s.io/v2/ 2>/dev/null; then
			echo registry
		else
			echo local
		fi
		;;
	*)
		echo "KIND_IMAGES=$KIND_IMAGES: want auto, registry or local" >&2
		exit 1
		;;
	esac
}

# wait_datacenter waits until the datacenter kind-up creates is ready (pulling Cassandra images
# takes minutes on a connected machine). Ready alone stays True during updates;
# cassandraOperatorProgress says the reconcile is done.
wait_datacenter() {
	log "waiting for dc1 to be ready"
	k -n "$DEMO_NAMESPACE" wait cassandradatacenter/dc1 --for=condition=Ready --timeout=20m
	k -n "$DEMO_NAMESPACE" wait cassandradatacenter/dc1 --for=jsonpath='{.status.cassandraOperatorProgress}'=Ready --timeout=10m
}
