#!/usr/bin/env bash
# Runs the e2e tests (test/e2e, build tag e2e) against the kind cluster: the BenchmarkRun of
# config/samples/kind-demo.yaml must succeed with results and give the datacenter back, also
# from a namespace that enforces the restricted Pod Security Standard, and so must runs whose
# writers are held to a CPU quota or whose manager pod is deleted mid-run, and a run that
# scales dc1 to two nodes; a writer OOM-killed by its memory limit fails its run naming it;
# without a registry, the manager and the writers run cassbench's image pulled by digest from
# the cluster's own.
# Needs make kind-up and make kind-deploy first.
set -euo pipefail
source "$(dirname "$0")/kind-common.sh"
require_docker
require_cluster

# E2E_IMAGE: what kind-deploy built (and, without a registry, pushed to the cluster's own).
export E2E_KUBE_CONTEXT="$CONTEXT" E2E_NAMESPACE="$DEMO_NAMESPACE" E2E_MANAGER_NAMESPACE="$CASSBENCH_NAMESPACE" \
	E2E_IMAGE="${IMG:-cassbench:dev}"
# E2E_RUN picks scenarios by name (go test -run), e.g. E2E_RUN=OOM make test-e2e.
"$GO" test -tags e2e -count=1 -timeout 60m -v ${E2E_RUN:+-run "$E2E_RUN"} ./test/e2e/
