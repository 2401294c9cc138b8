#!/usr/bin/env bash
# Installs what the real-API-server tier needs and prints the directory that
# holds them: etcd (Debian's etcd-server, unpacked), kube-apiserver (built
# from the Go module proxy, k8s.io/kubernetes v1.37.2), and the install tools
# the chart tests use: helm and kustomize (all three by scripts/install-tools.sh,
# in one module with the project's versions and flags). All are cached in
# ${IMGUPD_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/imgupd-test}; later runs
# reuse them.
set -euo pipefail
cache=${IMGUPD_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/imgupd-test}
bin=$cache/bin
mkdir -p "$bin"
GO=${GO:-go}

# One build at a time: a second run on the same machine (another checkout's CI, a developer's make e2e)
# waits for the first to fill the cache instead of compiling kube-apiserver beside it (install-tools.sh
# takes the same lock when run alone).
if command -v flock >/dev/null 2>&1 && [ -z "${IMGUPD_E2E_DEPS_LOCKED:-}" ]; then
  exec 9>"$cache/.lock"
  flock 9
  export IMGUPD_E2E_DEPS_LOCKED=1
fi

if [ ! -x "$bin/etcd" ]; then
  if command -v etcd >/dev/null 2>&1; then
    ln -sf "$(command -v etcd)" "$bin/etcd"
  else
    tmp=$(mktemp -d)
    (cd "$tmp" && { apt-get download etcd-server >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get download etcd-server >/dev/null; }; } \
      && dpkg-deb -x etcd-server_*.deb x && cp x/usr/bin/etcd "$bin/etcd")
    rm -rf "$tmp"
  fi
fi

# kube-apiserver, and helm and kustomize for the chart tests, built from the Go module proxy in one
# module with the project's versions and flags (scripts/install-tools.sh).
GO=$GO IMGUPD_TEST_CACHE=$cache "$(dirname "$0")/install-tools.sh" kube-apiserver helm kustomize >/dev/null

echo "$bin"
