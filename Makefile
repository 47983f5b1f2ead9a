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
HELM_VERSION ?= v3.20.2
KIND_VERSION ?= v0.30.0

CONTROLLER_GEN := $(TOOLS)/controller-gen-$(CONTROLLER_GEN_VERSION)
KUSTOMIZE := $(TOOLS)/kustomize-$(KUSTOMIZE_VERSION)
GOLANGCI_LINT := $(TOOLS)/golangci-lint-$(GOLANGCI_LINT_VERSION)

CASS_OPERATOR_VERSION := v1.31.0
CASS_OPERATOR_CRDS := $(CACHE)/crds/cass-operator-$(CASS_OPERATOR_VERSION).yaml

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

.PHONY: fmt
fmt:
	$(GO) fmt ./...

.PHONY: vet
vet:
	$(GO) vet ./...

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Run golangci-lint.
	$(GOLANGCI_LINT) run ./...

.PHONY: verify
verify: generate manifests ## Regenerate everything and fail if the tree changed.
	@git diff --exit-code -- api config charts || { echo "generated files are out of date: run 'make generate manifests' and commit"; exit 1; }
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

##@ Build

.PHONY: build
build: ## Build the manager and cassbench binaries into bin/.
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o bin/manager ./cmd/manager
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o bin/cassbench ./cmd/cassbench

##@ Test

.PHONY: envtest-assets
envtest-assets: ## Build kube-apiserver and etcd from the Go module proxy (cached).
	@hack/control-plane.sh >/dev/null

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Build kustomize (cached) and print its path, for tests that render config/.
	@echo $(KUSTOMIZE)

.PHONY: cass-operator-crds
cass-operator-crds: $(CASS_OPERATOR_CRDS)

$(CASS_OPERATOR_CRDS): $(KUSTOMIZE)
	@mkdir -p $(dir $@)
	$(KUSTOMIZE) build "$$($(GO) list -m -f '{{.Dir}}' github.com/k8ssandra/cass-operator)/config/crd" > $@.tmp
	mv $@.tmp $@

.PHONY: test
test: verify vet envtest-assets cass-operator-crds ## Run every test: unit, envtest integration, real Cassandra.
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" CASS_OPERATOR_CRDS="$(CASS_OPERATOR_CRDS)" \
		$(GO) test -count=1 -timeout 40m ./...

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

.PHONY: help
help:
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*?##/ { printf "  %-18s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
