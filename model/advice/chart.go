package advice

import (
	"fmt"
	"net"
	"strings"

	"github.com/imgupd/imgupd/internal/netclass"
)

// Chart is what a Helm chart failure says (helmchart.Error.Facts).
type Chart struct {
	// Kind is the helmchart.ErrorKind, e.g. "VersionNotFound".
	Kind string
	// Op is what was being done: "source", "tls", "index", "download",
	// "tags", "manifest", "layer", "extract".
	Op string
	// HelmRepo: a classic Helm repository (index.yaml), not OCI.
	HelmRepo bool
	// URL is what was being read (no userinfo or query), Host its host
	// and port; Chart the chart name.
	URL, Host, Chart string
	// Versions are the chart's versions, newest first (VersionNotFound).
	Versions []string
	// CrossHost: the archive is on another host than the repository.
	CrossHost bool
	// CredentialsSent: the failed request carried credentials.
	CredentialsSent bool
	// The settings in use: credentials, passCredentials, an extra CA, a
	// TLS client certificate.
	CredsGiven, PassCredentials, CAGiven, ClientCertGiven bool
	// Detail is the scrubbed, one-line detail of the failure.
	Detail string
	// Limit is the byte limit a TooLarge document passed.
	Limit int64
	// TLS is what a failed handshake said.
	TLS netclass.TLSFacts
}

// ForChart is one line saying what to change, in terms of Argo CD's
// configuration: the Application source, the repository Secret
// (argocd.argoproj.io/secret-type: repository), argocd-tls-certs-cm and
// the argocd-repo-server pod.
func ForChart(f Chart) string {
	host := f.Host
	if host == "" {
		host = "the repository host"
	}
	switch f.Kind {
	case "ChartNotFound":
		if f.Op == "download" {
			return fmt.Sprintf("index.yaml lists %s but the server has no such archive: the repository index is stale or its chart URLs are wrong; re-index the repository.", f.URL)
		}
		if f.HelmRepo {
			return fmt.Sprintf("The repository's index.yaml has no chart %q: check spec.source.chart (case-sensitive, without a repository prefix) and that spec.source.repoURL is the repository root, not a chart URL.", f.Chart)
		}
		return fmt.Sprintf("The registry has no repository %s: check spec.source.repoURL (the registry path without the chart name) and spec.source.chart, or that the chart was pushed there.", ociRepository(f.URL))
	case "VersionNotFound":
		if len(f.Versions) == 0 {
			return fmt.Sprintf("Chart %q has no versions Argo CD can use: push or publish one, or check spec.source.chart.", f.Chart)
		}
		return fmt.Sprintf("Set spec.source.targetRevision to a version that exists (newest: %s) or a constraint that matches one (e.g. %q).", f.Versions[0], majorWildcard(f.Versions[0]))
	case "Unauthorized":
		switch {
		case f.CrossHost && !f.PassCredentials && f.CredsGiven:
			return fmt.Sprintf("The chart archive is served by %s, not by the repository's host, and Argo CD sends the repository credentials there only with spec.source.helm.passCredentials: true; set it, or serve the archive from the repository host.", host)
		case !f.CredentialsSent:
			return fmt.Sprintf("%s requires credentials and none were sent: set username and password in the repository Secret (argocd.argoproj.io/secret-type: repository or repo-creds) whose url matches %s.", host, chartRepoHint(f))
		}
		return fmt.Sprintf("%s rejected the credentials: update username/password in the repository Secret for %s (a token may have expired or lost its scope).", host, chartRepoHint(f))
	case "Forbidden":
		return fmt.Sprintf("%s accepted the credentials but they may not read this chart: grant the account or token read (pull) access to it.", host)
	case "NotAHelmRepo":
		return fmt.Sprintf("%s is not a Helm repository index: point spec.source.repoURL at the directory that holds index.yaml; for an OCI registry drop the https:// scheme (or use oci:// in Argo CD 3.1+), or set enableOCI: true in the repository Secret.", f.URL)
	case "BadChart":
		return "The chart archive is not one Argo CD can render (" + f.Detail + "): republish it with `helm package`/`helm push`, or check spec.source.path for an oci:// artifact."
	case "TooLarge":
		if f.Op == "index" {
			return fmt.Sprintf("%s is larger than imgupd's read limit (%d bytes; it decodes only the chart's own entries of a large index). Argo CD's repo-server reads an index up to --helm-registry-max-index-size (default 1G) and decodes it whole, at many times its size in memory, on every refresh of a chart from it: prune old versions from the repository or split it, and check that what the server sends is an index at all.", f.URL, f.Limit)
		}
		return fmt.Sprintf("The chart is larger than imgupd's read limit (%d bytes, as downloaded or unpacked); Argo CD's repo-server unpacks charts up to --helm-manifest-max-extracted-size (default 1G), and its index limit is --helm-registry-max-index-size. A chart this large is rare: check what %s serves.", f.Limit, host)
	case "InvalidSource":
		return "Fix the Application source or repository Secret: " + f.Detail + "."
	case "DNS":
		return fmt.Sprintf("%s does not resolve from here: check spec.source.repoURL for typos and the cluster DNS from the argocd-repo-server pod; behind a proxy, set HTTPS_PROXY on argocd-repo-server and keep the host out of NO_PROXY.", host)
	case "Connect":
		return fmt.Sprintf("Nothing accepted the connection to %s: check the port in spec.source.repoURL, that the server is up, and that NetworkPolicies or firewalls allow egress from argocd-repo-server.", host)
	case "TLS":
		if f.Op == "tls" {
			return fmt.Sprintf("The TLS settings cannot be used (%s): fix the CA under the key %s in argocd-tls-certs-cm, or tlsClientCertData/tlsClientCertKey (both PEM) in the repository Secret.", f.Detail, certsKey(f.Host))
		}
		return TLS(TLSCase{Source: SourceChart, Name: host, CertsKey: certsKey(f.Host), Facts: f.TLS, CAGiven: f.CAGiven,
			ClientCert: f.ClientCertGiven, OCI: !f.HelmRepo})
	case "Timeout":
		return fmt.Sprintf("%s did not answer in time: check HTTPS_PROXY/NO_PROXY on argocd-repo-server, firewalls dropping traffic to %s, or the server's health.", host, host)
	case "Proxy":
		return "The HTTP(S) proxy itself failed: check HTTPS_PROXY/HTTP_PROXY on argocd-repo-server and that the proxy is up, or add " + host + " to NO_PROXY."
	case "Canceled":
		return "The diagnosis was canceled before the repository answered; run it again."
	}
	return fmt.Sprintf("Unexpected failure reading the chart from %s; compare with `helm pull` run from the argocd-repo-server pod.", host)
}

func chartRepoHint(f Chart) string {
	if f.HelmRepo {
		return "the repoURL"
	}
	return "the registry (for OCI the url has no scheme, or oci://)"
}

// certsKey is the argocd-tls-certs-cm key Argo CD looks the CA up under:
// the host name without port (getCAPath uses URL.Hostname()).
func certsKey(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}

// ociRepository is "host/path" of "oci://host/path:tag" (or @digest).
func ociRepository(ref string) string {
	r := strings.TrimPrefix(ref, "oci://")
	if i := strings.LastIndexAny(r, ":@"); i > strings.LastIndexByte(r, '/') {
		r = r[:i]
	}
	return r
}

// majorWildcard turns "1.4.2" into "1.*", for the VersionNotFound advice.
func majorWildcard(v string) string {
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexByte(v, '.'); i > 0 {
		return v[:i] + ".*"
	}
	return "*"
}
