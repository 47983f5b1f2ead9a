#!/usr/bin/env bash
# `cassbench local-cassandra` under the name the tests, the benchmark scripts and .ci/run call:
# it runs the local Cassandra cluster (internal/localcassandra) with the same command line.
#
# cmd/cassbench is a tool of go.mod, so `go tool -n cassbench` builds it once per version of
# its sources into Go's build cache and prints the path of the program there; exec'ing it
# keeps the caller's working directory (use -- CMD runs CMD there), its signals and its exit
# status (go run would report every failure as 1, and check and use pass theirs on).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$("${GO:-go}" -C "$root" tool -n cassbench)"
exec "$bin" local-cassandra "$@"
