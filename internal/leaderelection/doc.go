// Package leaderelection is client-go's leader election
// (k8s.io/client-go/tools/leaderelection) without its LeaseCandidate file
// (coordinated leader election, alpha, which imgupd does not use).
//
// That one file imports client-go's whole clientset, its informers and its
// listers: with it, every package that reaches the bot's leader election
// (the bot, its tests, the race tier's build) compiles the typed client,
// the apply configurations, the informer and the lister of every
// Kubernetes API group, about a fifth of imgupd's dependencies' source,
// for an election that reads and writes one Lease. Its Lease lock
// (resourcelock) is client-go's too, without the constructors by lock type
// (New, NewWithLabels, NewFromKubeconfig), which take client-go's generated
// clients, and over internal/kubeclient's Leases client: a generated client
// of any group imports client-go's scheme of every group, registered at the
// start of every imgupd process.
//
// leaderelection.go, healthzadaptor.go and metrics.go are client-go's
// files as they are: `go generate` copies them again from the client-go
// that go.mod pins, so an upgrade takes upstream's election as it is.
// internal/depcheck keeps client-go's own package (and with it the whole
// clientset) out of imgupd's build.
package leaderelection

//go:generate ./generate.sh
