// Package kubeclient is client-go's typed clients of the kinds imgupd reads
// and writes, in the four API groups it uses (core, apps, authorization,
// coordination), built from client-go's generic typed client (gentype) as
// client-gen builds each group's client, over a scheme of those groups only.
//
// client-go's generated clients of those groups import its scheme of every
// Kubernetes API group (k8s.io/client-go/kubernetes/scheme), whose package
// init registers a few thousand types, and its apply configurations: every
// imgupd process (a `simulate` as much as `serve`) paid for them at start,
// about 8 ms and a tenth of the binary. Here the scheme is built on first
// use, of the groups imgupd reads.
//
// The interfaces name the methods gentype's clients and fakes (the lab's
// kubefake) both have; a group's interface names the kinds imgupd uses.
package kubeclient
