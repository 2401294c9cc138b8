#!/usr/bin/env bash
# `make try`: start a real local OCI registry with sample repositories and run
# `imgupd simulate` against it. Needs only Go.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
mkdir -p bin
"$GO" build -o bin/imgupd ./cmd/imgupd
"$GO" build -o bin/lab-registry ./lab/cmd/lab-registry
log=$(mktemp)
./bin/lab-registry >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 100); do grep -q '^REGISTRY=' "$log" && break; sleep 0.1; done
reg=$(sed -n 's/^REGISTRY=//p' "$log")
[ -n "$reg" ] || { cat "$log"; exit 1; }

run() { echo; echo "\$ imgupd $*"; ./bin/imgupd "$@" || echo "(exit status $?)"; }
echo "Local registry at $reg (repositories acme/pub, acme/web)"
run simulate "$reg/acme/pub:1.0" --plain-http --current-tag 1.0.0
run simulate "$reg/acme/web" --plain-http --update-strategy newest-build --current-tag 1.5.0
run simulate "$reg/acme/web" --plain-http --update-strategy newest-build --platforms linux/arm64 --current-tag 1.5.0
run simulate "$reg/acme/pub:latest" --plain-http --current-tag latest
