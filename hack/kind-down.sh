#!/usr/bin/env bash
# Deletes the kind cluster and everything in it, then what it left on the host: the cluster's
# registry container (hack/kind-registry.sh), kind's Docker network once no container uses it,
# and the host sysctls the kubelet changed (put back as hack/docker.sh recorded them before
# kind-up), and checks they are as recorded.
set -euo pipefail
source "$(dirname "$0")/kind-common.sh"
require_docker
"$KIND" delete cluster --name "$KIND_CLUSTER"
# The cluster's registry (kind-up made it without an image registry), before the network it is on.
hack/kind-registry.sh down
# kind creates the network "kind" and never deletes it; another cluster may still use it.
if docker network inspect kind >/dev/null 2>&1; then
	if [[ -z "$(docker network inspect -f '{{range .Containers}}{{.Name}} {{end}}' kind)" ]]; then
		docker network rm kind >/dev/null && log "deleted the Docker network kind"
	else
		log "the Docker network kind is still used by: $(docker network inspect -f '{{range .Containers}}{{.Name}} {{end}}' kind)"
	fi
fi
left=$(docker ps -a --filter "label=io.x-k8s.kind.cluster=$KIND_CLUSTER" --format '{{.Names}}'
	docker ps -a --filter "label=cassbench.io/kind-registry=$KIND_CLUSTER" --format '{{.Names}}')
if [[ -n "$left" ]]; then
	echo "kind-down: containers of cluster $KIND_CLUSTER are left: $left" >&2
	exit 1
fi
# The kubelet's and kube-proxy's, not the engine's (forwarding): the engine still runs, and
# hack/docker.sh down puts its own back.
if [[ $(id -u) == 0 ]]; then
	hack/docker.sh restore vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops \
		kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.netfilter.nf_conntrack_max
fi
