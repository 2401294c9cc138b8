#!/usr/bin/env bash
# Builds the top-level Dockerfile with buildah (as root: vfs storage, chroot isolation; no
# Docker daemon, no Docker Hub) and checks the image as deploy/image's tests check theirs
# (deploy/image TestDockerfileImage: the config, every file, no shell, the binary runs and
# prints its version).
#
# Offline: the builder image is assembled from the local Go installation (GO_IMAGE), the base
# is the Dockerfile's default, scratch, and the build's RUN steps see this machine's Go module
# and build caches (buildah bud -v), so nothing is downloaded and a warm build cache makes
# the compile quick. The builder image is kept in
# ${IMGUPD_TEST_CACHE:-~/.cache/imgupd-test}/containers, made once per Go release.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
cache=${IMGUPD_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/imgupd-test}

if ! command -v buildah >/dev/null 2>&1; then
  echo "dockerfile-test: buildah is not installed (apt-get install buildah; .ci/run does)" >&2
  exit 2
fi
if [ "$(id -u)" != 0 ]; then
  echo "dockerfile-test: buildah with vfs storage and chroot isolation needs root" >&2
  exit 2
fi
b() { buildah --root "$cache/containers/storage" --runroot "$cache/containers/run" --storage-driver vfs "$@"; }

goversion=$("$GO" env GOVERSION)
builder=localhost/imgupd-ci/golang:$goversion
if ! b inspect --type image "$builder" >/dev/null 2>&1; then
  echo "dockerfile-test: making the builder image $builder from $("$GO" env GOROOT)"
  empty=$(mktemp -d)
  ctr=$(b from scratch)
  b copy "$ctr" "$("$GO" env GOROOT)" /usr/local/go >/dev/null
  b copy "$ctr" /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt >/dev/null
  b copy --chmod 1777 "$ctr" "$empty" /tmp >/dev/null
  rmdir "$empty"
  # As the golang image: Go on PATH, GOPATH /go, HOME /root; and never a toolchain download.
  b config --env PATH=/usr/local/go/bin --env GOPATH=/go --env HOME=/root --env GOTOOLCHAIN=local "$ctr"
  b commit -q --rm "$ctr" "$builder" >/dev/null
fi

version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
revision=$(git rev-parse HEAD)
epoch=$(git log -1 --format=%ct)
image=localhost/imgupd:dockerfile-test
out=$(mktemp -d)
trap 'rm -rf "$out"; b rmi -f "$image" >/dev/null 2>&1 || true' EXIT

echo "dockerfile-test: buildah bud (version $version)"
start=$SECONDS
b bud --isolation chroot --pull-never --quiet --platform "linux/$("$GO" env GOARCH)" \
  --build-arg GO_IMAGE="$builder" \
  --build-arg IMGUPD_VERSION="$version" --build-arg IMGUPD_REVISION="$revision" \
  --build-arg SOURCE_DATE_EPOCH="$epoch" --timestamp "$epoch" --identity-label=false \
  -v "$("$GO" env GOMODCACHE):/go/pkg/mod" -v "$("$GO" env GOCACHE):/root/.cache/go-build" \
  -t "$image" . >/dev/null
echo "dockerfile-test: built in $((SECONDS - start)) s"
b push --quiet "$image" "oci:$out/oci:latest" >/dev/null

IMGUPD_DOCKERFILE_OCI=$out/oci IMGUPD_DOCKERFILE_VERSION=$version IMGUPD_DOCKERFILE_REVISION=$revision \
  "$GO" test -count=1 -run '^TestDockerfileImage$' -v ./deploy/image | grep -E '^(=== RUN|--- |\s+\S+_test\.go|ok|FAIL|PASS)'
