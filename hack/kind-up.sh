#!/usr/bin/env bash
# Creates the kind cluster cassbench (1 control plane, 3 workers) with cert-manager,
# cass-operator v1.31.0 watching all namespaces, and a 1-node Cassandra 5.0 datacenter
# (config/samples/cassandradatacenter-kind.yaml) in $DEMO_NAMESPACE, and waits until the
# datacenter is ready. Without an image registry (KIND_IMAGES), the cluster gets one of its own
# (hack/kind-registry.sh) for cassbench's image. Idempotent: rerun it to finish an interrupted
# setup.
# Needs Docker and the internet. Run through `make kind-up`, which pins the tools.
set -euo pipefail
source "$(dirname "$0")/kind-common.sh"
require_docker

mode=$(images_mode)
# The kubelet changes host sysctls (vm.overcommit_memory, kernel.panic, kernel.panic_on_oops):
# record them first, so that kind-down puts them back (root only: it takes root to put back).
if [[ $(id -u) == 0 ]]; then
	hack/docker.sh record
fi

# kind-config.yaml, and what this host or the image source needs on top of it.
config=$(mktemp)
trap 'rm -f "$config"' EXIT
cp test/e2e/kind-config.yaml "$config"
patches=()
# Kubernetes 1.35's kubelet refuses a cgroup v1 host unless told otherwise.
if [[ ! -f /sys/fs/cgroup/cgroup.controllers ]]; then
	patches+=($'kind: KubeletConfiguration\nfailCgroupV1: false')
fi
if [[ "$mode" == local ]]; then
	log "no image registry (KIND_IMAGES=$KIND_IMAGES): building the node image here (hack/kind-images.sh; minutes to an hour cold by load, cached after)"
	node_image=$(KIND="$KIND" hack/kind-images.sh node)
	# etcd is the version hack/control-plane.sh builds, not kubeadm's default.
	patches+=("$(printf 'kind: ClusterConfiguration\netcd:\n  local:\n    imageTag: %s' "$(hack/kind-images.sh etcd-tag)")")
	# kindnetd has no source module to build it from: hack/kind-cni.sh writes the pod networks.
	printf 'networking:\n  disableDefaultCNI: true\n' >>"$config"
	# containerd reads registry hosts from /etc/containerd/certs.d, where hack/kind-registry.sh
	# tells it where the cluster's registry is (kind's local-registry guide).
	printf '%s\n' 'containerdConfigPatches:' '- |-' \
		'  [plugins."io.containerd.grpc.v1.cri".registry]' '    config_path = "/etc/containerd/certs.d"' >>"$config"
fi
if [[ ${#patches[@]} -gt 0 ]]; then
	echo "kubeadmConfigPatches:" >>"$config"
	for p in "${patches[@]}"; do
		echo "- |"
		sed 's/^/  /' <<<"$p"
	done >>"$config"
fi

if "$KIND" get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER"; then
	log "kind cluster $KIND_CLUSTER exists"
elif [[ "$mode" == local ]]; then
	log "creating kind cluster $KIND_CLUSTER from $node_image"
	# Without a CNI the nodes stay NotReady: wait for them after writing the pod networks.
	"$KIND" create cluster --name "$KIND_CLUSTER" --config "$config" --image "$node_image" --wait 0s
else
	log "creating kind cluster $KIND_CLUSTER"
	"$KIND" create cluster --name "$KIND_CLUSTER" --config "$config" --wait 3m
fi
if [[ "$mode" == local ]]; then
	KIND="$KIND" hack/kind-cni.sh "$KIND_CLUSTER"
	k wait --for=condition=Ready node --all --timeout=5m
	k -n kube-system rollout status deployment/coredns --timeout=5m
	k -n local-path-storage rollout status deployment/local-path-provisioner --timeout=5m
	# The registry kind-deploy pushes cassbench's image to, so that its pods pull it by digest.
	hack/kind-registry.sh up
	# cass-operator from its own manifests, and the Cassandra images through its image config,
	# all built here (hack/kind-cass-images.sh).
	log "installing cass-operator from its own manifests, with images built here"
	hack/kind-cass-images.sh install
else
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
fi

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

# KIND_UP_WAIT=0 returns while dc1 starts (hack/kind-test.sh installs cassbench meanwhile and
# waits for dc1 after, with wait_datacenter); the default waits here.
if [[ "${KIND_UP_WAIT:-1}" == 0 ]]; then
	log "dc1 is starting: not waiting for it (KIND_UP_WAIT=0)"
	exit 0
fi
wait_datacenter
log "ready: make kind-deploy installs cassbench, make test-e2e runs config/samples/kind-demo.yaml"
