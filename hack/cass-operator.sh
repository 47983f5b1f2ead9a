#!/usr/bin/env bash
# Builds the real cass-operator manager (github.com/k8ssandra/cass-operator, package cmd) at the
# version go.mod pins, from the Go module proxy, and caches it outside the repository keyed by
# version, like hack/control-plane.sh does for the control plane. Prints the binary's path.
#
#   hack/cass-operator.sh            # build once, then print ~/.cache/cassbench/cass-operator-<ver>/manager
#
# Safe to run twice at once: each run builds into its own temporary file and renames it into
# place, so a reader never sees half a binary and the loser of the race just replaces it with an
# identical one.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${CASSBENCH_CACHE:-$HOME/.cache/cassbench}"
MODULE=github.com/k8ssandra/cass-operator

log() { echo "cass-operator: $*" >&2; }

# The version cassbench's own go.mod pins, so that the CRDs the tests install (make
# cass-operator-crds) and the operator that serves them never drift apart.
VERSION="${CASS_OPERATOR_VERSION:-$(cd "$ROOT" && go list -m -f '{{.Version}}' "$MODULE")}"
[[ "$VERSION" == v* ]] || { log "cannot read the version of $MODULE from $ROOT/go.mod (got '$VERSION')"; exit 1; }

DIR="$CACHE/cass-operator-$VERSION"
BIN="$DIR/manager"
if [[ -x "$BIN" ]]; then
  echo "$BIN"
  exit 0
fi
mkdir -p "$DIR"

# Go applies replace directives only in the main module, so the operator's own replace of
# google.golang.org/grpc (it needs a newer grpc than its requirements select) is dropped when
# the operator is a dependency. The wrapper repeats every replace the operator's go.mod has.
# The operator does not depend on k8ssandra-client (whose v0.8.12 the proxy refuses), so no
# other pin is needed; the check below fails loudly if a later version starts to.
operator_gomod() {
  (cd "$DIR" && GOFLAGS= go mod download -json "$MODULE@$VERSION") |
    sed -n 's/.*"GoMod": "\(.*\)".*/\1/p'
}

write_wrapper() {
  local src="$1" gomod
  gomod=$(operator_gomod)
  [[ -f "$gomod" ]] || { log "go mod download of $MODULE@$VERSION gave no go.mod"; exit 1; }
  if grep -q 'k8ssandra/k8ssandra-client' "$gomod"; then
    log "$MODULE@$VERSION requires k8ssandra-client; pin a version the proxy serves in $0"
    exit 1
  fi
  {
    echo "module cassbench.io/cass-operator"
    echo
    echo "go $(go env GOVERSION | sed 's/^go//; s/^\([0-9]*\.[0-9]*\).*/\1/')"
    echo
    # The tool directive records the main package as a dependency without importing it
    # (a main package cannot be imported), so `go mod tidy` keeps the requirement.
    echo "tool $MODULE/cmd"
    echo
    echo "require $MODULE $VERSION"
    echo
    # Single-line replaces (replace a => b v) and lines inside a replace ( ... ) block.
    awk '/^replace \(/{blk=1; next} blk && /^\)/{blk=0; next}
         blk && NF {print "replace " $0}
         /^replace [^(]/ {print}' "$gomod"
  } >"$src/go.mod"
  (cd "$src" && GOFLAGS=-mod=mod go mod tidy >&2)
}

SRC="$DIR/src"
if [[ ! -f "$SRC/go.sum" ]]; then
  tmpsrc=$(mktemp -d "$DIR/src.XXXXXX")
  chmod 0755 "$tmpsrc"
  write_wrapper "$tmpsrc"
  # Another run may have finished the wrapper meanwhile; theirs is identical, keep it.
  if ! mv -T "$tmpsrc" "$SRC" 2>/dev/null; then rm -rf "$tmpsrc"; fi
fi

log "building $MODULE/cmd $VERSION (a few minutes the first time)"
tmpbin=$(mktemp "$DIR/manager.XXXXXX")
trap 'rm -f "$tmpbin"' EXIT
(cd "$SRC" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmpbin" "$MODULE/cmd")
chmod 0755 "$tmpbin"
mv -f "$tmpbin" "$BIN"
trap - EXIT
echo "$BIN"
