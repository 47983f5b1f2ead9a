#!/usr/bin/env bash
# Builds the image $IMG (from the Dockerfile, or without a registry from the same layout:
# KIND_IMAGES in hack/kind-common.sh), loads it into the kind cluster's nodes and installs the chart into
# $CASSBENCH_NAMESPACE (PodSecurity restricted). Rerun after a code change: the pods restart
# when the image changes, even under the same tag.
set -euo pipefail
source "$(dirname "$0")/kind-common.sh"
require_docker
require_cluster

IMG=${IMG:-cassbench:dev}
repository=${IMG%:*}
tag=${IMG##*:}
if [ "$repository" = "$IMG" ] || [[ "$tag" == */* ]]; then
	echo "IMG=$IMG: want REPOSITORY:TAG" >&2
	exit 1
fi

if [[ "$(images_mode)" == local ]]; then
	# The Dockerfile's builder and base come from registries: the same layout, assembled here.
	log "building $IMG without a registry (hack/cassbench-image.sh)"
	hack/cassbench-image.sh docker "$IMG" >/dev/null
else
	log "building $IMG"
	docker build -t "$IMG" .
fi
log "loading $IMG into kind cluster $KIND_CLUSTER"
"$KIND" load docker-image "$IMG" --name "$KIND_CLUSTER"

log "installing the chart into $CASSBENCH_NAMESPACE"
k create namespace "$CASSBENCH_NAMESPACE" --dry-run=client -o yaml | k apply -f -
k label namespace "$CASSBENCH_NAMESPACE" --overwrite \
	pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/warn=restricted
image_id=$(docker image inspect -f '{{.Id}}' "$IMG")
"$HELM" upgrade --install cassbench charts/cassbench --kube-context "$CONTEXT" \
	--namespace "$CASSBENCH_NAMESPACE" \
	--set image.repository="$repository" --set image.tag="$tag" --set image.pullPolicy=IfNotPresent \
	--set-string podAnnotations.cassbench\\.io/image-id="$image_id" \
	--wait --timeout 5m
k -n "$CASSBENCH_NAMESPACE" rollout status deployment/cassbench-manager --timeout=3m
