#!/usr/bin/env bash
# Prints the path of a headless Chromium for the HTML report's browser test, installing
# Debian's chromium-headless-shell when none is there and this user may (make test runs it
# before the tests). CASSBENCH_CHROMIUM names a browser to use instead.
set -euo pipefail
if [[ -n "${CASSBENCH_CHROMIUM:-}" ]]; then
  echo "$CASSBENCH_CHROMIUM"
  exit 0
fi
find_browser() {
  local b
  for b in chromium-headless-shell chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then
      command -v "$b"
      return 0
    fi
  done
  return 1
}
if find_browser; then
  exit 0
fi
if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "chromium: installing chromium-headless-shell from Debian's packages" >&2
  { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium-headless-shell; } >&2
  find_browser && exit 0
fi
echo "chromium: no headless Chromium found; install chromium-headless-shell (Debian) or chromium, or set CASSBENCH_CHROMIUM" >&2
exit 1
