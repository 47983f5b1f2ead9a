#!/usr/bin/env bash
# Writes NOTICE: cassbench's own notice, then the NOTICE file of every module linked into the
# binaries the image and the release ship, as Apache-2.0 section 4(d) asks of a redistribution.
# `make verify` runs it, so a dependency that adds or changes a NOTICE changes this file in the
# same commit.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
	cat <<'TXT'
cassbench
Copyright 2026 The cassbench Authors

This product is licensed under the Apache License, Version 2.0 (LICENSE). Its binaries
(manager, cassbench, cassbench-writer) include the Go modules listed below, whose NOTICE files
follow as they ship them.
TXT
	# Modules other than cassbench's own (whose NOTICE is this file).
	"${GO:-go}" list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}}@{{.Version}} {{.Dir}}{{end}}{{end}}' \
		./cmd/manager ./cmd/cassbench ./cmd/cassbench-writer | sort -u |
		while read -r mod dir; do
			[ -n "$dir" ] || continue
			for f in NOTICE NOTICE.txt NOTICE.md; do
				if [ -f "$dir/$f" ]; then
					printf '\n---------------------------------------------------------------------\n%s (%s)\n\n' "$mod" "$f"
					# One trailing newline, whatever the module's file ends with.
					sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$dir/$f"
				fi
			done
		done
} > "$tmp"
mv "$tmp" NOTICE
chmod 644 NOTICE
