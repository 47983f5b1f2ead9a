#!/usr/bin/env bash
# Builds the manager, cassbench and cassbench-writer binaries into OUTDIR (default bin/). `make
# build` and the Dockerfile both call this, so the image holds exactly what a local build
# produces: static (no cgo, so distroless/static runs them), reproducible paths, no symbol
# tables.
# GOOS and GOARCH pass through, for cross-building images.
set -euo pipefail
out=${1:-bin}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
export CGO_ENABLED=0
# The version every binary reports (cassbench version, the manager's start log): the chart's
# appVersion, which is also the image tag, unless VERSION says otherwise (a release build); the
# commit and its date from git when this is a clone (COMMIT and DATE pass them into a build
# without .git, such as the Dockerfile's).
version=${VERSION:-$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' charts/cassbench/Chart.yaml)}
commit=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || true)}
date=${DATE:-$(git log -1 --format=%cI 2>/dev/null || true)}
if [ -z "${COMMIT:-}" ] && [ -n "$commit" ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	commit=$commit-dirty
fi
pkg=github.com/cassbench/cassbench/internal/version
ldflags="-s -w -X $pkg.version=$version -X $pkg.commit=$commit -X $pkg.date=$date"
for cmd in manager cassbench cassbench-writer; do
	"${GO:-go}" build -trimpath -ldflags "$ldflags" -o "$out/$cmd" "./cmd/$cmd"
done
# kubectl runs any kubectl-NAME on PATH as `kubectl NAME`: with bin/ on PATH,
# `kubectl cassbench results NAME` is the same binary, which names itself after how it was
# called. A relative link, so that the directory can be moved or copied whole.
ln -sfn cassbench "$out/kubectl-cassbench"
