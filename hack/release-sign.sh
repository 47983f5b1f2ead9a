#!/usr/bin/env bash
# Signs a release's image and chart in their registry with cosign, by digest, then verifies
# both signatures: what `make release-sign` runs after `make release REGISTRY=...`.
#
#   OUT              the release directory (default dist/release/VERSION): its image.txt and
#                    chart.txt name what to sign, REPOSITORY:VERSION@DIGEST
#   COSIGN_KEY       the private key (default: OUT/cosign.key, generated when missing); its
#                    public key is written beside it (KEY.pub) when missing; COSIGN_PASSWORD
#                    is its password
#   PLAIN_HTTP=1     for a registry without TLS (127.0.0.1)
#   TLOG=1           also upload to the transparency log (Rekor). Default: no log, as for a
#                    local key and a registry no one else sees; verification then ignores it.
#
# Each platform's image SBOM is attached to the index as a signed CycloneDX attestation
# (cosign attest), verified likewise.
set -euo pipefail
cd "$(dirname "$0")/.."

COSIGN=${COSIGN:?COSIGN names the cosign binary (make release-sign sets it)}
: "${COSIGN_PASSWORD?COSIGN_PASSWORD is the password of the key (empty is allowed, if set)}"
export COSIGN_PASSWORD
version=${VERSION:-$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' charts/cassbench/Chart.yaml)}
out=${OUT:-dist/release/$version}

log() { echo "release-sign: $*" >&2; }
die() { log "$*"; exit 1; }

[[ -f "$out/image.txt" && -f "$out/chart.txt" ]] ||
	die "$out has no image.txt and chart.txt: run make release with REGISTRY set first"
key=${COSIGN_KEY:-$out/cosign.key}
pub=${key%.key}.pub
if [[ ! -f "$key" ]]; then
	log "generating a key pair: $key, $pub"
	(cd "$(dirname "$key")" && "$COSIGN" generate-key-pair --output-key-prefix "$(basename "${key%.key}")" >&2)
elif [[ ! -f "$pub" ]]; then
	"$COSIGN" public-key --key "$key" --outfile "$pub" >&2
fi

flags=()
[[ "${PLAIN_HTTP:-}" == 1 ]] && flags+=(--allow-http-registry)
sign_flags=(--tlog-upload=false)
verify_flags=(--insecure-ignore-tlog=true)
if [[ "${TLOG:-}" == 1 ]]; then
	sign_flags=()
	verify_flags=()
fi

# by_digest turns REPOSITORY:VERSION@DIGEST into REPOSITORY@DIGEST: cosign signs the digest,
# and a tag beside it only draws a warning.
by_digest() { local ref=${1%@*}; echo "${ref%:*}@${1#*@}"; }

image=$(by_digest "$(<"$out/image.txt")")
chart=$(by_digest "$(<"$out/chart.txt")")
for ref in "$image" "$chart"; do
	log "signing $ref"
	"$COSIGN" sign --key "$key" --yes "${sign_flags[@]}" "${flags[@]}" "$ref" >&2
done
for sbom in "$out"/sbom/image_*.cdx.json; do
	log "attesting $(basename "$sbom") on $image"
	"$COSIGN" attest --key "$key" --yes --type cyclonedx --predicate "$sbom" "${sign_flags[@]}" "${flags[@]}" "$image" >&2
done
for ref in "$image" "$chart"; do
	log "verifying $ref"
	"$COSIGN" verify --key "$pub" "${verify_flags[@]}" "${flags[@]}" "$ref" >/dev/null
done
log "verifying the SBOM attestations on $image"
"$COSIGN" verify-attestation --key "$pub" --type cyclonedx "${verify_flags[@]}" "${flags[@]}" "$image" >/dev/null
log "signed and verified: $image $chart (public key $pub)"
