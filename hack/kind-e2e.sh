#!/usr/bin/env bash
# Runs the e2e test (test/e2e, build tag e2e) against the kind cluster: a BenchmarkRun from
# config/samples/kind-demo.yaml must succeed with results and give the datacenter back.
# Needs make kind-up and make kind-deploy first.
set -euo pipefail
source "$(dirname "$0")/kind-common.sh"
require_docker
require_cluster

export E2E_KUBE_CONTEXT="$CONTEXT" E2E_NAMESPACE="$DEMO_NAMESPACE" E2E_MANAGER_NAMESPACE="$CASSBENCH_NAMESPACE"
"$GO" test -tags e2e -count=1 -timeout 40m -v ./test/e2e/
