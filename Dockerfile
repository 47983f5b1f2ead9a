# syntax=docker/dockerfile:1
# One image, three binaries: /manager (the operator, the entrypoint), /cassbench (the CLI; setup
# pods run it) and /cassbench-writer (writer pods run it: the writer alone, without offline
# admission, for a small memory). The manager launches its pods from this same image by default.
# Build: docker build -t cassbench:dev .   (make docker-build)

# The builder runs on the build machine and cross-compiles, so multi-arch builds need no
# emulation: docker buildx build --platform linux/amd64,linux/arm64 .
FROM --platform=$BUILDPLATFORM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH
# The commit and its date, which the build context (no .git) cannot tell hack/build.sh:
# docker build --build-arg COMMIT=$(git rev-parse HEAD) --build-arg DATE=$(git log -1 --format=%cI) .
ARG COMMIT
ARG DATE
WORKDIR /src
# Modules first: this layer is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY api/ api/
COPY cmd/ cmd/
COPY controllers/ controllers/
COPY internal/ internal/
# The CRDs, which the binaries embed to admit a spec as the API server would.
COPY config/ config/
COPY hack/build.sh hack/build.sh
# Its appVersion is the version the binaries report and the image's tag.
COPY charts/cassbench/Chart.yaml charts/cassbench/Chart.yaml
# hack/build.sh holds the build flags `make build` uses too (static, -trimpath, -s -w).
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} COMMIT=${COMMIT} DATE=${DATE} hack/build.sh /out

# distroless/static: no shell, no libc, CA certificates and tzdata only. The nonroot tag runs
# as uid 65532, the runAsUser of the manager Deployment and of the setup and writer pods.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=builder /out/manager /manager
COPY --from=builder /out/cassbench /cassbench
COPY --from=builder /out/cassbench-writer /cassbench-writer
# hack/build.sh's kubectl-cassbench link stays out: the image has no kubectl, and its pods
# call /cassbench by that name.
USER 65532:65532
ENTRYPOINT ["/manager"]
