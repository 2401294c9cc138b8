# imgupd's container image: `docker build -t imgupd .` (or buildah, podman, docker buildx
# --platform linux/amd64,linux/arm64). The same files as `make image` (deploy/image) builds
# without Docker: the static binary (CGO_ENABLED=0, -trimpath, version stamped), a CA bundle,
# the user nonroot (65532) and /tmp, on an empty base: no shell, no package manager. Both come
# from one definition: the build stage runs deploy/image --rootfs, and a test
# (deploy/image/rootfs_test.go) holds this file's last stage to deploy/image's configuration.
#
# The builder and the base are build arguments, for mirrors and air-gapped builds:
#   --build-arg GO_IMAGE=mirror.example.com/library/golang:1.26
#   --build-arg BASE_IMAGE=gcr.io/distroless/static-debian12:nonroot   (adds distroless' files)
# and the version: --build-arg IMGUPD_VERSION=$(git describe --tags --always --dirty)
#   --build-arg IMGUPD_REVISION=$(git rev-parse HEAD) --build-arg SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)
ARG GO_IMAGE=golang:1.26
ARG BASE_IMAGE=scratch

FROM --platform=$BUILDPLATFORM ${GO_IMAGE} AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-mod=readonly GOCACHE=/root/.cache/go-build GOMODCACHE=/go/pkg/mod
COPY go.mod go.sum ./
# Exec form throughout: the builder needs Go, not a shell.
RUN --mount=type=cache,target=/go/pkg/mod ["go", "mod", "download"]
COPY . .
ARG IMGUPD_VERSION=dev
ARG SOURCE_DATE_EPOCH=0
# Set by BuildKit and buildah: the platform to build for (a cross build from $BUILDPLATFORM).
ARG TARGETPLATFORM
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build ["go", "run", "./deploy/image", "--rootfs", "/rootfs"]

FROM ${BASE_IMAGE}
COPY --from=build /rootfs/ /
ARG IMGUPD_VERSION=dev
ARG IMGUPD_REVISION=
USER 65532:65532
WORKDIR /home/nonroot
ENV PATH=/usr/local/bin SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
LABEL org.opencontainers.image.title=imgupd \
      org.opencontainers.image.version=$IMGUPD_VERSION \
      org.opencontainers.image.revision=$IMGUPD_REVISION \
      org.opencontainers.image.source=https://github.com/imgupd/imgupd \
      org.opencontainers.image.description="imgupd explains why Argo CD Image Updater did not update an application: Slack bot (imgupd serve) and CLI"
ENTRYPOINT ["/usr/local/bin/imgupd"]
CMD ["serve"]
