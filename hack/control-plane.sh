#!/usr/bin/env bash
# Builds the real Kubernetes control-plane binaries (kube-apiserver, etcd and, on request,
# kube-controller-manager and kube-scheduler) from the Go module proxy and caches them outside the repository,
# keyed by version, so that a fresh clone and CI reuse them. Prints the asset directory.
#
#   hack/control-plane.sh                       # kube-apiserver + etcd
#   hack/control-plane.sh kube-controller-manager kube-scheduler
#   hack/control-plane.sh --only kubelet kubeadm kubectl kube-proxy   # only these (kind's node)
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.35.8}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
CACHE="${CASSBENCH_CACHE:-$HOME/.cache/cassbench}"
ASSETS="$CACHE/control-plane/k8s-${KUBE_VERSION}-etcd-${ETCD_VERSION}"
mkdir -p "$ASSETS"

log() { echo "control-plane: $*" >&2; }

# A wrapper module: k8s.io/kubernetes replaces its staging modules with local paths, which a
# dependent module cannot follow, so the wrapper pins each of them to the matching release.
# The node's binaries (kubelet, kubeadm, kubectl, kube-proxy) import more modules than the
# control plane: they get a wrapper of their own, so that the control plane's stays as cached.
kube_wrapper() {
  local variant=$1 imports
  local dir="$CACHE/control-plane/src-kube-${KUBE_VERSION}${variant:+-$variant}"
  if [[ -z "$variant" ]]; then
    imports="k8s.io/kubernetes/cmd/kube-apiserver/app k8s.io/kubernetes/cmd/kube-controller-manager/app k8s.io/kubernetes/cmd/kube-scheduler/app"
  else
    imports="k8s.io/kubernetes/cmd/kubelet/app k8s.io/kubernetes/cmd/kubeadm/app k8s.io/kubernetes/cmd/kube-proxy/app k8s.io/kubectl/pkg/cmd"
  fi
  if [[ ! -f "$dir/go.sum" ]]; then
    # Made aside and moved in whole: a second build started meanwhile never sees it half made.
    local final=$dir
    dir=$(mktemp -d "$final.tmp-XXXXXX")
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
    { printf 'package tools\n\nimport (\n'; printf '\t_ "%s"\n' $imports; printf ')\n'; } >"$dir/tools.go"
    (cd "$dir" && GOFLAGS=-mod=mod go mod tidy >&2)
    if [[ -f "$final/go.sum" ]]; then rm -rf "$dir"; else rm -rf "$final" && mv "$dir" "$final"; fi
    dir=$final
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
  local variant=""
  case "$bin" in kubelet | kubeadm | kubectl | kube-proxy) variant=node ;; esac
  local dir; dir=$(kube_wrapper "$variant")
  log "building $bin ${KUBE_VERSION} (several minutes the first time)"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "$(kube_ldflags)" -o "$ASSETS/$bin.tmp.$$" "k8s.io/kubernetes/cmd/$bin")
  mv "$ASSETS/$bin.tmp.$$" "$ASSETS/$bin"
}

build_etcd() {
  [[ -x "$ASSETS/etcd" ]] && return
  local dir; dir=$(etcd_wrapper)
  log "building etcd ${ETCD_VERSION}"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$ASSETS/etcd.tmp.$$" go.etcd.io/etcd/server/v3)
  mv "$ASSETS/etcd.tmp.$$" "$ASSETS/etcd"
}

if [[ "${1:-}" == --only ]]; then
  shift
else
  build_etcd
  build_kube kube-apiserver
fi
for extra in "$@"; do build_kube "$extra"; done
echo "$ASSETS"
