// Package kubefake is a fake clientset of the API groups imgupd uses —
// core, apps, authorization and coordination (internal/kubeclient's
// interfaces: sources/cluster.Kube, and serve's leader Lease) — the lab's
// typed fake cluster for `imgupd demo`, `serve --lab` and the tests.
//
// It is built as client-gen builds kubernetes/fake's NewClientset (a
// field-managed object tracker, its reactions and watches), of client-go's
// generic fake typed clients (gentype, which client-gen's fakes are made
// of), with three differences:
//   - only these groups, over a scheme of their types and RBAC's (the lab's
//     Roles and bindings), built on first use (Scheme): kubernetes/fake and
//     client-go's generated clients bring the scheme of every Kubernetes API
//     group, registered at the start of every imgupd process, and the typed
//     client, fake and apply configurations of every group (about a fifth of
//     imgupd's dependencies' source) into every package and test binary that
//     reaches the lab, the race tier's included;
//   - a Pod's log is "fake logs", as client-go's fake answers it;
//   - the tracker's type converter deduces the objects' structure
//     (managedfields.NewDeducedTypeConverter) instead of reading the
//     OpenAPI models of every group (applyconfigurations.NewTypeConverter,
//     which imports them all): field management still records its
//     managedFields on create and update; only server-side apply's merge of
//     lists by key, which no imgupd code uses, differs.
//
// internal/depcheck keeps kubernetes/fake, and client-go's generated
// clients, out of imgupd's build.
package kubefake
