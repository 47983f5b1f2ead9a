#!/usr/bin/env bash
# The kind cluster's own image registry, for a cluster made without one (KIND_IMAGES=local):
# kind-deploy pushes cassbench's image to it and installs the chart with that image by digest,
# so the manager, setup and writer pods are pulled by digest as from any registry, while the
# other images stay loaded (kind load, IfNotPresent). Set up the way kind's local-registry guide
# does it (https://kind.sigs.k8s.io/docs/user/local-registry/): a registry container on the
# `kind` network, its port published on the host's loopback only; one name for it,
# localhost:PORT, that works from both ends (the host pushes to the published port; each node's
# containerd is told in /etc/containerd/certs.d/localhost:PORT/hosts.toml to reach it by its
# container name on the kind network, kind-up's containerdConfigPatches setting config_path);
# and the local-registry-hosting ConfigMap of KEP-1755 in kube-public, which says where it is.
#
#   hack/kind-registry.sh image   # the registry image, built here (printed); no registry needed
#   hack/kind-registry.sh up      # the container (kept if it runs), then the nodes and the ConfigMap
#   hack/kind-registry.sh host    # localhost:PORT, the name pods and pushes use
#   hack/kind-registry.sh down    # removes the container (its storage is a tmpfs: nothing left)
#
# The image is FROM scratch: the CNCF distribution registry at the version hack/registry/go.mod
# pins (the one the release tests push to), built static, with the filesystem driver only.
set -euo pipefail
source "$(dirname "$0")/kind-common.sh"

CACHE=${CASSBENCH_CACHE:-$HOME/.cache/cassbench}
KIND_REGISTRY_PORT=${KIND_REGISTRY_PORT:-5001}
REGISTRY_CONTAINER=${REGISTRY_CONTAINER:-$KIND_CLUSTER-registry}
REGISTRY_HOST=localhost:$KIND_REGISTRY_PORT
# Containers of this script carry it, so that kind-down can check none is left.
REGISTRY_LABEL=cassbench.io/kind-registry=$KIND_CLUSTER
DISTRIBUTION_VERSION=$(awk '$1 == "require" && $2 == "github.com/distribution/distribution/v3" {print $3}' hack/registry/go.mod)
# The recipe's revision: a change to how the image is made gives a new name.
RECIPE=1
REGISTRY_IMAGE=cassbench.local/registry:$DISTRIBUTION_VERSION-r$RECIPE

# image builds $REGISTRY_IMAGE unless Docker has it: the binary (cached by version; cgo off, so
# that it runs with no C library) and its configuration, as one layer.
image() {
	if docker image inspect "$REGISTRY_IMAGE" >/dev/null 2>&1; then
		echo "$REGISTRY_IMAGE"
		return
	fi
	local bin=$CACHE/kind/bin/registry-$DISTRIBUTION_VERSION-static
	if [[ ! -x "$bin" ]]; then
		log "building the distribution registry $DISTRIBUTION_VERSION (static)"
		mkdir -p "$(dirname "$bin")"
		CGO_ENABLED=0 "$GO" -C hack/registry build -trimpath -ldflags '-s -w' -o "$bin.tmp" .
		mv "$bin.tmp" "$bin"
	fi
	local root
	root=$(mktemp -d)
	# shellcheck disable=SC2064 # the path is known now
	trap "rm -rf '$root'" RETURN
	install -m 0755 -D "$bin" "$root/bin/registry"
	mkdir -p "$root/etc/distribution" "$root/var/lib/registry"
	# Plain HTTP on the kind network and the host's loopback only; no traces or metrics
	# exported (OTEL_* below): nothing leaves the machine.
	cat >"$root/etc/distribution/config.yml" <<'EOF'
version: 0.1
log: {level: warn, accesslog: {disabled: true}}
storage: {filesystem: {rootdirectory: /var/lib/registry}, delete: {enabled: false}}
http: {addr: ":5000"}
EOF
	tar -C "$root" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -c . |
		docker import --change 'ENTRYPOINT ["/bin/registry", "serve", "/etc/distribution/config.yml"]' \
			--change 'ENV OTEL_TRACES_EXPORTER=none' --change 'ENV OTEL_METRICS_EXPORTER=none' \
			--change 'EXPOSE 5000/tcp' - "$REGISTRY_IMAGE" >/dev/null
	echo "$REGISTRY_IMAGE"
}

running() { [[ "$(docker inspect -f '{{.State.Running}}' "$REGISTRY_CONTAINER" 2>/dev/null || true)" == true ]]; }

up() {
	require_docker
	require_cluster
	local img
	img=$(image)
	if running; then
		log "registry $REGISTRY_CONTAINER runs"
	else
		docker rm -f "$REGISTRY_CONTAINER" >/dev/null 2>&1 || true
		log "starting registry $REGISTRY_CONTAINER on the kind network, published on 127.0.0.1:$KIND_REGISTRY_PORT"
		# The network kind made for the cluster; the storage a tmpfs, gone with the container.
		docker run -d --name "$REGISTRY_CONTAINER" --label "$REGISTRY_LABEL" --network kind \
			-p "127.0.0.1:$KIND_REGISTRY_PORT:5000" --read-only --tmpfs /var/lib/registry \
			"$img" >/dev/null
	fi
	local i
	for i in $(seq 1 50); do
		curl -fsS -o /dev/null "http://127.0.0.1:$KIND_REGISTRY_PORT/v2/" 2>/dev/null && break
		[[ $i == 50 ]] && { docker logs "$REGISTRY_CONTAINER" >&2; echo "the registry did not answer on 127.0.0.1:$KIND_REGISTRY_PORT" >&2; exit 1; }
		sleep 0.2
	done
	local node dir=/etc/containerd/certs.d/$REGISTRY_HOST
	for node in $("$KIND" get nodes --name "$KIND_CLUSTER"); do
		if ! docker exec "$node" grep -q '/etc/containerd/certs.d' /etc/containerd/config.toml; then
			echo "kind-registry: node $node's containerd reads no /etc/containerd/certs.d: the cluster predates its registry (make kind-down kind-up)" >&2
			exit 1
		fi
		docker exec "$node" mkdir -p "$dir"
		printf '[host."http://%s:5000"]\n  capabilities = ["pull", "resolve"]\n' "$REGISTRY_CONTAINER" |
			docker exec -i "$node" cp /dev/stdin "$dir/hosts.toml"
	done
	k apply --server-side -f - <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: local-registry-hosting
  namespace: kube-public
data:
  localRegistryHosting.v1: |
    host: "$REGISTRY_HOST"
    help: "https://kind.sigs.k8s.io/docs/user/local-registry/"
EOF
}

down() {
	require_docker
	local c
	for c in $(docker ps -aq --filter "label=$REGISTRY_LABEL"); do
		docker rm -f -v "$c" >/dev/null
		log "removed the registry container $c"
	done
}

{
case "${1:-}" in
image) require_docker && image ;;
up) up ;;
host) echo "$REGISTRY_HOST" ;;
down) down ;;
*) echo "usage: $0 image|up|host|down" >&2; exit 2 ;;
esac
exit
}
