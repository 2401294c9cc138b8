// Package cluster reads what the diagnosis needs from a Kubernetes cluster
// through client-go: typed clients for core objects, the dynamic client for
// Argo CD and Image Updater objects. It decides nothing, and it never writes.
package cluster
