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

# The Cassandra image's base: the Debian root hack/kind-images.sh bootstraps for the kind node
# (cached there), with Debian's Java 17 runtime installed by apt in a build container on the
# host's network (Debian's mirror is the one network it reaches), and the user cassandra (uid
# 999, the pods' runAsUser, as in the real image; gid 999 is systemd-journal's in the root, so
# the group shares it). Keyed by the root and the package, not by
# this script, so that an edit of the layers above does not redo the slow apt step.
JAVA_PACKAGE=openjdk-17-jre-headless
BASE_RECIPE=1
cassandra_base() {
	local tarball name
	tarball=$(hack/kind-images.sh debootstrap)
	name=$LOCAL_REGISTRY/cassandra-base:$(basename "$tarball" .tar)-$(printf '%s\n' "$JAVA_PACKAGE" "$BASE_RECIPE" | sha256sum | cut -c1-12)
	if ! cached "$name"; then
		local root=$LOCAL_REGISTRY/cassandra-base-root:build-$$ id=cassbench-cassandra-base-$$
		log "building $name: $JAVA_PACKAGE from Debian (minutes, once)"
		docker import "$tarball" "$root" >/dev/null
		# shellcheck disable=SC2064 # the names are known now
		trap "docker rm -f '$id' >/dev/null 2>&1 || true; docker rmi '$root' >/dev/null 2>&1 || true" RETURN
		# The RETURN trap does not run when set -e ends the script: a failed build is removed here.
		docker run --name "$id" --network host "$root" sh -c "set -e
			apt-get update -qq
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $JAVA_PACKAGE >/dev/null
			rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
			groupadd -o -g 999 cassandra
			useradd -u 999 -g 999 -d /var/lib/cassandra -s /usr/sbin/nologin cassandra
			java -version" >&2 ||
			{ docker rm -f "$id" >/dev/null; docker rmi "$root" >/dev/null; die "installing $JAVA_PACKAGE failed"; }
		docker commit "$id" "$name" >/dev/null
		mkdir -p "$IMAGES"
		docker save -o "$IMAGES/${name//[:\/]/_}.tar.tmp" "$name" && mv "$IMAGES/${name//[:\/]/_}.tar.tmp" "$IMAGES/${name//[:\/]/_}.tar"
	fi
	echo "$name"
}

# Cassandra's version in the image: hack/cassandra.sh's (internal/localcassandra), whose jars
# come from Maven Central and are cached under $CACHE/cassandra/<version>.
CASSANDRA_VERSION=5.0.9
CASSANDRA_LIB=$CACHE/cassandra/$CASSANDRA_VERSION/lib

# go_binary NAME PACKAGE DIR builds a static binary of this module into DIR/NAME.
go_binary() { CGO_ENABLED=0 GOOS=linux "$GO" build -trimpath -ldflags '-s -w' -o "$3/$1" "$2"; }

# cassandra_images builds the three images a Cassandra 5.0 datacenter's pods run and prints
# their names, one a line: the server (cass-management-api), the config builder
# (k8ssandra-client) and the log sidecar (system-logger).
#   - cass-management-api: the base above with Cassandra's jars in /opt/cassandra/lib, a base
#     config in /etc/cassandra (internal/localcassandra's cassandra.yaml and logback, the JVM
#     options of hack/kind-cassandra) that server-config-init-base copies out, and
#     test/local/cmd/mgmtapi as the entrypoint: the played management API on :8080 (and its
#     agent's metrics on :9000), which
#     starts Cassandra in the container when cass-operator asks.
#   - k8ssandra-client: test/local/cmd/k8ssandra-client, which plays `config build` with
#     test/local/configbuild.
#   - system-logger: a stand-in for the real Vector sidecar (not buildable here): Debian's
#     static busybox following system.log, so that `kubectl logs -c server-system-logger`
#     shows the node's log as with the real one. It stops on SIGTERM as Vector does: a shell
#     that is PID 1 gets only the signals it traps, and `exec tail` as PID 1 ignored SIGTERM,
#     so every Cassandra pod took its whole grace period (120 s) to stop.
cassandra_images() {
	[[ -d "$CASSANDRA_LIB" ]] || hack/cassandra.sh fetch >&2
	local base ctx
	base=$(cassandra_base)
	ctx=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$ctx'" RETURN
	mkdir -p "$ctx/conf" "$ctx/client" "$ctx/logger/bin" "$ctx/logger/tmp"
	go_binary mgmtapi ./test/local/cmd/mgmtapi "$ctx"
	go_binary kubectl-k8ssandra ./test/local/cmd/k8ssandra-client "$ctx/client"
	# The addresses as Cassandra's own conf/cassandra.yaml has them (localhost), which
	# server-config-init replaces: rpc_address only when it is localhost or empty.
	# The real management API's agent runs its CQL as Cassandra's internal superuser; the played
	# one logs in as the default superuser (cassandra), which takes PasswordAuthenticator and
	# CassandraAuthorizer: the base turns them on (the datacenter's config may still set others).
	sed -e 's/^listen_address: .*/listen_address: localhost/' -e 's/^rpc_address: .*/rpc_address: localhost/' \
		-e 's/auth\.AllowAllAuthenticator$/auth.PasswordAuthenticator/' -e 's/auth\.AllowAllAuthorizer$/auth.CassandraAuthorizer/' \
		internal/localcassandra/base.yaml >"$ctx/conf/cassandra.yaml"
	[[ $(grep -c '^\(listen\|rpc\)_address: localhost$\|auth\.PasswordAuthenticator$\|auth\.CassandraAuthorizer$' "$ctx/conf/cassandra.yaml") == 4 ]] ||
		die "internal/localcassandra/base.yaml's addresses or authenticator are not where this script looks"
	cp internal/localcassandra/logback-node.xml "$ctx/conf/logback.xml"
	cp internal/localcassandra/logback-tools.xml "$ctx/conf/logback-tools.xml"
	cp hack/kind-cassandra/* "$ctx/conf/"
	cp -r "$CASSANDRA_LIB" "$ctx/lib"
	local server client logger
	server=$LOCAL_REGISTRY/cass-management-api:$CASSANDRA_VERSION-$(cd "$ctx" && recipe_key <(echo "$base") mgmtapi conf/* <(ls lib))
	if ! cached "$server"; then
		printf '%s\n' "FROM $base" 'COPY lib /opt/cassandra/lib' 'COPY conf /etc/cassandra' \
			'COPY mgmtapi /usr/local/bin/mgmtapi' 'ENV CASSANDRA_CONF=/etc/cassandra' 'USER 999:999' \
			'ENTRYPOINT ["/usr/local/bin/mgmtapi"]' >"$ctx/Dockerfile"
		# The classic builder: the base is local, and nothing is pulled.
		DOCKER_BUILDKIT=0 docker build -q -t "$server" "$ctx" >&2
		mkdir -p "$IMAGES"
		docker save -o "$IMAGES/${server//[:\/]/_}.tar" "$server"
	fi
	client=$LOCAL_REGISTRY/k8ssandra-client:$(recipe_key "$ctx/client/kubectl-k8ssandra")
	cached "$client" || import_root "$client" "$ctx/client" --change 'ENTRYPOINT ["/kubectl-k8ssandra"]'
	tar -C "$ctx/logger" -xf "$(hack/kind-images.sh debootstrap)" ./usr/bin/busybox
	mv "$ctx/logger/usr/bin/busybox" "$ctx/logger/bin/busybox" && rm -rf "$ctx/logger/usr"
	ln -s busybox "$ctx/logger/bin/sh" && chmod 1777 "$ctx/logger/tmp"
	logger=$LOCAL_REGISTRY/system-logger:$(recipe_key "$ctx/logger/bin/busybox")
	cached "$logger" || import_root "$logger" "$ctx/logger" --change 'ENV PATH=/bin' --change 'USER 999:999' \
		--change 'ENTRYPOINT ["/bin/busybox", "sh", "-c", "trap \"exit 0\" TERM INT; until [ -f /var/log/cassandra/system.log ]; do sleep 1 & wait $!; done; busybox tail -n +1 -F /var/log/cassandra/system.log & wait $!"]'
	printf '%s\n' "$server" "$client" "$logger"
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

# image_config SERVER CLIENT LOGGER prints cass-operator's image configuration
# (config.k8ssandra.io/v1beta2 ImageConfig, which the operator reads from the ConfigMap labelled
# k8ssandra.io/config=image) naming the images built here. v1beta2 has no per-version map: a
# server image is types.<serverType> with the tag prefix + serverVersion + suffix
# (pkg/images/images_v1beta2.go buildServerImage), so the suffix carries the recipe key and only
# serverVersion CASSANDRA_VERSION has an image; another version fails to pull, naming its tag.
image_config() {
	local server=$1 client=$2 logger=$3
	cat <<EOF
apiVersion: config.k8ssandra.io/v1beta2
kind: ImageConfig
metadata:
  name: image-config
images:
  system-logger:
    registry: "$LOCAL_REGISTRY"
    name: "$(img_name "$logger")"
    tag: "${logger##*:}"
  k8ssandra-client:
    registry: "$LOCAL_REGISTRY"
    name: "$(img_name "$client")"
    tag: "${client##*:}"
defaults:
  registry: "$LOCAL_REGISTRY"
  pullPolicy: IfNotPresent
types:
  cassandra:
    registry: "$LOCAL_REGISTRY"
    name: "$(img_name "$server")"
    suffix: "-${server##*-}"
EOF
}

# img_name REGISTRY/NAME:TAG prints NAME.
img_name() { local n=${1#"$LOCAL_REGISTRY"/}; echo "${n%%:*}"; }

# install loads cass-operator's image into the cluster and applies its own install manifests
# (config/deployments/cluster, cached by make cass-operator-manifests) with it, leaving out
# cert-manager's objects, whose certificate webhook_certificate makes instead.
install_operator() {
	require_docker
	require_cluster
	[[ -f "$CASS_OPERATOR_MANIFESTS" ]] || die "no $CASS_OPERATOR_MANIFESTS: run make cass-operator-manifests"
	local image server client logger
	image=$(operator_image)
	{ read -r server && read -r client && read -r logger; } < <(cassandra_images)
	log "loading $image $server $client $logger into kind cluster $KIND_CLUSTER"
	# Into the workers only: no pod of these runs on the control plane (tainted), and each node
	# takes the whole of every image.
	local workers
	workers=$("$KIND" get nodes --name "$KIND_CLUSTER" | grep -v -- '-control-plane$' | paste -sd, -)
	"$KIND" load docker-image "$image" "$server" "$client" "$logger" --name "$KIND_CLUSTER" --nodes "$workers" >&2
	local upstream=docker.io/k8ssandra/cass-operator:$CASS_OPERATOR_VERSION
	grep -q "image: $upstream\$" "$CASS_OPERATOR_MANIFESTS" || die "$CASS_OPERATOR_MANIFESTS names no image $upstream"
	# Documents split on ---; cert-manager's (apiVersion cert-manager.io/...) dropped.
	awk -v RS='\n---\n' -v ORS='\n---\n' '!/(^|\n)apiVersion: cert-manager\.io\//' "$CASS_OPERATOR_MANIFESTS" |
		sed "s#image: $upstream\$#image: $image#" |
		k apply --server-side --force-conflicts -f - >&2
	image_config "$server" "$client" "$logger" |
		k -n cass-operator create configmap cass-operator-image-config --from-file=image_config.yaml=/dev/stdin \
			--dry-run=client -o yaml |
		k label --local -f - -o yaml app.kubernetes.io/name=cass-operator k8ssandra.io/config=image |
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
	cassandra-base) cassandra_base ;;
	cassandra) cassandra_images ;;
	install) install_operator ;;
	*) echo "usage: $0 operator|install" >&2; exit 2 ;;
	esac
	exit
}
