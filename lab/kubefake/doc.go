// Package kubefake is client-go's fake clientset (k8s.io/client-go/kubernetes/fake)
// over client-go's own scheme (k8s.io/client-go/kubernetes/scheme) instead of
// a private copy of it: the lab's typed fake cluster for `imgupd demo`,
// `serve --lab` and the tests.
//
// kubernetes/fake registers every built-in Kubernetes type in a scheme of its
// own at program start (about 3 ms and 0.5 MB, in every run of every imgupd
// command, simulate and version included, because cmd/imgupd links the lab for
// demo). kubernetes/scheme holds the same types (both register the same group
// list and the core "v1" meta types) and is registered anyway, for the typed
// clients, so the fake built here behaves as kubernetes/fake's does, without
// the second registration. internal/depcheck keeps kubernetes/fake out of the
// binary.
//
// clientset_generated.go is client-go's file as it is, but for the package
// clause: `go generate` copies it again from the client-go that go.mod pins,
// so that an upgrade that adds an API group is a compile error in
// clientset_generated.go's interface check, not a gap.
package kubefake

//go:generate sh -c "sed 's/^package fake$/package kubefake/' \"$(go list -m -f '{{.Dir}}' k8s.io/client-go)/kubernetes/fake/clientset_generated.go\" > clientset_generated.go"
