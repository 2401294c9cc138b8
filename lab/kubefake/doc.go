// Package kubefake is client-go's fake clientset (k8s.io/client-go/kubernetes/fake)
// for the API groups imgupd uses — core, apps, authorization and
// coordination (sources/cluster.Kube, and serve's leader Lease) — over
// client-go's own scheme (k8s.io/client-go/kubernetes/scheme): the lab's
// typed fake cluster for `imgupd demo`, `serve --lab` and the tests.
//
// It is built as client-gen builds kubernetes/fake's NewClientset (a
// field-managed object tracker, its reactions and watches, and client-go's
// fake typed clients of each group), with two differences:
//   - only these groups: kubernetes/fake brings the typed client, fake and
//     apply configurations of every Kubernetes API group (about a fifth of
//     imgupd's dependencies' source) into every package and test binary that
//     reaches the lab, the race tier's included;
//   - the tracker's type converter deduces the objects' structure
//     (managedfields.NewDeducedTypeConverter) instead of reading the
//     OpenAPI models of every group (applyconfigurations.NewTypeConverter,
//     which imports them all): field management still records its
//     managedFields on create and update; only server-side apply's merge of
//     lists by key, which no imgupd code uses, differs.
//
// kubernetes/scheme holds the same types kubernetes/fake's private scheme
// registers, once: internal/depcheck keeps kubernetes/fake, and client-go's
// aggregate clientset, out of imgupd's build.
package kubefake
