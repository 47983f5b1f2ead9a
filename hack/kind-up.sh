#!/usr/bin/env bash
# Creates the kind cluster cassbench (1 control plane, 3 workers) with cert-manager,
# cass-operator v1.31.0 watching all namespaces, and a 1-node Cassandra 5.0 datacenter
# (config/samples/cassandradatacenter-kind.yaml) in $DEMO_NAMESPACE, and waits until the
# datacenter is ready. Idempotent: rerun it to finish an interrupted setup.
# Needs Docker and the internet. Run through `make kind-up`, which pins the tools.
set -euo pipefail
source "$(dirname "$0")/kind-common.sh"
require_docker

if "$KIND" get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER"; then
	log "kind cluster $KIND_CLUSTER exists"
else
	log "creating kind cluster $KIND_CLUSTER"
	"$KIND" create cluster --name "$KIND_CLUSTER" --config test/e2e/kind-config.yaml --wait 3m
fi

log "installing cert-manager $CERT_MANAGER_VERSION (cass-operator's webhook certificates)"
k apply --server-side --force-conflicts -f \
	"https://github.com/cert-manager/cert-manager/releases/download/${CERT_MANAGER_VERSION}/cert-manager.yaml"
k -n cert-manager wait --for=condition=Available deployment --all --timeout=5m

# cass-operator's config/deployments/default watches only its own namespace;
# config/deployments/cluster is the same install watching all of them, so datacenters and runs
# can live in any namespace, as in a real cluster. Taken from the Go module go.mod pins.
log "installing cass-operator from its Go module"
"$GO" mod download github.com/k8ssandra/cass-operator
cass_operator_dir=$("$GO" list -m -f '{{.Dir}}' github.com/k8ssandra/cass-operator)
"$KUSTOMIZE" build "$cass_operator_dir/config/deployments/cluster" |
	k apply --server-side --force-conflicts -f -
k -n cass-operator wait --for=condition=Available deployment --all --timeout=5m

log "creating the datacenter dc1 in $DEMO_NAMESPACE"
k create namespace "$DEMO_NAMESPACE" --dry-run=client -o yaml | k apply -f -
# The validating webhook answers once cert-manager has injected its CA; retry until then.
for attempt in $(seq 1 30); do
	if k -n "$DEMO_NAMESPACE" apply --server-side -f config/samples/cassandradatacenter-kind.yaml; then
		break
	fi
	if [ "$attempt" = 30 ]; then
		echo "cass-operator's webhook refused the datacenter 30 times" >&2
		exit 1
	fi
	sleep 10
done

log "waiting for dc1 to be ready (pulling Cassandra images takes minutes)"
# Ready alone stays True during updates; cassandraOperatorProgress says the reconcile is done.
k -n "$DEMO_NAMESPACE" wait cassandradatacenter/dc1 --for=condition=Ready --timeout=20m
k -n "$DEMO_NAMESPACE" wait cassandradatacenter/dc1 --for=jsonpath='{.status.cassandraOperatorProgress}'=Ready --timeout=10m
log "ready: make kind-deploy installs cassbench, make test-e2e runs config/samples/kind-demo.yaml"
