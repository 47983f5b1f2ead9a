#!/usr/bin/env bash
# Builds the image $IMG (from the Dockerfile, or without a registry from the same layout:
# KIND_IMAGES in hack/kind-common.sh) and installs the chart into $CASSBENCH_NAMESPACE
# (PodSecurity restricted). From the Dockerfile the image is loaded into the kind cluster's
# nodes; without a registry it is pushed to the cluster's own (hack/kind-registry.sh, made by
# kind-up) and installed by digest, so the manager, setup and writer pods pull it from there.
# Rerun after a code change: the pods restart when the image changes, even under the same tag.
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

image_values=()
if [[ "$(images_mode)" == local ]]; then
	# The Dockerfile's builder and base come from registries: the same layout, assembled here.
	log "building $IMG without a registry (hack/cassbench-image.sh)"
	hack/cassbench-image.sh docker "$IMG" >/dev/null
	# Pushed to the cluster's registry (kind-up made it) and installed by digest: the kubelet
	# pulls it as from any registry, and a new build is a new digest, so the pods restart.
	hack/kind-registry.sh up
	remote=$(hack/kind-registry.sh host)/$repository
	log "pushing $IMG to $remote:$tag"
	docker tag "$IMG" "$remote:$tag"
	pushed=$(docker push "$remote:$tag")
	docker rmi "$remote:$tag" >/dev/null
	digest=$(sed -n 's/.* digest: \(sha256:[0-9a-f]\{64\}\) .*/\1/p' <<<"$pushed")
	[[ -n "$digest" ]] || { echo "docker push printed no digest: $pushed" >&2; exit 1; }
	log "pushed $remote@$digest"
	image_values=(--set image.repository="$remote" --set image.tag="$tag" --set image.digest="$digest")
else
	log "building $IMG"
	docker build -t "$IMG" .
	log "loading $IMG into kind cluster $KIND_CLUSTER"
	"$KIND" load docker-image "$IMG" --name "$KIND_CLUSTER"
	# The same tag after a rebuild: the annotation changes the pod template, so the pods restart.
	image_values=(--set image.repository="$repository" --set image.tag="$tag"
		--set-string podAnnotations.cassbench\\.io/image-id="$(docker image inspect -f '{{.Id}}' "$IMG")")
fi

log "installing the chart into $CASSBENCH_NAMESPACE"
k create namespace "$CASSBENCH_NAMESPACE" --dry-run=client -o yaml | k apply -f -
k label namespace "$CASSBENCH_NAMESPACE" --overwrite \
	pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/warn=restricted
"$HELM" upgrade --install cassbench charts/cassbench --kube-context "$CONTEXT" \
	--namespace "$CASSBENCH_NAMESPACE" "${image_values[@]}" --set image.pullPolicy=IfNotPresent \
	--wait --timeout 5m
k -n "$CASSBENCH_NAMESPACE" rollout status deployment/cassbench-manager --timeout=3m
