#!/usr/bin/env bash
# Runs the local Cassandra cluster (internal/localcassandra, cmd/local-cassandra) with the
# command line this script always had; `hack/cassandra.sh` with no command prints it.
#
# The program is built once per version of its sources into the cache (keyed by their hash),
# which starts in about 20 ms where `go run` spends 0.7 s checking the build. The program
# imports no other package of this module, so its own sources, go.mod and go.sum are the key.
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
  # Builds of older sources pile up otherwise; one still in use is rebuilt in a second.
  find "$cache/bin" -maxdepth 1 -name 'local-cassandra-*' ! -name "${bin##*/}" -mtime +7 -delete 2>/dev/null || true
fi
exec "$bin" "$@"
