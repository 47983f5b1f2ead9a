#!/usr/bin/env bash
# Deletes the kind cluster and everything in it.
set -euo pipefail
source "$(dirname "$0")/kind-common.sh"
require_docker
"$KIND" delete cluster --name "$KIND_CLUSTER"
