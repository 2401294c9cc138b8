#!/usr/bin/env bash
# Installs what the real-API-server tier needs and prints the directory that
# holds them: etcd (Debian's etcd-server, unpacked), kube-apiserver (built
# from the Go module proxy, k8s.io/kubernetes v1.37.2), and the install tools
# the chart tests use: helm and kustomize (scripts/install-tools.sh). All are
# cached in
# ${IMGUPD_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/imgupd-test}; later runs
# reuse them. The first build takes about 6 minutes on 2 cores for
# kube-apiserver and 3 more for helm and kustomize.
set -euo pipefail
K8S_VERSION=${K8S_VERSION:-v1.37.2}
STAGING=${STAGING:-v0.37.2}
cache=${IMGUPD_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/imgupd-test}
bin=$cache/bin
mkdir -p "$bin"
GO=${GO:-go}

# One build at a time: a second run on the same machine (another checkout's CI, a developer's make e2e)
# waits for the first to fill the cache instead of compiling kube-apiserver beside it.
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

if [ ! -x "$bin/kube-apiserver" ] || [ "$(cat "$bin/kube-apiserver.version" 2>/dev/null)" != "$K8S_VERSION" ]; then
  mod=$cache/kube-apiserver-build
  mkdir -p "$mod"
  cat > "$mod/go.mod" <<EOM
module imgupd.local/kube-apiserver-build

go 1.26.0

require k8s.io/kubernetes $K8S_VERSION
EOM
  for x in api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider cluster-bootstrap \
           code-generator component-base component-helpers controller-manager cri-api cri-client cri-streaming \
           csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator \
           kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics mount-utils \
           pod-security-admission streaming; do
    echo "replace k8s.io/$x => k8s.io/$x $STAGING" >> "$mod/go.mod"
  done
  cat > "$mod/tools.go" <<'EOM'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
EOM
  (cd "$mod" && GOFLAGS=-mod=mod "$GO" mod tidy >/dev/null 2>&1 || true)
  minor=$(echo "$K8S_VERSION" | cut -d. -f2)
  (cd "$mod" && GOFLAGS=-mod=mod "$GO" build -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor" \
     -o "$bin/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver)
  echo "$K8S_VERSION" > "$bin/kube-apiserver.version"
fi
# helm and kustomize, for the chart tests (scripts/install-tools.sh).
GO=$GO IMGUPD_TEST_CACHE=$cache "$(dirname "$0")/install-tools.sh" >/dev/null

echo "$bin"
