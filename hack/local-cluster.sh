#!/usr/bin/env bash
# Starts cassbench's local end-to-end environment (test/local) and leaves it running until
# Ctrl-C: etcd, kube-apiserver, kube-controller-manager and kube-scheduler, the real
# cass-operator, cassbench installed by its Helm chart, a one-node CassandraDatacenter
# dc1 in namespace default backed by real Cassandra, and pods run as local processes. No
# Docker. Needs root (pods get their own mount namespace). Flags pass through, e.g.
# --max-nodes 3 or --keep.
#
# Built and exec'd rather than `go run`: go run reports an interrupted child as a failure,
# and the pods are started through this same binary.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${CASSBENCH_CACHE:-$HOME/.cache/cassbench}/local/bin/local-cluster"
mkdir -p "$(dirname "$bin")"
"${GO:-go}" build -o "$bin" ./test/local/cmd/local-cluster
exec "$bin" "$@"
