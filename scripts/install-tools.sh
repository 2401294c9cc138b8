#!/usr/bin/env bash
# Installs the test tools built from the Go module proxy, pinned, and prints the directory that
# holds them: ${IMGUPD_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/imgupd-test}/bin, shared with
# scripts/e2e-deps.sh.
#
#   scripts/install-tools.sh [TOOL...]     TOOL: kube-apiserver, helm, kustomize (default: helm kustomize)
#
# Each is built once per version and flags, then reused. All are built in one throwaway module
# ($cache/tools-build) that also requires every module of the project's own build list, with the
# project's build flags (CGO_ENABLED=0 and the GOFLAGS the Makefile exports: run it through make, as
# `make e2e-deps` and `make e2e` do, or give them): the packages they share
# with each other and with imgupd (client-go, api, apimachinery, protobuf, golang.org/x/...) resolve to
# the same versions and so to the same Go build cache entries, compiled once for all of them. On a cold
# 2-core machine that is half the compiling of building each tool on its own (605 against 1,280
# CPU-seconds). A module both compile shares its packages only where the project's version is the
# higher: when a tool's version changes, compare the two build lists (go list -deps -f
# '{{.Module}}' of the tools here, go list -m all in the project) and raise the project's go.mod
# where the tool's is higher, unless the project pins it on purpose (Masterminds/semver: Image
# Updater's version). The tools are
# built one after the other (each go command compiles on every CPU; two side by side would compile the
# packages they share twice).
set -euo pipefail
GO=${GO:-go}
K8S_VERSION=${K8S_VERSION:-v1.37.2}
STAGING=${STAGING:-v0.37.2}
HELM_VERSION=${HELM_VERSION:-v3.22.0}
# v5.8.3 needs Go 1.27.
KUSTOMIZE_VERSION=${KUSTOMIZE_VERSION:-v5.8.2}
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${IMGUPD_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/imgupd-test}
bin=$cache/bin
mkdir -p "$bin"
[ $# -gt 0 ] || set -- helm kustomize

# One build at a time: a second run on the same machine (another checkout's CI, a developer's make e2e)
# waits for the first to fill the cache instead of compiling beside it.
if command -v flock >/dev/null 2>&1 && [ -z "${IMGUPD_E2E_DEPS_LOCKED:-}" ]; then
  exec 9>"$cache/.lock"
  flock 9
  export IMGUPD_E2E_DEPS_LOCKED=1
fi

helm_pkg=helm.sh/helm/v3
minor=$(echo "$K8S_VERSION" | cut -d. -f2)
# tool NAME: its main package, version and link flags, as its own release build sets them.
tool() {
  case $1 in
    kube-apiserver)
      pkg=k8s.io/kubernetes/cmd/kube-apiserver version=$K8S_VERSION
      ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor" ;;
    helm)
      # Helm's version, and the Kubernetes version that `helm template` and `helm lint` assume (that of
      # its client-go, v0.37 = 1.37).
      pkg=$helm_pkg/cmd/helm version=$HELM_VERSION
      ldflags="-s -w -X $helm_pkg/internal/version.version=$HELM_VERSION \
-X $helm_pkg/pkg/chartutil.k8sVersionMajor=1 -X $helm_pkg/pkg/chartutil.k8sVersionMinor=$minor \
-X $helm_pkg/pkg/lint/rules.k8sVersionMajor=1 -X $helm_pkg/pkg/lint/rules.k8sVersionMinor=$minor" ;;
    kustomize)
      pkg=sigs.k8s.io/kustomize/kustomize/v5 version=$KUSTOMIZE_VERSION ldflags="-s -w" ;;
    *) echo "install-tools: unknown tool $1 (kube-apiserver, helm, kustomize)" >&2; exit 64 ;;
  esac
}
stamp() { tool "$1"; echo "$version $ldflags"; }

want=()
for name in "$@"; do
  tool "$name"
  if [ ! -x "$bin/$name" ] || [ "$(cat "$bin/$name.version" 2>/dev/null)" != "$(stamp "$name")" ]; then want+=("$name"); fi
done

if [ ${#want[@]} -gt 0 ]; then
  mod=$cache/tools-build
  rm -rf "$mod" && mkdir -p "$mod"
  {
    printf 'module imgupd.local/test-tools\n\ngo 1.26.0\n\nrequire (\n'
    printf '\tk8s.io/kubernetes %s\n\thelm.sh/helm/v3 %s\n\tsigs.k8s.io/kustomize/kustomize/v5 %s\n' \
      "$K8S_VERSION" "$HELM_VERSION" "$KUSTOMIZE_VERSION"
    # The project's build list: a module both use resolves to the higher of the two versions, which
    # is the project's where the project's go.mod keeps up with these tools.
    (cd "$root" && GOFLAGS=-mod=mod "$GO" list -m -f '{{if not .Main}}{{"\t"}}{{.Path}} {{.Version}}{{end}}' all)
    printf ')\n\n'
    # kubernetes requires its staging modules at v0.0.0 and replaces them in its own go.mod, which a
    # module requiring it does not see.
    for x in api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider cluster-bootstrap \
             code-generator component-base component-helpers controller-manager cri-api cri-client cri-streaming \
             csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator \
             kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics mount-utils \
             pod-security-admission sample-apiserver streaming; do
      echo "replace k8s.io/$x => k8s.io/$x $STAGING"
    done
  } > "$mod/go.mod"
  { printf '//go:build tools\n\npackage tools\n\nimport (\n'
    for name in kube-apiserver helm kustomize; do tool "$name"; printf '\t_ "%s"\n' "$pkg"; done
    printf ')\n'; } > "$mod/tools.go"
  (cd "$mod" && GOFLAGS=-mod=mod "$GO" mod tidy >&2)
  for name in "${want[@]}"; do
    tool "$name"
    start=$SECONDS
    (cd "$mod" && CGO_ENABLED=0 GOFLAGS="-mod=mod ${GOFLAGS:-}" "$GO" build -ldflags "$ldflags" -o "$bin/$name.new" "$pkg" >&2)
    mv "$bin/$name.new" "$bin/$name"
    stamp "$name" > "$bin/$name.version"
    echo "install-tools: $name $version built in $((SECONDS - start)) s" >&2
  done
fi
echo "$bin"
