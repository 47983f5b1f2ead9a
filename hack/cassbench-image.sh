#!/usr/bin/env bash
# Assembles cassbench's image without a registry: the layout the Dockerfile makes, from the
# binaries hack/build.sh makes and a base holding what distroless/static-debian12:nonroot gives
# them (Debian's CA bundle and time zones, a passwd entry for uid 65532). The Dockerfile stays
# what connected machines build; test/packaging compares the two.
#
#   hack/cassbench-image.sh layout DIR   # DIR/rootfs (the image's files), DIR/config.json and
#                                        # DIR/debian-packages (NAME=VERSION of the base's)
#   hack/cassbench-image.sh layer DIR    # the layout and DIR/layer.tar, the image's one layer
#   hack/cassbench-image.sh docker IMG   # the layer imported into Docker as IMG, image id printed
#
# The binaries are built for GOARCH (default: this machine's), or copied from BINARIES, a
# directory hack/build.sh wrote (hack/release.sh passes the ones its SBOMs describe).
# The base comes from Debian's ca-certificates and tzdata packages at the versions apt offers,
# cached by version under $CACHE/image-base; both are arch all, so every platform shares it.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${CASSBENCH_CACHE:-$HOME/.cache/cassbench}
# The runtime user: distroless's nonroot, which the Dockerfile's USER and the pods' runAsUser
# name by number.
UID_NONROOT=65532

log() { echo "cassbench-image: $*" >&2; }
die() { log "$*"; exit 1; }

candidate() { apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}'; }

# base sets base_dir to a directory with the Debian files of the base, downloading the packages
# once per version, and base_packages to their NAME=VERSION lines.
base() {
	command -v apt-get >/dev/null || die "needs apt-get (Debian or Ubuntu) for ca-certificates and tzdata"
	local ca tz
	ca=$(candidate ca-certificates)
	tz=$(candidate tzdata)
	if [[ -z "$ca" || "$ca" == "(none)" || -z "$tz" || "$tz" == "(none)" ]]; then
		log "apt knows no ca-certificates or tzdata: apt-get update"
		apt-get update -qq >&2
		ca=$(candidate ca-certificates)
		tz=$(candidate tzdata)
	fi
	local dir=$CACHE/image-base/ca-certificates_${ca}-tzdata_${tz}
	if [[ ! -f "$dir/done" ]]; then
		log "fetching Debian's ca-certificates $ca and tzdata $tz"
		local tmp
		tmp=$(mktemp -d)
		(cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "ca-certificates=$ca" "tzdata=$tz" >&2)
		mkdir -p "$tmp/x" "$tmp/base/etc/ssl/certs" "$tmp/base/usr/share"
		local deb
		for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/x"; done
		# The bundle update-ca-certificates writes on Debian: every certificate the package
		# ships (/etc/ca-certificates.conf enables them all by default), in order.
		find "$tmp/x/usr/share/ca-certificates" -name '*.crt' -print0 | LC_ALL=C sort -z |
			xargs -0 cat >"$tmp/base/etc/ssl/certs/ca-certificates.crt"
		cp -a "$tmp/x/usr/share/zoneinfo" "$tmp/base/usr/share/"
		rm -rf "$dir" && mkdir -p "$(dirname "$dir")"
		mv "$tmp/base" "$dir"
		touch "$dir/done"
		rm -rf "$tmp"
	fi
	base_dir=$dir
	base_packages=$(printf 'ca-certificates=%s\ntzdata=%s' "$ca" "$tz")
}

layout() {
	local out=$1
	[[ -n "$out" ]] || die "usage: $0 layout DIR"
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	local root=$out/rootfs
	rm -rf "$root" && mkdir -p "$root"
	base
	cp -a "$base_dir/etc" "$base_dir/usr" "$root/"
	printf '%s\n' "$base_packages" >"$out/debian-packages"
	# passwd and group as distroless writes them.
	cat >"$root/etc/passwd" <<EOF
root:x:0:0:root:/root:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
nonroot:x:$UID_NONROOT:$UID_NONROOT:nonroot:/home/nonroot:/sbin/nologin
EOF
	cat >"$root/etc/group" <<EOF
root:x:0:
nobody:x:65534:
nonroot:x:$UID_NONROOT:
EOF
	echo "hosts: files dns" >"$root/etc/nsswitch.conf"
	mkdir -p "$root/tmp" "$root/home/nonroot" "$root/root"
	chmod 1777 "$root/tmp"
	chmod 0700 "$root/home/nonroot" "$root/root"
	# The binaries, by the build the Dockerfile runs (the kubectl-cassbench link stays out, as
	# there).
	local bin=${BINARIES:-}
	if [[ -z "$bin" ]]; then
		bin=$(mktemp -d)
		GOOS=linux hack/build.sh "$bin" >&2
	fi
	install -m 0755 "$bin/manager" "$bin/cassbench" "$bin/cassbench-writer" "$root/"
	[[ -n "${BINARIES:-}" ]] || rm -rf "$bin"
	# The Dockerfile's USER and ENTRYPOINT, and what its base image sets.
	cat >"$out/config.json" <<EOF
{
  "User": "$UID_NONROOT:$UID_NONROOT",
  "Entrypoint": ["/manager"],
  "WorkingDir": "/home/nonroot",
  "Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"]
}
EOF
	echo "$out"
}

# layer writes the layout and DIR/layer.tar: owned by root except the user's home, with a fixed
# time, so that the same sources give the same layer (and the same image digest).
layer() {
	local out=$1
	[[ -n "$out" ]] || die "usage: $0 layer DIR"
	out=$(layout "$out")
	tar -C "$out/rootfs" --sort=name --numeric-owner --owner=0 --group=0 --mtime=@0 \
		--exclude=./home/nonroot -cf "$out/layer.tar" .
	tar -C "$out/rootfs" --sort=name --numeric-owner --owner=$UID_NONROOT --group=$UID_NONROOT --mtime=@0 \
		-rf "$out/layer.tar" ./home/nonroot
	echo "$out"
}

docker_image() {
	local img=$1
	[[ -n "$img" ]] || die "usage: $0 docker IMG"
	docker info >/dev/null 2>&1 || die "needs a running Docker engine (hack/docker.sh up)"
	local dir
	dir=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$dir'" RETURN
	layer "$dir" >/dev/null
	local changes=() e
	changes+=(--change "USER $(jq -r .User "$dir/config.json")")
	changes+=(--change "ENTRYPOINT $(jq -c .Entrypoint "$dir/config.json")")
	changes+=(--change "WORKDIR $(jq -r .WorkingDir "$dir/config.json")")
	while IFS= read -r e; do changes+=(--change "ENV $e"); done < <(jq -r '.Env[]' "$dir/config.json")
	docker import "${changes[@]}" "$dir/layer.tar" "$img" >/dev/null
	docker image inspect -f '{{.Id}}' "$img"
}

case "${1:-}" in
layout) layout "${2:-}" ;;
layer) layer "${2:-}" ;;
docker) docker_image "${2:-}" ;;
*) echo "usage: $0 layout DIR | layer DIR | docker IMG" >&2; exit 2 ;;
esac
