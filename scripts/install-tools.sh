#!/usr/bin/env bash
# Installs helm and kustomize (go install from the Go module proxy, pinned) and
# prints the directory that holds them: ${IMGUPD_TEST_CACHE:-~/.cache/imgupd-test}/bin,
# shared with scripts/e2e-deps.sh. Each is built once per version (about 2
# minutes for helm and 1 for kustomize on 2 cores), then reused.
set -euo pipefail
GO=${GO:-go}
HELM_VERSION=${HELM_VERSION:-v3.22.0}
# v5.8.3 needs Go 1.27.
KUSTOMIZE_VERSION=${KUSTOMIZE_VERSION:-v5.8.2}
cache=${IMGUPD_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/imgupd-test}
bin=$cache/bin
mkdir -p "$bin"

# go_tool NAME MODULE VERSION [LDFLAGS]: go install MODULE@VERSION into $bin, once per version and flags.
go_tool() {
  local name=$1 module=$2 version=$3 ldflags=${4:-}
  local stamp="$version $ldflags"
  if [ ! -x "$bin/$name" ] || [ "$(cat "$bin/$name.version" 2>/dev/null)" != "$stamp" ]; then
    # Outside any module, so the project's go.mod does not apply.
    (cd "$cache" && GOFLAGS= GOBIN="$bin" "$GO" install -ldflags "$ldflags" "$module@$version" >&2)
    echo "$stamp" > "$bin/$name.version"
  fi
}
# As Helm's own release build: its version, and the Kubernetes version that
# `helm template` and `helm lint` assume (that of its client-go, v0.37 = 1.37).
helm_pkg=helm.sh/helm/v3
go_tool helm $helm_pkg/cmd/helm "$HELM_VERSION" "-s -w -X $helm_pkg/internal/version.version=$HELM_VERSION \
-X $helm_pkg/pkg/chartutil.k8sVersionMajor=1 -X $helm_pkg/pkg/chartutil.k8sVersionMinor=37 \
-X $helm_pkg/pkg/lint/rules.k8sVersionMajor=1 -X $helm_pkg/pkg/lint/rules.k8sVersionMinor=37"
go_tool kustomize sigs.k8s.io/kustomize/kustomize/v5 "$KUSTOMIZE_VERSION" "-s -w"
echo "$bin"
