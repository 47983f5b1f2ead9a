#!/usr/bin/env bash
# Prints the path of a Python virtual environment holding the test oracles, creating it on
# first use under ~/.cache/cassbench (shared by clones and CI runs on the machine):
#   apache-otava   Apache Otava's E-divisive change-point detection, which the Go
#                  change-point package (internal/changepoint) must agree with;
#   hdrhistogram   an HdrHistogram implementation independent of ours, which reads back the
#                  interval logs `cassbench results --hdr-log` writes.
# Both are pinned; a changed pin makes a new environment. Used by tests only.
set -euo pipefail
OTAVA=0.8.0
HDRHISTOGRAM=0.10.8
cache=${CASSBENCH_CACHE:-$HOME/.cache/cassbench}
venv="$cache/oracles-otava$OTAVA-hdr$HDRHISTOGRAM"
if [[ ! -x "$venv/bin/python" ]] || [[ ! -f "$venv/.complete" ]]; then
  mkdir -p "$cache"
  exec 9>"$cache/oracles.lock"
  flock 9
  if [[ ! -f "$venv/.complete" ]]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check "apache-otava==$OTAVA" "hdrhistogram==$HDRHISTOGRAM" >&2
    touch "$venv/.complete"
  fi
fi
echo "$venv"
