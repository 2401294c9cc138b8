#!/bin/sh
# Copies client-go's leader election from the client-go that go.mod pins (see doc.go):
# tools/leaderelection without leasecandidate.go, and tools/leaderelection/resourcelock
# without its constructors by lock type (the functions that take client-go's generated
# clients), the Lease lock over internal/kubeclient's Leases client, the election importing
# this copy of the lock package. Run by `go generate`.
set -eu
src=$(go list -m -f '{{.Dir}}' k8s.io/client-go)/tools/leaderelection
mod=$(go list -m)
for f in leaderelection.go healthzadaptor.go metrics.go; do
  sed "s#\"k8s.io/client-go/tools/leaderelection/resourcelock\"#\"$mod/internal/leaderelection/resourcelock\"#" "$src/$f" > "$f"
done
# The Lease lock takes internal/kubeclient's Leases client, not client-go's generated one.
sed "s#^	coordinationv1client \"k8s.io/client-go/kubernetes/typed/coordination/v1\"\$#	coordinationv1client \"$mod/internal/kubeclient\"#" \
  "$src/resourcelock/leaselock.go" > resourcelock/leaselock.go
cp "$src/resourcelock/multilock.go" resourcelock/ && chmod 644 resourcelock/multilock.go
# The lock interface without the constructors by lock type (new, New, NewWithLabels,
# NewFromKubeconfig: client-go's generated clients), and their imports.
sed -e '/^\/\/ new will create a lock /,$d' \
    -e '/^	clientset "k8s.io\/client-go\/kubernetes"$/d' \
    -e '/^	coordinationv1 "k8s.io\/client-go\/kubernetes\/typed\/coordination\/v1"$/d' \
    -e '/^	corev1 "k8s.io\/client-go\/kubernetes\/typed\/core\/v1"$/d' \
    -e '/^	restclient "k8s.io\/client-go\/rest"$/d' \
    -e '/^	"fmt"$/d' \
    -e '/^	"time"$/d' \
    "$src/resourcelock/interface.go" > resourcelock/interface.go
# The copies' imports (paths changed) sorted again; the lock's file without its trailing blank line.
gofmt -w leaderelection.go resourcelock/interface.go resourcelock/leaselock.go
