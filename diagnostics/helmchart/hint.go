package helmchart

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/imgupd/imgupd/diagnostics/netclass"
)

// Hint is one line saying what to change, in terms of Argo CD's
// configuration: the Application source, the repository Secret
// (argocd.argoproj.io/secret-type: repository), argocd-tls-certs-cm and
// the argocd-repo-server pod. It never contains credentials.
func (e *Error) Hint() string {
	host := e.Host
	if host == "" {
		host = "the repository host"
	}
	switch e.Kind {
	case ChartNotFound:
		if e.Op == "download" {
			return fmt.Sprintf("index.yaml lists %s but the server has no such archive: the repository index is stale or its chart URLs are wrong; re-index the repository.", e.URL)
		}
		if e.Source == KindHelmRepo {
			return fmt.Sprintf("The repository's index.yaml has no chart %q: check spec.source.chart (case-sensitive, without a repository prefix) and that spec.source.repoURL is the repository root, not a chart URL.", e.Chart)
		}
		return fmt.Sprintf("The registry has no repository %s: check spec.source.repoURL (the registry path without the chart name) and spec.source.chart, or that the chart was pushed there.", ociRepository(e.URL))
	case VersionNotFound:
		if len(e.Versions) == 0 {
			return fmt.Sprintf("Chart %q has no versions Argo CD can use: push or publish one, or check spec.source.chart.", e.Chart)
		}
		return fmt.Sprintf("Set spec.source.targetRevision to a version that exists (newest: %s) or a constraint that matches one (e.g. %q).", e.Versions[0], majorWildcard(e.Versions[0]))
	case Unauthorized:
		switch {
		case e.CrossHost && !e.auth.passCreds && e.auth.creds:
			return fmt.Sprintf("The chart archive is served by %s, not by the repository's host, and Argo CD sends the repository credentials there only with spec.source.helm.passCredentials: true; set it, or serve the archive from the repository host.", host)
		case !e.CredentialsSent:
			return fmt.Sprintf("%s requires credentials and none were sent: set username and password in the repository Secret (argocd.argoproj.io/secret-type: repository or repo-creds) whose url matches %s.", host, e.repoHint())
		}
		return fmt.Sprintf("%s rejected the credentials: update username/password in the repository Secret for %s (a token may have expired or lost its scope).", host, e.repoHint())
	case Forbidden:
		return fmt.Sprintf("%s accepted the credentials but they may not read this chart: grant the account or token read (pull) access to it.", host)
	case NotAHelmRepo:
		return fmt.Sprintf("%s is not a Helm repository index: point spec.source.repoURL at the directory that holds index.yaml; for an OCI registry drop the https:// scheme (or use oci:// in Argo CD 3.1+), or set enableOCI: true in the repository Secret.", e.URL)
	case BadChart:
		return "The chart archive is not one Argo CD can render (" + e.detail + "): republish it with `helm package`/`helm push`, or check spec.source.path for an oci:// artifact."
	case TooLarge:
		if e.Op == "index" {
			return fmt.Sprintf("%s is larger than imgupd's read limit (%d bytes; it decodes only the chart's own entries of a large index). Argo CD's repo-server reads an index up to --helm-registry-max-index-size (default 1G) and decodes it whole, at many times its size in memory, on every refresh of a chart from it: prune old versions from the repository or split it, and check that what the server sends is an index at all.", e.URL, e.Limit)
		}
		return fmt.Sprintf("The chart is larger than imgupd's read limit (%d bytes, as downloaded or unpacked); Argo CD's repo-server unpacks charts up to --helm-manifest-max-extracted-size (default 1G), and its index limit is --helm-registry-max-index-size. A chart this large is rare: check what %s serves.", e.Limit, host)
	case InvalidSource:
		return "Fix the Application source or repository Secret: " + e.detail + "."
	case DNS:
		return fmt.Sprintf("%s does not resolve from here: check spec.source.repoURL for typos and the cluster DNS from the argocd-repo-server pod; behind a proxy, set HTTPS_PROXY on argocd-repo-server and keep the host out of NO_PROXY.", host)
	case Connect:
		return fmt.Sprintf("Nothing accepted the connection to %s: check the port in spec.source.repoURL, that the server is up, and that NetworkPolicies or firewalls allow egress from argocd-repo-server.", host)
	case TLS:
		return e.tlsHint(host)
	case Timeout:
		return fmt.Sprintf("%s did not answer in time: check HTTPS_PROXY/NO_PROXY on argocd-repo-server, firewalls dropping traffic to %s, or the server's health.", host, host)
	case Proxy:
		return "The HTTP(S) proxy itself failed: check HTTPS_PROXY/HTTP_PROXY on argocd-repo-server and that the proxy is up, or add " + host + " to NO_PROXY."
	case Canceled:
		return "The diagnosis was canceled before the repository answered; run it again."
	}
	return fmt.Sprintf("Unexpected failure reading the chart from %s; compare with `helm pull` run from the argocd-repo-server pod.", host)
}

func (e *Error) repoHint() string {
	if e.Source == KindHelmRepo {
		return "the repoURL"
	}
	return "the registry (for OCI the url has no scheme, or oci://)"
}

// certsKey is the argocd-tls-certs-cm key Argo CD looks the CA up under:
// the host name without port (getCAPath uses URL.Hostname()).
func (e *Error) certsKey() string {
	if h, _, err := net.SplitHostPort(e.Host); err == nil {
		return h
	}
	return e.Host
}

func (e *Error) tlsHint(host string) string {
	var (
		rec tls.RecordHeaderError
		hn  x509.HostnameError
		ua  x509.UnknownAuthorityError
		cve *tls.CertificateVerificationError
	)
	oci := e.Source != KindHelmRepo
	switch {
	case e.Op == "tls":
		return fmt.Sprintf("The TLS settings cannot be used (%s): fix the CA under the key %s in argocd-tls-certs-cm, or tlsClientCertData/tlsClientCertKey (both PEM) in the repository Secret.", e.detail, e.certsKey())
	case errors.As(e.Err, &rec), errors.Is(e.Err, http.ErrSchemeMismatch):
		if oci {
			return fmt.Sprintf("%s answered plain HTTP to a TLS handshake: set insecureOCIForceHttp: true in the repository Secret (Argo CD then uses no TLS at all).", host)
		}
		return fmt.Sprintf("%s answered plain HTTP to a TLS handshake: use an http:// spec.source.repoURL.", host)
	case errors.As(e.Err, &hn):
		return fmt.Sprintf("The certificate of %s is not valid for that name: use the host name it was issued for in spec.source.repoURL, or set insecure: true in the repository Secret.", host)
	case errors.As(e.Err, &ua), errors.As(e.Err, &cve):
		if e.auth.ca {
			return fmt.Sprintf("The certificate of %s is not signed by the CA under the key %s in argocd-tls-certs-cm (that CA replaces the system roots for the host): put the CA that signs the server's certificate there, or set insecure: true in the repository Secret.", host, e.certsKey())
		}
		return fmt.Sprintf("The certificate of %s is signed by a CA Argo CD does not trust: add the CA to argocd-tls-certs-cm under the key %s, or set insecure: true in the repository Secret.", host, e.certsKey())
	case clientCertAlert(e.Err):
		// The server wants a client certificate, or rejected the one sent.
		if e.auth.clientCert {
			return fmt.Sprintf("%s rejected the TLS client certificate: put one it accepts in tlsClientCertData/tlsClientCertKey of the repository Secret.", host)
		}
		return fmt.Sprintf("%s requires a TLS client certificate: set tlsClientCertData and tlsClientCertKey (PEM) in the repository Secret.", host)
	}
	return fmt.Sprintf("The TLS handshake with %s failed: check the scheme and port of spec.source.repoURL, the CA under the key %s in argocd-tls-certs-cm, or insecure: true in the repository Secret.", host, e.certsKey())
}

// clientCertAlert reports a TLS alert about the client certificate: 116
// certificate_required (TLS 1.3), 42 bad_certificate, 46
// certificate_unknown, 48 unknown_ca.
func clientCertAlert(err error) bool {
	var local tls.AlertError
	code, ok := alertCode(netclass.RemoteTLSAlert(err))
	if !ok && errors.As(err, &local) {
		code, ok = uint8(local), true
	}
	return ok && (code == 116 || code == 42 || code == 46 || code == 48)
}

// ociRepository is "host/path" of "oci://host/path:tag" (or @digest).
func ociRepository(ref string) string {
	r := strings.TrimPrefix(ref, ociSchemePrefix)
	if i := strings.LastIndexAny(r, ":@"); i > strings.LastIndexByte(r, '/') {
		r = r[:i]
	}
	return r
}

// majorWildcard turns "1.4.2" into "1.*", for the VersionNotFound hint.
func majorWildcard(v string) string {
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexByte(v, '.'); i > 0 {
		return v[:i] + ".*"
	}
	return "*"
}
