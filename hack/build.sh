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
for cmd in manager cassbench cassbench-writer; do
	"${GO:-go}" build -trimpath -ldflags "-s -w" -o "$out/$cmd" "./cmd/$cmd"
done
# kubectl runs any kubectl-NAME on PATH as `kubectl NAME`: with bin/ on PATH,
# `kubectl cassbench results NAME` is the same binary, which names itself after how it was
# called. A relative link, so that the directory can be moved or copied whole.
ln -sfn cassbench "$out/kubectl-cassbench"
