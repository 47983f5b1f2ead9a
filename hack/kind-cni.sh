#!/usr/bin/env bash
# Pod networking for a kind cluster created with disableDefaultCNI, from the CNI plugins in the
# node image (Debian's containernetworking-plugins): what kindnetd does, written once instead of
# watched. Every node gets a ptp configuration for its pod CIDR and a route to every other
# node's pod CIDR through that node's address on the kind network. Rerun after adding a node.
#
#   hack/kind-cni.sh CLUSTER
set -euo pipefail
source "$(dirname "$0")/kind-common.sh"
require_docker
cluster=${1:-$KIND_CLUSTER}
context=kind-$cluster

nodes=$("$KIND" get nodes --name "$cluster")
[[ -n "$nodes" ]] || { echo "kind-cni: cluster $cluster has no nodes" >&2; exit 1; }

# The pod CIDR the controller manager gives each node (kubeadm's --allocate-node-cidrs), and the
# node's address on the kind network.
declare -A cidr ip
for n in $nodes; do
	for _ in $(seq 1 60); do
		cidr[$n]=$("$KUBECTL" --context "$context" get node "$n" -o jsonpath='{.spec.podCIDR}' 2>/dev/null || true)
		[[ -n "${cidr[$n]}" ]] && break
		sleep 2
	done
	[[ -n "${cidr[$n]}" ]] || { echo "kind-cni: node $n got no pod CIDR" >&2; exit 1; }
	ip[$n]=$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$n")
done

for n in $nodes; do
	# ptp: a veth per pod, the node routes to it; no masquerading, so that a pod sees its
	# peers' addresses, as under kindnetd, and nothing leaves the kind network.
	docker exec -i "$n" sh -c 'mkdir -p /etc/cni/net.d && cat >/etc/cni/net.d/10-cassbench.conflist.tmp && mv /etc/cni/net.d/10-cassbench.conflist.tmp /etc/cni/net.d/10-cassbench.conflist' <<EOF
{
  "cniVersion": "0.4.0",
  "name": "cassbench-kind",
  "plugins": [
    {
      "type": "ptp",
      "ipMasq": false,
      "ipam": {
        "type": "host-local",
        "dataDir": "/run/cni-ipam-state",
        "routes": [{"dst": "0.0.0.0/0"}],
        "ranges": [[{"subnet": "${cidr[$n]}"}]]
      },
      "mtu": 1500
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
	for peer in $nodes; do
		[[ "$peer" == "$n" ]] && continue
		docker exec "$n" ip route replace "${cidr[$peer]}" via "${ip[$peer]}"
	done
done
echo "kind-cni: pod networks written on $(echo $nodes | wc -w) nodes" >&2
