#!/usr/bin/env bash
# Runs the local Cassandra cluster (internal/localcassandra, cmd/local-cassandra) with the
# command line this script always had; `hack/cassandra.sh` with no command prints it.
#
# The program is built once per version of its sources into the cache (keyed by their hash),
# which starts in milliseconds where `go run` would spend about a second checking the build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${CASSBENCH_CACHE:-$HOME/.cache/cassbench}"
hash=$(cd "$root" && find cmd/local-cassandra internal/localcassandra -type f ! -name '*_test.go' -print0 |
  sort -z | xargs -0 cat go.mod go.sum | sha256sum | cut -c1-16)
bin="$cache/bin/local-cassandra-$hash"
if [[ ! -x "$bin" ]]; then
  mkdir -p "$cache/bin"
  (cd "$root" && "${GO:-go}" build -o "$bin.$$" ./cmd/local-cassandra)
  mv -f "$bin.$$" "$bin"
fi
exec "$bin" "$@"
