#!/usr/bin/env bash
# Lists the test packages of a tier, or checks that every test package is in one.
#
#   hack/test-tiers.sh unit|integration|cassandra|local   # the tier's packages, one a line
#   hack/test-tiers.sh check                              # fails if a test could run in no tier
#
# A package is in the tier its TestMain gives it as a whole (kube.Main: integration;
# tier.Main(tier.X): X). Otherwise it is a unit package, and also in the integration or
# cassandra tier when its tests start a control plane or Cassandra through
# internal/testutil/kube, play or cassandra, which skip those tests outside their tier, or ask
# for the cassandra tier themselves (tier.Require(t, tier.Cassandra))
# (internal/testutil/tier). make test runs every tier in one `go test ./...`.
set -euo pipefail
cd "$(dirname "$0")/.."
MOD=github.com/cassbench/cassbench
TIERS=(unit integration cassandra local)

# package|dir|imports of its tests, for every package with test files.
packages() {
  go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}|{{.Dir}}|{{join .TestImports " "}} {{join .XTestImports " "}}{{end}}' ./... | sed '/^$/d'
}

# tiers_of PKG DIR IMPORTS prints the tiers of one package.
tiers_of() {
  local pkg=$1 dir=$2 imports=" $3 " whole
  whole=$(cat "$dir"/*_test.go | sed -n -e 's/.*kube\.Main(.*/integration/p' -e 's/.*tier\.Main(tier\.\([A-Za-z]*\)).*/\1/p' | tr 'A-Z' 'a-z' | sort -u)
  if [[ -n "$whole" ]]; then
    echo "$whole"
    return
  fi
  echo unit
  if [[ "$imports" == *" $MOD/internal/testutil/kube "* || "$imports" == *" $MOD/internal/testutil/play "* ]]; then
    echo integration
  fi
  if [[ "$imports" == *" $MOD/internal/testutil/cassandra "* || "$pkg" == "$MOD/internal/testutil/cassandra" ]] ||
    grep -q 'tier\.Require(t, tier\.Cassandra)' "$dir"/*_test.go; then
    echo cassandra
  fi
}

list() {
  local want=$1 pkg dir imports tiers
  while IFS='|' read -r pkg dir imports; do
    tiers=$(tiers_of "$pkg" "$dir" "$imports")
    if [[ $'\n'"$tiers"$'\n' == *$'\n'"$want"$'\n'* ]]; then
      echo "$pkg"
    fi
  done < <(packages)
}

check() {
  local failed=0 pkg dir imports tiers t f
  declare -A count=()
  while IFS='|' read -r pkg dir imports; do
    tiers=$(tiers_of "$pkg" "$dir" "$imports")
    for t in $tiers; do
      count[$t]=$((${count[$t]:-0} + 1))
    done
    if [[ -z "$tiers" ]]; then
      echo "test-tiers: $pkg is in no tier" >&2
      failed=1
    fi
    for t in $tiers; do
      if [[ " ${TIERS[*]} " != *" $t "* ]]; then
        echo "test-tiers: $pkg names tier \"$t\", which no make target runs (tiers: ${TIERS[*]})" >&2
        failed=1
      fi
    done
  done < <(packages)
  # go test ./... leaves out a file behind a build constraint; only e2e (make test-e2e, which
  # needs Docker and kind) may be one.
  while read -r f; do
    if ! grep -qx '//go:build e2e' "$f"; then
      echo "test-tiers: $f has a build constraint that make test does not set: $(grep -m1 '^//go:build' "$f")" >&2
      failed=1
    fi
  done < <(git ls-files -co --exclude-standard '*_test.go' | xargs grep -l '^//go:build' || true)
  if [[ $failed == 0 ]]; then
    for t in "${TIERS[@]}"; do
      echo "$t: ${count[$t]:-0} packages"
    done
  fi
  return $failed
}

case "${1:-}" in
  unit | integration | cassandra | local) list "$1" ;;
  check) check ;;
  *) echo "usage: $0 unit|integration|cassandra|local|check" >&2; exit 2 ;;
esac
