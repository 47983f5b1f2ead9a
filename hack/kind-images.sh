#!/usr/bin/env bash
# Builds, with no image registry, every image the kind workflow needs, from what this machine's
# registries serve: Debian's packages, the Go module proxy and Kubernetes' own sources. Each
# piece is cached by version under $CACHE/kind, so a second run only loads what is cached.
#
#   hack/kind-images.sh binaries   # Go and C binaries: kind, containerd, crictl, Kubernetes, CoreDNS, ...
#   hack/kind-images.sh node       # the kind node image $KIND_NODE_IMAGE (builds what it needs)
#   hack/kind-images.sh all        # binaries, node
#
# The node image is what `kind build node-image --type file` makes, assembled here by the same
# steps (sigs.k8s.io/kind pkg/build/nodeimage/buildcontext.go): kind's step pre-pulls CoreDNS,
# etcd, pause, kindnetd and the local-path images from their registries, which this machine
# cannot reach, so they are built here and imported instead. kindnetd has no published source
# module: clusters of this image set disableDefaultCNI and get Debian's CNI plugins
# (hack/kind-cni.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${CASSBENCH_CACHE:-$HOME/.cache/cassbench}
GO=${GO:-go}
# Versions: Kubernetes as hack/control-plane.sh builds it; the others as the Kubernetes
# release expects them (kubeadm's constants: CoreDNS v1.13.1, pause 3.10.1) or as the module
# proxy serves them (crictl v1.35.0 and local-path-provisioner v0.0.31 to v0.0.34 are refused).
KIND_VERSION=${KIND_VERSION:-v0.33.0}
KUBE_VERSION=${KUBE_VERSION:-v1.35.8}
ETCD_VERSION=${ETCD_VERSION:-v3.6.16}
CONTAINERD_VERSION=${CONTAINERD_VERSION:-v2.3.4}
CRICTL_VERSION=${CRICTL_VERSION:-v1.36.0}
COREDNS_VERSION=${COREDNS_VERSION:-v1.13.1}
LOCAL_PATH_VERSION=${LOCAL_PATH_VERSION:-v0.0.30}
PAUSE_VERSION=${PAUSE_VERSION:-3.10.1}
DEBIAN_SUITE=${DEBIAN_SUITE:-bookworm}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

BIN=$CACHE/kind/bin

log() { echo "kind-images: $*" >&2; }
die() { log "$*"; exit 1; }

# Scratch directories and build containers are removed when the script ends, however it ends
# (an error, Ctrl-C, kill): each is listed in SCRATCH as it is made, and the top shell's EXIT
# trap removes what is listed. The list is a file because the functions that make scratch run
# in $(...) subshells too, whose variables and traps the top shell never sees.
SCRATCH=$(mktemp /var/tmp/cassbench-kind-scratch-XXXXXX)
remove_scratch() {
	local p
	while IFS= read -r p; do
		case "$p" in
		container:*) docker rm -f -v "${p#container:}" >/dev/null 2>&1 || true ;;
		?*) rm -rf "$p" ;;
		esac
	done <"$SCRATCH"
	rm -f "$SCRATCH"
}
trap remove_scratch EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# scratch_dir TEMPLATE makes a directory as mktemp -d does and lists it in SCRATCH.
scratch_dir() {
	local d
	d=$(mktemp -d "$@")
	echo "$d" >>"$SCRATCH"
	echo "$d"
}

# go_install NAME VERSION PACKAGE@VERSION [go build flags...] installs one binary as
# $BIN/NAME-VERSION.
go_install() {
	local name=$1 version=$2 pkg=$3
	shift 3
	local out=$BIN/$name-$version
	[[ -x "$out" ]] && return
	mkdir -p "$BIN"
	log "building $name $version from the Go module proxy"
	local tmp
	tmp=$(scratch_dir "$BIN/.build-XXXXXX")
	# -mod=mod and GOFLAGS cleared: the module is built as its go.mod says, outside this one.
	(cd "$tmp" && GOFLAGS= CGO_ENABLED=0 GOBIN="$tmp" "$GO" install -trimpath "$@" "$pkg")
	mv "$tmp/$(basename "${pkg%@*}")" "$out"
	rm -rf "$tmp"
}

containerd_ldflags() {
	local p=github.com/containerd/containerd/v2/version
	echo "-s -w -X $p.Version=$CONTAINERD_VERSION -X $p.Package=github.com/containerd/containerd/v2"
}

# pause, from the C source Kubernetes ships in its module, static as in its own image.
build_pause() {
	local out=$BIN/pause-$PAUSE_VERSION
	[[ -x "$out" ]] && return
	command -v gcc >/dev/null || die "gcc is needed for pause (apt-get install gcc libc6-dev)"
	local dir
	dir=$(GOFLAGS= "$GO" mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
	
	grep -q "TAG ?= $PAUSE_VERSION" "$dir/build/pause/Makefile" ||
		die "Kubernetes $KUBE_VERSION's build/pause is not version $PAUSE_VERSION"
	log "building pause $PAUSE_VERSION from Kubernetes $KUBE_VERSION's source"
	mkdir -p "$BIN"
	gcc -Os -Wall -Werror -static -DVERSION="v$PAUSE_VERSION-cassbench" -o "$out.tmp" "$dir/build/pause/linux/pause.c"
	strip "$out.tmp"
	mv "$out.tmp" "$out"
}

# runtime_binaries: what the base image holds, containerd and crictl.
runtime_binaries() {
	local tags="no_btrfs no_devmapper no_zfs no_aufs urfave_cli_no_docs osusergo netgo static_build"
	local c
	for c in containerd ctr containerd-shim-runc-v2; do
		go_install "$c" "$CONTAINERD_VERSION" "github.com/containerd/containerd/v2/cmd/$c@$CONTAINERD_VERSION" \
			-tags "$tags" -ldflags "$(containerd_ldflags)"
	done
	go_install crictl "$CRICTL_VERSION" "sigs.k8s.io/cri-tools/cmd/crictl@$CRICTL_VERSION" \
		-ldflags "-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=$CRICTL_VERSION"
}

# CoreDNS with the plugins kubeadm's Corefile names and no others: `go install` of CoreDNS's
# own main links every plugin of its plugin.cfg (the cloud DNS providers, etcd, tracing, ...), the
# slowest build of this script cold (109 s against 78 s for this one, each alone with an empty
# build cache on 2 cores, 2026-11-28). CoreDNS chooses its plugins at compile time: a main
# package that imports the plugins it wants and sets dnsserver.Directives (their order) before
# coremain.Run (https://coredns.io/2017/07/25/compile-time-enabling-or-disabling-plugins/).
# The plugins' names, packages and order are read from plugin.cfg of $COREDNS_VERSION, and the
# Corefile kubeadm writes (the ConfigMap of its CoreDNS addon, which kind keeps) from
# Kubernetes $KUBE_VERSION, so a Corefile naming a plugin not built in fails here, not in the
# cluster.
COREDNS_PLUGINS="errors health ready kubernetes prometheus forward cache loop reload loadbalance"
COREDNS_BIN=$BIN/coredns-$COREDNS_VERSION-$(printf '%s\n' $COREDNS_PLUGINS | sha256sum | cut -c1-12)

# corefile_plugins prints the plugins kubeadm's Corefile of $KUBE_VERSION names, one a line:
# the first word of each line directly inside the server block, template actions removed.
corefile_plugins() {
	local kube
	kube=$(GOFLAGS= "$GO" mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
	sed -n '/^ *Corefile: |$/,/^`/p' "$kube/cmd/kubeadm/app/phases/addons/dns/manifests.go" |
		sed -e '1d' -e '$d' -e 's/{{[^}]*}}//g' |
		awk '{ if (depth == 1 && NF && $1 != "}" && $1 != "{") print $1
		       depth += gsub(/{/, "{") - gsub(/}/, "}") }'
}

build_coredns() {
	[[ -x "$COREDNS_BIN" ]] && return
	local coredns p
	coredns=$(GOFLAGS= "$GO" mod download -json "github.com/coredns/coredns@$COREDNS_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
	local used
	used=$(corefile_plugins)
	[[ -n "$used" ]] || die "found no plugins in kubeadm's Corefile of $KUBE_VERSION (cmd/kubeadm/app/phases/addons/dns/manifests.go)"
	for p in $used; do
		[[ " $COREDNS_PLUGINS " == *" $p "* ]] || die "kubeadm's Corefile of $KUBE_VERSION uses the CoreDNS plugin $p, which COREDNS_PLUGINS leaves out"
	done
	log "building coredns $COREDNS_VERSION with the plugins $COREDNS_PLUGINS"
	mkdir -p "$BIN"
	local tmp
	tmp=$(scratch_dir "$BIN/.build-XXXXXX")
	# plugin.cfg lines are name:package, in the order the plugins run.
	local directives="" imports="" name pkg n=0
	while IFS=: read -r name pkg; do
		[[ " $COREDNS_PLUGINS " == *" $name "* ]] || continue
		directives+="	\"$name\","$'\n'
		imports+="	_ \"github.com/coredns/coredns/plugin/$pkg\""$'\n'
		n=$((n + 1))
	done < <(grep -v '^#' "$coredns/plugin.cfg" | grep ':')
	[[ $n == $(wc -w <<<"$COREDNS_PLUGINS") ]] || die "CoreDNS $COREDNS_VERSION's plugin.cfg lacks some of $COREDNS_PLUGINS"
	cat >"$tmp/main.go" <<GO
// Command coredns is CoreDNS $COREDNS_VERSION with the plugins kubeadm's Corefile uses,
// written by hack/kind-images.sh.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

$imports)

func init() {
	dnsserver.Directives = []string{
$directives	}
}

func main() { coremain.Run() }
GO
	printf 'module cassbench.local/coredns\n\ngo %s\n\nrequire github.com/coredns/coredns %s\n' \
		"$(sed -n 's/^go //p' "$coredns/go.mod")" "$COREDNS_VERSION" >"$tmp/go.mod"
	# Only CoreDNS's own requirements (its go.mod is tidy, so they are the versions its own
	# build selects); it has no replace directives to repeat.
	! grep -q '^replace' "$coredns/go.mod" || die "CoreDNS $COREDNS_VERSION's go.mod has replace directives to repeat"
	(cd "$tmp" && GOFLAGS=-mod=mod "$GO" mod tidy >&2 && GOFLAGS= CGO_ENABLED=0 "$GO" build -trimpath \
		-ldflags "-s -w -X github.com/coredns/coredns/coremain.GitCommit=cassbench-$(basename "$COREDNS_BIN")" -o coredns .)
	mv "$tmp/coredns" "$COREDNS_BIN"
	rm -rf "$tmp"
}

binaries() {
	runtime_binaries
	build_coredns
	go_install local-path-provisioner "$LOCAL_PATH_VERSION" \
		"github.com/rancher/local-path-provisioner@$LOCAL_PATH_VERSION" -ldflags "-s -w -X main.VERSION=$LOCAL_PATH_VERSION"
	build_pause
	# The Kubernetes binaries: the control plane's are hack/control-plane.sh's, cached there.
	KUBE_VERSION=$KUBE_VERSION ETCD_VERSION=$ETCD_VERSION hack/control-plane.sh \
		kube-controller-manager kube-scheduler kubelet kubeadm kubectl kube-proxy >/dev/null
}


# The recipe's revision: a change to how an image is made gives new cache entries (3: CoreDNS
# with only the Corefile's plugins).
RECIPE=3
IMAGES=$CACHE/kind/images-r$RECIPE
# Locally built images carry this registry name, which no registry serves: a pull of them can
# only be served by what was loaded. Kubernetes' own keep their upstream names (registry.k8s.io),
# as `kind build node-image` gives the images it builds.
LOCAL_REGISTRY=cassbench.local

# The node's Debian packages: kind's base image's list (images/base/Dockerfile), runc from
# Debian instead of a source build, Debian's CNI plugins instead of kindnetd's, dbus for
# systemd, and tzdata and busybox-static for the images made from this root.
BASE_PACKAGES=systemd,systemd-sysv,dbus,conntrack,iptables,nftables,ebtables,iproute2,ethtool,socat,util-linux,mount,kmod,libseccomp2,pigz,bash,ca-certificates,curl,jq,procps,runc,containernetworking-plugins,tzdata,busybox-static

key() { printf '%s\n' "$@" | sha256sum | cut -c1-12; }

# debootstrap_root prints a directory holding Debian's root with BASE_PACKAGES, made once per
# package list and cached as a tarball (the slowest step, and the one that needs the mirror).
debootstrap_root() {
	local tarball=$CACHE/kind/debootstrap-$DEBIAN_SUITE-$(key "$BASE_PACKAGES").tar
	if [[ ! -f "$tarball" ]]; then
		command -v debootstrap >/dev/null || die "debootstrap is needed (hack/docker.sh up installs it)"
		local root
		root=$(scratch_dir /var/tmp/cassbench-debootstrap-XXXXXX)
		log "debootstrap $DEBIAN_SUITE with $BASE_PACKAGES (minutes, once)"
		debootstrap --variant=minbase --include="$BASE_PACKAGES" "$DEBIAN_SUITE" "$root" "$DEBIAN_MIRROR" >&2 ||
			{ tail -30 "$root/debootstrap/debootstrap.log" >&2 || true; rm -rf "$root"; die "debootstrap failed"; }
		rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
		mkdir -p "$(dirname "$tarball")"
		tar -C "$root" --numeric-owner -cf "$tarball.tmp" .
		mv "$tarball.tmp" "$tarball"
		rm -rf "$root"
	fi
	echo "$tarball"
}

kind_dir() { GOFLAGS= "$GO" mod download -json "sigs.k8s.io/kind@$KIND_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'; }

BASE_IMAGE=$LOCAL_REGISTRY/kind-base:$KIND_VERSION-$(key "$BASE_PACKAGES" "$CONTAINERD_VERSION" "$CRICTL_VERSION" "$PAUSE_VERSION" 1)

# base builds kind's base image (images/base/Dockerfile of $KIND_VERSION) from the Debian root:
# kind's files, containerd and crictl from the module proxy, and the same systemd set-up.
base() {
	docker image inspect "$BASE_IMAGE" >/dev/null 2>&1 && return
	local saved=$IMAGES/${BASE_IMAGE//[:\/]/_}.tar
	if [[ -f "$saved" ]]; then docker load -i "$saved" >&2; return; fi
	runtime_binaries
	local tarball root kind
	tarball=$(debootstrap_root)
	kind=$(kind_dir)
	root=$(scratch_dir /var/tmp/cassbench-kind-base-XXXXXX)
	# shellcheck disable=SC2064 # the path is known now
	trap "rm -rf '$root'" RETURN
	tar -C "$root" -xf "$tarball"
	local files=$kind/images/base/files
	install -m 0755 -D -t "$root/usr/local/bin" "$files"/usr/local/bin/*
	mkdir -p "$root/kind/bin" "$root/etc/containerd" "$root/etc/default" "$root/etc/sysctl.d" \
		"$root/etc/systemd/system/kubelet.service.d" "$root/LICENSES"
	install -m 0644 "$files"/kind/README.txt "$root/kind/"
	install -m 0755 "$files"/kind/bin/* "$root/kind/bin/"
	install -m 0644 "$files"/etc/crictl.yaml "$root/etc/"
	install -m 0644 "$files"/etc/containerd/config.toml "$root/etc/containerd/"
	install -m 0644 "$files"/etc/default/kubelet "$root/etc/default/"
	install -m 0644 "$files"/etc/sysctl.d/* "$root/etc/sysctl.d/"
	install -m 0644 "$files"/etc/systemd/system/*.service "$files"/etc/systemd/system/*.slice "$root/etc/systemd/system/"
	install -m 0644 "$files"/etc/systemd/system/kubelet.service.d/* "$root/etc/systemd/system/kubelet.service.d/"
	install -m 0644 "$files"/LICENSES/* "$root/LICENSES/"
	install -m 0755 "$BIN/containerd-$CONTAINERD_VERSION" "$root/usr/local/bin/containerd"
	install -m 0755 "$BIN/ctr-$CONTAINERD_VERSION" "$root/usr/local/bin/ctr"
	install -m 0755 "$BIN/containerd-shim-runc-v2-$CONTAINERD_VERSION" "$root/usr/local/bin/containerd-shim-runc-v2"
	install -m 0755 "$BIN/crictl-$CRICTL_VERSION" "$root/usr/local/bin/crictl"
	# Debian's CNI plugins where kind's containerd looks for them.
	mkdir -p "$root/opt/cni/bin"
	local p
	for p in "$root"/usr/lib/cni/*; do ln -s "/usr/lib/cni/$(basename "$p")" "$root/opt/cni/bin/"; done
	# containerd's sandbox image is the pause this script builds. This machine's containers
	# lack CAP_SYS_RESOURCE, so containerd must not raise a container's OOM score adjustment
	# below its own (restrict_oom_score_adj), as under rootless.
	sed -i -e "s#sandbox_image = .*#sandbox_image = \"registry.k8s.io/pause:$PAUSE_VERSION\"#" \
		-e 's#restrict_oom_score_adj = false#restrict_oom_score_adj = true#' "$root/etc/containerd/config.toml"
	grep -q 'restrict_oom_score_adj = true' "$root/etc/containerd/config.toml" || die "kind's containerd config changed: restrict_oom_score_adj not set"
	"$BIN/ctr-$CONTAINERD_VERSION" oci spec |
		jq '.hooks.createContainer[.hooks.createContainer | length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' |
		jq 'del(.process.rlimits)' >"$root/etc/containerd/cri-base.json"
	# kind's systemd set-up, as its Dockerfile does it.
	find "$root/lib/systemd/system/sysinit.target.wants/" -name systemd-tmpfiles-setup.service -delete
	rm -f "$root"/lib/systemd/system/multi-user.target.wants/* "$root"/etc/systemd/system/*.wants/* \
		"$root"/lib/systemd/system/local-fs.target.wants/* "$root"/lib/systemd/system/sockets.target.wants/*udev* \
		"$root"/lib/systemd/system/sockets.target.wants/*initctl* "$root"/lib/systemd/system/basic.target.wants/*
	echo "ReadKMsg=no" >>"$root/etc/systemd/journald.conf"
	ln -sf "$(chroot "$root" sh -c 'command -v systemd' || echo /lib/systemd/systemd)" "$root/sbin/init"
	chroot "$root" systemctl enable kubelet.service containerd.service undo-mount-hacks.service >&2
	chroot "$root" systemctl mask systemd-binfmt.service >&2
	mkdir -p "$root/etc/kubernetes/manifests"
	log "importing $BASE_IMAGE"
	tar -C "$root" --numeric-owner -c . | docker import \
		--change 'ENV container=docker' \
		--change 'ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]' - "$BASE_IMAGE" >&2
	# systemd stops cleanly on SIGRTMIN+3, which docker import cannot set: a build from the
	# imported image, local, so nothing is pulled.
	printf 'FROM %s\nSTOPSIGNAL SIGRTMIN+3\n' "$BASE_IMAGE" | DOCKER_BUILDKIT=0 docker build -q -t "$BASE_IMAGE" - >&2
	mkdir -p "$IMAGES"
	docker save -o "$saved.tmp" "$BASE_IMAGE" && mv "$saved.tmp" "$saved"
}

# scratch_image NAME ROOT [docker import --change ...] imports the directory ROOT as the image
# NAME, owned by root, with a fixed mtime, and saves it to $IMAGES/<NAME>.tar.
scratch_image() {
	local name=$1 root=$2
	shift 2
	local saved=$IMAGES/${name//[:\/]/_}.tar
	[[ -f "$saved" ]] && { echo "$saved"; return; }
	tar -C "$root" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -c . |
		docker import "$@" - "$name" >&2
	mkdir -p "$IMAGES"
	docker save -o "$saved.tmp" "$name" && mv "$saved.tmp" "$saved"
	echo "$saved"
}

# binary_image NAME BINARY PATH [docker import --change ...]: an image of one static binary.
binary_image() {
	local name=$1 binary=$2 path=$3
	shift 3
	local saved=$IMAGES/${name//[:\/]/_}.tar
	[[ -f "$saved" ]] && { echo "$saved"; return; }
	local root
	root=$(scratch_dir)
	install -m 0755 -D "$binary" "$root$path"
	mkdir -p "$root/tmp" && chmod 1777 "$root/tmp"
	scratch_image "$name" "$root" --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' "$@"
	rm -rf "$root"
}

KUBE_ASSETS() { KUBE_VERSION=$KUBE_VERSION ETCD_VERSION=$ETCD_VERSION hack/control-plane.sh --only; }

# images prints the image tarballs the node preloads, building what is missing.
images() {
	local assets c
	assets=$(KUBE_ASSETS)
	for c in kube-apiserver kube-controller-manager kube-scheduler; do
		binary_image "registry.k8s.io/$c:$KUBE_VERSION" "$assets/$c" "/usr/local/bin/$c" \
			--change "ENTRYPOINT [\"/usr/local/bin/$c\"]"
	done
	# kube-proxy programs iptables: its image is the node's Debian root with the binary, as
	# upstream's is a Debian image with iptables.
	local saved=$IMAGES/registry.k8s.io_kube-proxy_$KUBE_VERSION.tar
	if [[ ! -f "$saved" ]]; then
		local root
		root=$(scratch_dir /var/tmp/cassbench-kube-proxy-XXXXXX)
		tar -C "$root" -xf "$(debootstrap_root)"
		install -m 0755 "$assets/kube-proxy" "$root/usr/local/bin/kube-proxy"
		# kube-proxy must program the iptables mode the node uses, which kind's entrypoint picks
		# at boot by the rules it finds. As upstream's image does (kubernetes-sigs/iptables-wrappers),
		# the first iptables call picks the mode whose tables hold more rules (the kubelet's
		# canaries are there by then), points the alternatives at it and runs it.
		cat >"$root/usr/sbin/iptables-wrapper" <<'WRAPPER'
#!/bin/sh
legacy=$( (iptables-legacy-save; ip6tables-legacy-save) 2>/dev/null | grep -c '^-')
nft=$( (timeout 5 sh -c 'iptables-nft-save; ip6tables-nft-save') 2>/dev/null | grep -c '^-')
if [ "$legacy" -gt "$nft" ]; then mode=legacy; else mode=nft; fi
update-alternatives --set iptables "/usr/sbin/iptables-$mode" >/dev/null
update-alternatives --set ip6tables "/usr/sbin/ip6tables-$mode" >/dev/null
exec "$0" "$@"
WRAPPER
		chmod 0755 "$root/usr/sbin/iptables-wrapper"
		local v
		for v in iptables ip6tables; do
			chroot "$root" update-alternatives --install "/usr/sbin/$v" "$v" /usr/sbin/iptables-wrapper 100 \
				--slave "/usr/sbin/$v-restore" "$v-restore" /usr/sbin/iptables-wrapper \
				--slave "/usr/sbin/$v-save" "$v-save" /usr/sbin/iptables-wrapper >&2
			chroot "$root" update-alternatives --set "$v" /usr/sbin/iptables-wrapper >&2
		done
		scratch_image "registry.k8s.io/kube-proxy:$KUBE_VERSION" "$root" \
			--change 'ENTRYPOINT ["/usr/local/bin/kube-proxy"]' >/dev/null
		rm -rf "$root"
	fi
	echo "$saved"
	binary_image "registry.k8s.io/etcd:${ETCD_VERSION#v}-0" "$assets/etcd" /usr/local/bin/etcd
	binary_image "registry.k8s.io/coredns/coredns:$COREDNS_VERSION" "$COREDNS_BIN" /coredns \
		--change 'ENTRYPOINT ["/coredns"]'
	binary_image "registry.k8s.io/pause:$PAUSE_VERSION" "$BIN/pause-$PAUSE_VERSION" /pause \
		--change 'ENTRYPOINT ["/pause"]' --change 'USER 65535:65535'
	binary_image "$LOCAL_REGISTRY/local-path-provisioner:$LOCAL_PATH_VERSION" "$BIN/local-path-provisioner-$LOCAL_PATH_VERSION" \
		/usr/local/bin/local-path-provisioner --change 'ENTRYPOINT ["/usr/local/bin/local-path-provisioner"]'
	# The provisioner's helper pods run sh, mkdir and rm: Debian's static busybox.
	local helper=$LOCAL_REGISTRY/local-path-helper:$DEBIAN_SUITE
	saved=$IMAGES/${helper//[:\/]/_}.tar
	if [[ ! -f "$saved" ]]; then
		local root
		root=$(scratch_dir /var/tmp/cassbench-helper-XXXXXX)
		mkdir -p "$root/bin" "$root/tmp"
		# bookworm's /bin is a link to /usr/bin.
		tar -C "$root" -xf "$(debootstrap_root)" ./usr/bin/busybox
		mv "$root/usr/bin/busybox" "$root/bin/busybox"
		rm -rf "$root/usr"
		for c in sh mkdir rm rmdir ls chmod; do ln -s busybox "$root/bin/$c"; done
		chmod 1777 "$root/tmp"
		scratch_image "$helper" "$root" --change 'ENV PATH=/bin' >/dev/null
		rm -rf "$root"
	fi
	echo "$saved"
}

KIND_NODE_IMAGE=${KIND_NODE_IMAGE:-$LOCAL_REGISTRY/kind-node:$KUBE_VERSION-$(key "$BASE_IMAGE" "$ETCD_VERSION" "$COREDNS_VERSION" "$LOCAL_PATH_VERSION" "$RECIPE")}

# storage_manifest prints kind's default local-path manifest of $KIND_VERSION with the images
# built here.
storage_manifest() {
	local manifest
	manifest=$(sed -n '/^const defaultStorageManifest = `/,/^`/p' "$(kind_dir)/pkg/build/nodeimage/const_storage.go" |
		sed -e '1d' -e '$d' \
			-e "s#\` + storageProvisionerImage + \`#$LOCAL_REGISTRY/local-path-provisioner:$LOCAL_PATH_VERSION#" \
			-e "s#\` + storageHelperImage + \`#$LOCAL_REGISTRY/local-path-helper:$DEBIAN_SUITE#")
	[[ "$manifest" == *"kind: Deployment"* && "$manifest" != *'` +'* ]] ||
		die "kind $KIND_VERSION's storage manifest is not what this script expects (pkg/build/nodeimage/const_storage.go)"
	echo "$manifest"
}

# node assembles the node image as `kind build node-image` does: Kubernetes' binaries in
# /usr/bin, /kind/version, the storage manifest, the images imported into the node's
# containerd (pinned, as kind pins them), then a commit with kind's entrypoint.
node() {
	if docker image inspect "$KIND_NODE_IMAGE" >/dev/null 2>&1; then echo "$KIND_NODE_IMAGE"; return; fi
	local saved=$IMAGES/${KIND_NODE_IMAGE//[:\/]/_}.tar
	if [[ -f "$saved" ]]; then docker load -i "$saved" >&2; echo "$KIND_NODE_IMAGE"; return; fi
	binaries
	base
	local tars assets
	tars=$(images)
	assets=$(KUBE_ASSETS)
	local id=cassbench-kind-build-$$
	log "assembling $KIND_NODE_IMAGE in container $id"
	echo "container:$id" >>"$SCRATCH"
	docker run -d --entrypoint=sleep --name "$id" --security-opt seccomp=unconfined "$BASE_IMAGE" infinity >/dev/null
	# shellcheck disable=SC2064
	trap "docker rm -f -v '$id' >/dev/null 2>&1 || true" RETURN
	local b
	for b in kubeadm kubelet kubectl; do
		docker cp "$assets/$b" "$id:/usr/bin/$b"
		docker exec "$id" chown root:root "/usr/bin/$b"
	done
	echo -n "$KUBE_VERSION" | docker exec -i "$id" sh -c 'mkdir -p /kind/manifests && cat >/kind/version'
	storage_manifest | docker exec -i "$id" sh -c 'cat >/kind/manifests/default-storage.yaml'
	docker exec "$id" bash -c 'nohup containerd >/tmp/containerd.log 2>&1 &'
	docker exec "$id" bash -c 'for i in $(seq 1 30); do [ -S /run/containerd/containerd.sock ] && ctr info >/dev/null 2>&1 && exit 0; sleep 1; done; cat /tmp/containerd.log; exit 1'
	local t
	for t in $tars; do
		docker exec -i "$id" ctr --namespace=k8s.io images import --label=io.cri-containerd.pinned=pinned \
			--all-platforms --no-unpack --digests - <"$t" >&2
	done
	docker exec "$id" ctr --namespace=k8s.io images list -q >&2
	docker exec "$id" pkill containerd || true
	docker exec "$id" sh -c 'sleep 2; rm -f /tmp/containerd.log'
	docker commit --change 'ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]' "$id" "$KIND_NODE_IMAGE" >/dev/null
	mkdir -p "$IMAGES"
	docker save -o "$saved.tmp" "$KIND_NODE_IMAGE" && mv "$saved.tmp" "$saved"
	echo "$KIND_NODE_IMAGE"
}

# One compound command, read whole before it runs: editing this file while a build runs
# cannot change what the running build does next.
{
case "${1:-}" in
binaries) binaries ;;
coredns) build_coredns ;;
corefile-plugins) corefile_plugins ;;
base) base ;;
debootstrap) debootstrap_root ;;
images) images ;;
node) node ;;
node-image-name) echo "$KIND_NODE_IMAGE" ;;
storage-manifest) storage_manifest ;;
etcd-tag) echo "${ETCD_VERSION#v}-0" ;;
all) binaries && node ;;
*) echo "usage: $0 binaries|base|images|node|node-image-name|all" >&2; exit 2 ;;
esac
exit
}
