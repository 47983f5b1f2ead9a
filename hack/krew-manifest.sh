#!/usr/bin/env bash
# Prints the krew manifest (krew.googlecontainertools.github.com/v1alpha2 Plugin) of the kubectl
# plugin archives in DIR, for a krew index: one platform per kubectl-cassbench_VERSION_OS_ARCH
# archive, with its download URI under URL and its sha256.
#
#   hack/krew-manifest.sh VERSION URL DIR
set -euo pipefail
version=$1 url=$2 dir=$3
cat <<YAML
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: cassbench
spec:
  version: v$version
  homepage: https://github.com/cassbench/cassbench
  shortDescription: Read, compare and report Cassandra benchmark runs
  description: |
    The cassbench CLI as a kubectl plugin. It reads what a BenchmarkRun or a
    BenchmarkSweep measured against a cass-operator CassandraDatacenter
    (kubectl cassbench results NAME -o json|csv), compares two runs, writes an
    HTML report of several, checks manifests offline, and runs a spec's
    workload against any Cassandra contact point without Kubernetes.
  platforms:
YAML
found=
for archive in "$dir"/kubectl-cassbench_"${version}"_*.tar.gz; do
	[[ -e "$archive" ]] || continue
	found=1
	name=$(basename "$archive")
	platform=${name#kubectl-cassbench_"${version}"_}
	platform=${platform%.tar.gz}
	sum=$(sha256sum "$archive" | cut -d' ' -f1)
	cat <<YAML
  - selector:
      matchLabels:
        os: ${platform%_*}
        arch: ${platform#*_}
    uri: $url/$name
    sha256: $sum
    bin: kubectl-cassbench
    files:
    - from: kubectl-cassbench
      to: .
    - from: LICENSE
      to: .
YAML
done
[[ -n "$found" ]] || { echo "krew-manifest: no kubectl-cassbench_${version}_*.tar.gz in $dir" >&2; exit 1; }
