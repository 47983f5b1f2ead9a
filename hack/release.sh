#!/usr/bin/env bash
# Makes a release of cassbench into OUT (default dist/release/VERSION): what cert-manager's and
# cass-operator's releases publish, from one command that CI (.github/workflows/release.yml)
# and the tests (test/packaging) both run.
#
#   VERSION    the release (default: the chart's appVersion); the binaries report it, the chart
#              and the image are tagged with it, and CHANGELOG.md must have a section for it
#   REGISTRY   where the image (REGISTRY/cassbench:VERSION) and the chart (an OCI artifact,
#              REGISTRY/charts/cassbench:VERSION) are pushed (empty: nothing is pushed, and the
#              image is written as an OCI layout into OUT/image); PLAIN_HTTP=1 for a registry
#              without TLS (127.0.0.1)
#   PLATFORMS  OS/ARCH pairs of the binaries and kubectl plugin archives; the linux ones are
#              the image's (default linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)
#   RELEASE_URL where the archives will be downloaded from (the krew manifest's URIs)
#
# Out: kubectl-cassbench_VERSION_OS_ARCH.tar.gz (the plugin: cassbench named kubectl-cassbench,
# and LICENSE), cassbench-VERSION.tgz (the chart), cassbench.yaml (the krew manifest),
# image.txt (the image index pushed, REPOSITORY:VERSION@DIGEST), chart.txt (the chart pushed,
# likewise; written after checksums.txt, by the push), sbom/*.cdx.json (CycloneDX:
# each binary's from its Go build information, and each platform's image's), checksums.txt
# (sha256 of every file above), RELEASE_NOTES.md (CHANGELOG.md's section). Archives and the
# image are reproducible: the same commit gives the same bytes and the same digest.
#
# The image is the Dockerfile's layout (hack/cassbench-image.sh layer) around the binaries
# built here, one OCI image per linux platform under one OCI image index, assembled and pushed
# without Docker by hack/ociimage (go-containerregistry).
set -euo pipefail
cd "$(dirname "$0")/.."

version=${VERSION:-$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' charts/cassbench/Chart.yaml)}
out=${OUT:-dist/release/$version}
platforms=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}
release_url=${RELEASE_URL:-https://github.com/cassbench/cassbench/releases/download/v$version}
HELM=${HELM:?HELM names the helm binary (make release sets it)}
CYCLONEDX_GOMOD=${CYCLONEDX_GOMOD:?CYCLONEDX_GOMOD names the SBOM tool (make release sets it)}

log() { echo "release: $*" >&2; }
die() { log "$*"; exit 1; }

[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || die "VERSION $version is not a semantic version X.Y.Z[-pre]"
# The release notes are CHANGELOG.md's section for the version, up to the next section.
notes=$(awk -v v="$version" '
	/^## \[/ { if (found) exit; found = index($0, "## [" v "]") == 1; next }
	found' CHANGELOG.md)
[[ -n "${notes//[[:space:]]/}" ]] || die "CHANGELOG.md has no section '## [$version] - DATE': write the release's changes there first"

commit=${COMMIT:-$(git rev-parse HEAD)}
epoch=$(git log -1 --format=%ct "$commit")
rm -rf "$out" && mkdir -p "$out/sbom"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%s\n' "$notes" >"$out/RELEASE_NOTES.md"

for platform in $platforms; do
	os=${platform%/*} arch=${platform#*/}
	bin=$out/bin/${os}_$arch
	log "building $platform"
	GOOS=$os GOARCH=$arch VERSION=$version hack/build.sh "$bin" >/dev/null
	# The plugin archive: krew installs kubectl-cassbench; LICENSE travels with it.
	stage=$(mktemp -d)
	cp "$bin/cassbench" "$stage/kubectl-cassbench"
	cp LICENSE "$stage/LICENSE"
	touch -d "@$epoch" "$stage"/*
	tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner -C "$stage" -cf - kubectl-cassbench LICENSE |
		gzip -n >"$out/kubectl-cassbench_${version}_${os}_$arch.tar.gz"
	rm -rf "$stage"
	if [[ "$os" == linux ]]; then
		for b in manager cassbench cassbench-writer; do
			"$CYCLONEDX_GOMOD" bin -json -version "$version" -output "$out/sbom/${b}_${os}_$arch.cdx.json" "$bin/$b" 2>/dev/null ||
				die "cyclonedx-gomod could not read the build information of $bin/$b"
		done
	fi
done

image_platforms=()
for platform in $platforms; do
	[[ "$platform" == linux/* ]] || continue
	os=${platform%/*} arch=${platform#*/}
	dir=$work/image/${os}_$arch
	log "assembling the image's layer for $platform"
	BINARIES=$out/bin/${os}_$arch hack/cassbench-image.sh layer "$dir" >/dev/null
	mkdir -p "$dir/sbom"
	cp "$out/sbom/"*"_${os}_$arch.cdx.json" "$dir/sbom/"
	image_platforms+=("$platform=$dir")
done
if ((${#image_platforms[@]} > 0)); then
	# The chart's default image.repository is where a release to ghcr.io/cassbench pushes.
	repository=${REGISTRY:-ghcr.io/cassbench}/cassbench
	image_flags=(-repository "$repository" -version "$version" -revision "$commit"
		-created "$(git log -1 --format=%cI "$commit")" -sbom-dir "$out/sbom")
	if [[ -n "${REGISTRY:-}" ]]; then
		image_flags+=(-push)
		[[ "${PLAIN_HTTP:-}" == 1 ]] && image_flags+=(-plain-http)
		log "building the image for ${image_platforms[*]%%=*} and pushing it to $repository:$version"
	else
		image_flags+=(-layout "$out/image")
		log "building the image for ${image_platforms[*]%%=*} into $out/image (an OCI layout)"
	fi
	"${GO:-go}" -C hack/ociimage build -trimpath -o "$work/ociimage" .
	"$work/ociimage" "${image_flags[@]}" "${image_platforms[@]}" >"$out/image.txt"
fi

log "packaging the chart"
"$HELM" package charts/cassbench --version "$version" --app-version "$version" --destination "$out" >/dev/null
chart=$out/cassbench-$version.tgz

log "writing the krew manifest"
hack/krew-manifest.sh "$version" "$release_url" "$out" >"$out/cassbench.yaml"

(cd "$out" && find . -maxdepth 2 -type f ! -name checksums.txt ! -path './bin/*' ! -path './image/*' -printf '%P\n' | LC_ALL=C sort |
	xargs sha256sum >checksums.txt)

if [[ -n "${REGISTRY:-}" ]]; then
	flags=()
	[[ "${PLAIN_HTTP:-}" == 1 ]] && flags=(--plain-http)
	log "pushing the chart to oci://$REGISTRY/charts"
	pushed=$("$HELM" push "$chart" "oci://$REGISTRY/charts" "${flags[@]}" 2>&1) || die "helm push: $pushed"
	sed 's/^/helm: /' <<<"$pushed" >&2
	chart_digest=$(awk '$1 == "Digest:" {print $2}' <<<"$pushed")
	[[ "$chart_digest" == sha256:* ]] || die "helm push printed no digest: $pushed"
	# Beside image.txt: what release-sign signs and users pin, by digest.
	echo "$REGISTRY/charts/cassbench:$version@$chart_digest" >"$out/chart.txt"
fi
log "done: $out"
