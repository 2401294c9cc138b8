#!/bin/sh
# Copies client-go's leader election from the client-go that go.mod pins (see doc.go):
# tools/leaderelection without leasecandidate.go, and tools/leaderelection/resourcelock
# without NewFromKubeconfig (the one function that builds client-go's whole clientset),
# the election importing this copy of the lock package. Run by `go generate`.
set -eu
src=$(go list -m -f '{{.Dir}}' k8s.io/client-go)/tools/leaderelection
mod=$(go list -m)
for f in leaderelection.go healthzadaptor.go metrics.go; do
  sed "s#\"k8s.io/client-go/tools/leaderelection/resourcelock\"#\"$mod/internal/leaderelection/resourcelock\"#" "$src/$f" > "$f"
done
for f in leaselock.go multilock.go; do
  cp "$src/resourcelock/$f" resourcelock/ && chmod 644 "resourcelock/$f"
done
sed -e '/^\/\/ NewFromKubeconfig /,$d' \
    -e '/^	clientset "k8s.io\/client-go\/kubernetes"$/d' \
    -e '/^	restclient "k8s.io\/client-go\/rest"$/d' \
    -e '/^	"time"$/d' \
    "$src/resourcelock/interface.go" > resourcelock/interface.go
# The election's imports (one path changed) sorted again; the lock's file without its trailing blank line.
gofmt -w leaderelection.go resourcelock/interface.go
