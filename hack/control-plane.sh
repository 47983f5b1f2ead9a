#!/usr/bin/env bash
# Builds the real Kubernetes control-plane binaries (kube-apiserver, etcd and, on request,
# kube-controller-manager and kube-scheduler) from the Go module proxy and caches them outside the repository,
# keyed by version, so that a fresh clone and CI reuse them. Prints the asset directory.
#
#   hack/control-plane.sh                       # kube-apiserver + etcd
#   hack/control-plane.sh kube-controller-manager kube-scheduler
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.35.8}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
CACHE="${CASSBENCH_CACHE:-$HOME/.cache/cassbench}"
ASSETS="$CACHE/control-plane/k8s-${KUBE_VERSION}-etcd-${ETCD_VERSION}"
mkdir -p "$ASSETS"

log() { echo "control-plane: $*" >&2; }

# A wrapper module: k8s.io/kubernetes replaces its staging modules with local paths, which a
# dependent module cannot follow, so the wrapper pins each of them to the matching release.
kube_wrapper() {
  local dir="$CACHE/control-plane/src-kube-${KUBE_VERSION}"
  if [[ ! -f "$dir/go.sum" ]]; then
    rm -rf "$dir" && mkdir -p "$dir"
    local gomod staging
    gomod=$(cd "$dir" && GOFLAGS= go mod download -json "k8s.io/kubernetes@${KUBE_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
    staging=$(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#\1#p' "$gomod")
    [[ -n "$staging" ]] || { log "no staging modules found in $gomod"; exit 1; }
    local minor="v0.${KUBE_VERSION#v1.}"
    {
      echo "module cassbench.io/control-plane"
      echo
      echo "go $(go env GOVERSION | sed 's/^go//; s/^\([0-9]*\.[0-9]*\).*/\1/')"
      echo
      echo "require k8s.io/kubernetes ${KUBE_VERSION}"
      echo
      for m in $staging; do echo "replace $m => $m $minor"; done
    } >"$dir/go.mod"
    printf 'package tools\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n\t_ "k8s.io/kubernetes/cmd/kube-controller-manager/app"\n\t_ "k8s.io/kubernetes/cmd/kube-scheduler/app"\n)\n' >"$dir/tools.go"
    (cd "$dir" && GOFLAGS=-mod=mod go mod tidy >&2)
  fi
  echo "$dir"
}

etcd_wrapper() {
  local dir="$CACHE/control-plane/src-etcd-${ETCD_VERSION}"
  if [[ ! -f "$dir/go.sum" ]]; then
    rm -rf "$dir" && mkdir -p "$dir"
    {
      echo "module cassbench.io/etcd"
      echo
      echo "go $(go env GOVERSION | sed 's/^go//; s/^\([0-9]*\.[0-9]*\).*/\1/')"
      echo
      echo "require go.etcd.io/etcd/server/v3 ${ETCD_VERSION}"
    } >"$dir/go.mod"
    printf 'package tools\n\nimport _ "go.etcd.io/etcd/server/v3/etcdmain"\n' >"$dir/tools.go"
    (cd "$dir" && GOFLAGS=-mod=mod go mod tidy >&2)
  fi
  echo "$dir"
}

kube_ldflags() {
  local minor="${KUBE_VERSION#v1.}"; minor="${minor%%.*}"
  local f=""
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    f+=" -X $pkg.gitVersion=${KUBE_VERSION} -X $pkg.gitMajor=1 -X $pkg.gitMinor=${minor}"
    f+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  echo "-s -w$f"
}

build_kube() {
  local bin="$1"
  [[ -x "$ASSETS/$bin" ]] && return
  local dir; dir=$(kube_wrapper)
  log "building $bin ${KUBE_VERSION} (several minutes the first time)"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "$(kube_ldflags)" -o "$ASSETS/$bin.tmp" "k8s.io/kubernetes/cmd/$bin")
  mv "$ASSETS/$bin.tmp" "$ASSETS/$bin"
}

build_etcd() {
  [[ -x "$ASSETS/etcd" ]] && return
  local dir; dir=$(etcd_wrapper)
  log "building etcd ${ETCD_VERSION}"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$ASSETS/etcd.tmp" go.etcd.io/etcd/server/v3)
  mv "$ASSETS/etcd.tmp" "$ASSETS/etcd"
}

build_etcd
build_kube kube-apiserver
for extra in "$@"; do build_kube "$extra"; done
echo "$ASSETS"
