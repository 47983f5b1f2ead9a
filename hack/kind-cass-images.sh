#!/usr/bin/env bash
# Builds, with no image registry, the images the kind cluster's cass-operator and its
# datacenters run, and installs cass-operator from its own manifests with them:
#
#   hack/kind-cass-images.sh operator      # cass-operator's image, from hack/cass-operator.sh's manager; prints its name
#   hack/kind-cass-images.sh install       # loads it into the kind cluster and applies cass-operator's manifests with it
#
# Each image is tagged and cached (a docker save under $CACHE/kind/cass-images) by a hash of
# its recipe: this script and the files it puts in the image, so an edit to either gives a new
# image and an unchanged recipe loads the cached one.
set -euo pipefail
SELF=$(realpath "$0")
source "$(dirname "$0")/kind-common.sh"

CACHE=${CASSBENCH_CACHE:-$HOME/.cache/cassbench}
IMAGES=$CACHE/kind/cass-images
# Images built here carry this registry name, which no registry serves (as hack/kind-images.sh's).
LOCAL_REGISTRY=cassbench.local
CASS_OPERATOR_VERSION=${CASS_OPERATOR_VERSION:-$("$GO" list -m -f '{{.Version}}' github.com/k8ssandra/cass-operator)}
CASS_OPERATOR_MANIFESTS=${CASS_OPERATOR_MANIFESTS:-$CACHE/crds/cass-operator-cluster-$CASS_OPERATOR_VERSION.yaml}
# The distroless user cass-operator's Dockerfile runs as (USER 65532:65532).
UID_NONROOT=65532

die() { echo "kind-cass-images: $*" >&2; exit 1; }

# recipe_key FILE... hashes this script and the files given: the image tag's suffix.
recipe_key() { cat "$SELF" "$@" | sha256sum | cut -c1-12; }

# import_root NAME ROOT [docker import --change ...] imports the directory ROOT as image NAME
# (root-owned, fixed mtime, so the same files give the same layer) unless Docker has it, loading
# it from the cache when saved there, and saves it to the cache after a build.
import_root() {
	local name=$1 root=$2
	shift 2
	local saved=$IMAGES/${name//[:\/]/_}.tar
	tar -C "$root" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -c . |
		docker import "$@" - "$name" >/dev/null
	mkdir -p "$IMAGES"
	docker save -o "$saved.tmp" "$name" && mv "$saved.tmp" "$saved"
}

# cached NAME: true when Docker has the image NAME, or loads it from the cache.
cached() {
	local name=$1 saved=$IMAGES/${1//[:\/]/_}.tar
	docker image inspect "$name" >/dev/null 2>&1 && return 0
	[[ -f "$saved" ]] && docker load -i "$saved" >/dev/null && return 0
	return 1
}

# operator_image: cass-operator's Dockerfile (v1.31.0) copies its manager into
# gcr.io/distroless/static:nonroot as /manager, USER 65532:65532, ENTRYPOINT /manager. The same
# layout from the manager hack/cass-operator.sh builds from the module go.mod pins: the binary
# is static (CGO_ENABLED=0) and calls out to nothing, so the base's passwd and /tmp are all it
# needs of distroless.
operator_image() {
	local bin
	bin=$(CASS_OPERATOR_VERSION=$CASS_OPERATOR_VERSION hack/cass-operator.sh)
	local name
	name=$LOCAL_REGISTRY/cass-operator:$CASS_OPERATOR_VERSION-$(recipe_key "$bin")
	if ! cached "$name"; then
		local root
		root=$(mktemp -d)
		# shellcheck disable=SC2064 # the path is known now
		trap "rm -rf '$root'" RETURN
		install -m 0755 -D "$bin" "$root/manager"
		mkdir -p "$root/etc" "$root/tmp" && chmod 1777 "$root/tmp"
		printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%s:%s:nonroot:/home/nonroot:/sbin/nologin\n' \
			"$UID_NONROOT" "$UID_NONROOT" >"$root/etc/passwd"
		printf 'root:x:0:\nnonroot:x:%s:\n' "$UID_NONROOT" >"$root/etc/group"
		import_root "$name" "$root" --change "USER $UID_NONROOT:$UID_NONROOT" --change 'WORKDIR /' \
			--change 'ENTRYPOINT ["/manager"]'
	fi
	echo "$name"
}

# webhook_certificate writes the secret cass-operator's webhook server mounts
# (webhook-server-cert) and prints the CA's PEM: what cert-manager's selfSigned Issuer and
# Certificate cass-operator-serving-cert in its manifests would make, signed here by a CA made
# for this cluster, as test/local does (operator.go, playedCA). cert-manager itself is not
# built here (see docs/install.md "On kind").
webhook_certificate() {
	local ns=$1 dir
	dir=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$dir'" RETURN
	local svc=cass-operator-webhook-service
	openssl req -x509 -newkey rsa:2048 -nodes -days 365 -subj '/CN=cassbench kind cass-operator webhook CA' \
		-keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -subj "/CN=$svc.$ns.svc" -keyout "$dir/tls.key" -out "$dir/tls.csr" 2>/dev/null
	printf 'subjectAltName=DNS:%s.%s.svc,DNS:%s.%s.svc.cluster.local\nextendedKeyUsage=serverAuth\n' \
		"$svc" "$ns" "$svc" "$ns" >"$dir/ext"
	openssl x509 -req -in "$dir/tls.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 365 \
		-extfile "$dir/ext" -out "$dir/tls.crt" 2>/dev/null
	k -n "$ns" create secret tls webhook-server-cert --cert="$dir/tls.crt" --key="$dir/tls.key" \
		--dry-run=client -o yaml | k apply -f - >&2
	k -n "$ns" patch secret webhook-server-cert --type=merge \
		-p "{\"data\":{\"ca.crt\":\"$(base64 -w0 <"$dir/ca.crt")\"}}" >&2
	base64 -w0 <"$dir/ca.crt"
}

# install loads cass-operator's image into the cluster and applies its own install manifests
# (config/deployments/cluster, cached by make cass-operator-manifests) with it, leaving out
# cert-manager's objects, whose certificate webhook_certificate makes instead.
install_operator() {
	require_docker
	require_cluster
	[[ -f "$CASS_OPERATOR_MANIFESTS" ]] || die "no $CASS_OPERATOR_MANIFESTS: run make cass-operator-manifests"
	local image
	image=$(operator_image)
	log "loading $image into kind cluster $KIND_CLUSTER"
	"$KIND" load docker-image "$image" --name "$KIND_CLUSTER" >&2
	local upstream=docker.io/k8ssandra/cass-operator:$CASS_OPERATOR_VERSION
	grep -q "image: $upstream\$" "$CASS_OPERATOR_MANIFESTS" || die "$CASS_OPERATOR_MANIFESTS names no image $upstream"
	# Documents split on ---; cert-manager's (apiVersion cert-manager.io/...) dropped.
	awk -v RS='\n---\n' -v ORS='\n---\n' '!/(^|\n)apiVersion: cert-manager\.io\//' "$CASS_OPERATOR_MANIFESTS" |
		sed "s#image: $upstream\$#image: $image#" |
		k apply --server-side --force-conflicts -f - >&2
	local ns=cass-operator ca hook
	ca=$(webhook_certificate "$ns")
	for hook in mutating validating; do
		k patch "${hook}webhookconfiguration" "cass-operator-$hook-webhook-configuration" --type=json \
			-p "[{\"op\":\"add\",\"path\":\"/webhooks/0/clientConfig/caBundle\",\"value\":\"$ca\"}]" >&2
	done
	# A pod started before the secret existed waits for its volume; a rollout makes it current.
	k -n "$ns" rollout restart deployment/cass-operator-controller-manager >&2
	k -n "$ns" rollout status deployment/cass-operator-controller-manager --timeout=5m >&2
}

# One compound command, read whole before it runs.
{
	case "${1:-}" in
	operator) operator_image ;;
	install) install_operator ;;
	*) echo "usage: $0 operator|install" >&2; exit 2 ;;
	esac
	exit
}
