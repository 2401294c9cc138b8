// Package advice is the one place that says what to change in Image
// Updater's or Argo CD's configuration when a source fails: registries.conf,
// pull secrets, the image-updater pod's proxy settings, repository Secrets,
// argocd-tls-certs-cm, argocd-ssh-known-hosts-cm, the Application source.
//
// The sources (registry, gitsource, helmchart, forge) classify a failure and
// report its facts only: the kind, the host, the repository, the HTTP status,
// what the TLS handshake said, whether a proxy or credentials were in use
// (each error's Facts method). This package turns those facts into advice,
// keyed by source and error kind, for the engine's stages and for
// simulate. It is pure: no I/O, and it imports no source, so
// that a source can report its facts in these types and a caller that needs
// one source's advice does not pull in the others' clients.
//
// The kinds are the sources' typed string kinds (registry.Kind,
// gitsource.Kind, helmchart.ErrorKind, forge.Kind), carried as their values.
// Advice never contains credentials.
package advice
