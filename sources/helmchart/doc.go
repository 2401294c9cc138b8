// Package helmchart fetches the values.yaml of the chart an Argo CD
// Application deploys, the way Argo CD v3.5's repo-server fetches the
// chart, so that the diagnosis can compare the Helm parameters Image
// Updater writes (image.tag, ...) with what the chart reads.
//
// Three kinds of source are read (see Kind):
//
//   - KindHelmRepo: chart + http(s):// repoURL. GET <repoURL>/index.yaml,
//     targetRevision resolved over its entries (Argo CD's MaxVersion, then
//     Helm's IndexFile.Get for a pin), the entry's first URL downloaded
//     (relative to repoURL), <chart>/values.yaml read from the archive.
//   - KindOCIHelm: chart + scheme-less repoURL (or enableOCI). The chart
//     is oci://<repoURL>/<chart>:<version> with "+" stored as "_";
//     constraints are resolved over the tag list.
//   - KindOCIArtifact: oci:// repoURL (Argo CD 3.1+). The artifact at
//     targetRevision (tag, digest, or constraint over the tags); its one
//     content layer is a Helm chart (values.yaml under its top directory)
//     or a plain tar (values.yaml under spec.source.path).
//
// Credentials and trust follow Argo CD: basic credentials for index.yaml
// whenever a username or password is set; for the archive only on the
// repository's own scheme and host (or with passCredentials), and only
// with both username and password, as Helm's HTTP getter does; a CA from
// argocd-tls-certs-cm replaces the system roots; insecure skips
// verification; a client certificate needs both certificate and key;
// insecureOCIForceHttp speaks plain HTTP to a registry. A Client keeps no
// chart between calls (a Shared keeps them for one diagnosis or scan), and
// nothing is written anywhere.
//
// Failures are *Error values of a fixed ErrorKind with a one-line Hint, in
// terms of the Application, the repository Secret and argocd-tls-certs-cm,
// classified from typed errors (netclass for the network,
// go-containerregistry's transport.Error for registries). No error text,
// %v/%+v/%#v form or JSON contains a password, token or key: secrets are
// updater.Secret values and error details are scrubbed of them.
//
// Every read is bounded (WithMaxBytes): index.yaml, the archive or layer
// as downloaded, the bytes unpacked from it, and values.yaml; buffers grow
// with the bytes actually read, never with sizes a header claims.
//
// # Why not Helm's packages
//
// helm.sh/helm/v3 v3.22.0 builds cleanly with this module's k8s.io v0.37.2,
// and was measured with `go build -o /tmp/x ./cmd/imgupd` (54,266,406
// bytes before):
//
//   - pkg/repo (IndexFile, Get): 145,082,344 bytes, +90.8 MB (+167%),
//     because it imports pkg/getter → pkg/cli → pkg/kube → kubectl,
//     cli-runtime and oras: 857 packages for a YAML decode and a
//     semver pick.
//   - pkg/chart/loader alone: 54,408,345 bytes, +142 KB. Small, but its
//     size limits are package variables (MaxDecompressedChartSize,
//     MaxDecompressedFileSize): a per-Client WithMaxBytes would mean
//     writing global state shared with every other user of the package.
//     It also keeps every file of the chart in memory to return one, and
//     its validation is not the repo-server's (Argo CD unpacks with its
//     own Untgz and joins the chart name). Adding the module also raised
//     shared requirements in go.mod (Masterminds/semver v3.4.0 → v3.5.0,
//     ProtonMail/go-crypto, cyphar/filepath-securejoin, mergo,
//     docker-credential-helpers) under the other packages of this module.
//
// So the small parts are written here: the index decode (Helm's own
// approach: JSON if valid, else sigs.k8s.io/yaml, apiVersion required;
// index.go), version resolution (Argo CD's MaxVersion and Helm's
// IndexFile.Get over Masterminds/semver; version.go) and a bounded tar+gzip
// scan for one file (extract.go). OCI access uses go-containerregistry,
// which the module already has. Linked into cmd/imgupd, this whole package
// adds about 260 KB and no module.
//
// Decoding index.yaml the way Helm does is not cheap: YAML takes some
// eighteen times the text in memory (a 30 MiB index, 550 MiB of heap). An
// index over 4 MiB is therefore decoded only for the chart asked for: its
// entries are cut out of the block YAML `helm repo index` writes, and an
// index in another form, or a chart with more than 4 MiB of entries, is
// TooLarge (index.go, parseIndexFor). Downloads are read in chunks joined
// once, so an endless answer holds no more than the limit.
// Read each chart once per diagnosis or scan (Client.Share).
//
// # Mapping an Application
//
// Source comes from spec.source (or the spec.sources entry) and the
// repository Secret: RepoURL, Chart, TargetRevision and Path verbatim,
// EnableOCI from the Secret's enableOCI. Auth comes from the Secret that
// Argo CD matches to the repoURL (a repository Secret with the same url,
// else the repo-creds Secret with the longest url prefix): username,
// password, insecure, tlsClientCertData/tlsClientCertKey,
// insecureOCIForceHttp (PlainHTTP); CAData is argocd-tls-certs-cm's entry
// under the repoURL's host name without port; PassCredentials is the
// Application's spec.source.helm.passCredentials.
package helmchart
