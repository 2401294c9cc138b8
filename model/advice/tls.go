package advice

import (
	"fmt"

	"github.com/imgupd/imgupd/internal/netclass"
)

// Source is whose client met the failure, which decides whose
// configuration the advice speaks of.
type Source string

const (
	// SourceRegistry: Image Updater's registry client (registries.conf).
	SourceRegistry Source = "registry"
	// SourceGit: Argo CD's repo-server or Image Updater's write-back
	// reading git (the repository Secret, argocd-tls-certs-cm).
	SourceGit Source = "git"
	// SourceChart: Argo CD's repo-server fetching a Helm chart.
	SourceChart Source = "chart"
)

// TLSCase is a failed TLS handshake: with whom, what it said, and the TLS
// settings that were in use.
type TLSCase struct {
	Source Source
	// Name is the server as the advice names it: the registry or chart
	// host, or the git repository URL.
	Name string
	// CertsKey is the argocd-tls-certs-cm key Argo CD looks the CA up
	// under (git, chart).
	CertsKey string
	Facts    netclass.TLSFacts
	// CAGiven: an extra CA was configured; CAReplaces: it replaces the
	// system roots (git).
	CAGiven, CAReplaces bool
	// ClientCert: a TLS client certificate was configured; ClientCertBad:
	// not as a usable pair (git).
	ClientCert, ClientCertBad bool
	// OCI: the chart comes from an OCI registry, not a classic repository.
	OCI bool
}

// TLS is the one advice for a failed TLS handshake, whatever the source:
// first a plain-HTTP server, then a certificate for another name, then an
// untrusted CA or the server's refusal of the client certificate, each in
// the terms of the configuration that reaches that server.
func TLS(c TLSCase) string {
	t, name := c.Facts, c.Name
	switch {
	case t.PlainHTTP:
		switch c.Source {
		case SourceGit:
			return fmt.Sprintf("%s answered plain HTTP to a TLS handshake: the URL scheme or port is wrong.", name)
		case SourceChart:
			if c.OCI {
				return fmt.Sprintf("%s answered plain HTTP to a TLS handshake: set insecureOCIForceHttp: true in the repository Secret (Argo CD then uses no TLS at all).", name)
			}
			return fmt.Sprintf("%s answered plain HTTP to a TLS handshake: use an http:// spec.source.repoURL.", name)
		}
		return fmt.Sprintf("%s answered plain HTTP to a TLS handshake: use an http:// api_url for it in registries.conf.", name)
	case t.WrongName:
		switch c.Source {
		case SourceGit:
			return fmt.Sprintf("The certificate of %s is not valid for that host name: use the name the certificate was issued for.", name)
		case SourceChart:
			return fmt.Sprintf("The certificate of %s is not valid for that name: use the host name it was issued for in spec.source.repoURL, or set insecure: true in the repository Secret.", name)
		}
		return fmt.Sprintf("The certificate of %s is not valid for that name: use the host name the certificate was issued for, "+
			"or set insecure: true for this registry in registries.conf.", name)
	case c.Source == SourceGit:
		return gitTLS(c)
	case t.UnknownAuthority:
		if c.Source == SourceChart {
			if c.CAGiven {
				return fmt.Sprintf("The certificate of %s is not signed by the CA under the key %s in argocd-tls-certs-cm (that CA replaces the system roots for the host): put the CA that signs the server's certificate there, or set insecure: true in the repository Secret.", name, c.CertsKey)
			}
			return fmt.Sprintf("The certificate of %s is signed by a CA Argo CD does not trust: add the CA to argocd-tls-certs-cm under the key %s, or set insecure: true in the repository Secret.", name, c.CertsKey)
		}
		return fmt.Sprintf("The certificate of %s is signed by a CA the controller does not trust: add the CA as ca_data (or ca_file, "+
			"or /app/config/tls/<host>) for this registry in registries.conf (Image Updater v1.3+), or set insecure: true.", name)
	case c.Source == SourceChart && t.ClientCertAlert:
		// The server wants a client certificate, or rejected the one sent.
		if c.ClientCert {
			return fmt.Sprintf("%s rejected the TLS client certificate: put one it accepts in tlsClientCertData/tlsClientCertKey of the repository Secret.", name)
		}
		return fmt.Sprintf("%s requires a TLS client certificate: set tlsClientCertData and tlsClientCertKey (PEM) in the repository Secret.", name)
	case c.Source == SourceChart:
		return fmt.Sprintf("The TLS handshake with %s failed: check the scheme and port of spec.source.repoURL, the CA under the key %s in argocd-tls-certs-cm, or insecure: true in the repository Secret.", name, c.CertsKey)
	}
	return fmt.Sprintf("The TLS handshake with %s failed: check that api_url uses the right scheme and port, and ca_data or insecure: true "+
		"in registries.conf.", name)
}

// gitTLS: Argo CD trusts, per host, the system roots or (replacing them)
// the CA in argocd-tls-certs-cm, and sends the repository Secret's client
// certificate.
func gitTLS(c TLSCase) string {
	repo, host := c.Name, c.CertsKey
	switch {
	case c.Facts.RemoteAlert:
		switch {
		case c.ClientCertBad:
			return fmt.Sprintf("%s refused the TLS handshake, and the client certificate given (tlsClientCertData/tlsClientCertKey) is "+
				"not a valid pair: both must be set, PEM, and the key unencrypted and matching the certificate; Argo CD then sends "+
				"no certificate. Fix the repository Secret.", repo)
		case c.ClientCert:
			return fmt.Sprintf("%s refused the TLS client certificate of the repository Secret (tlsClientCertData): it must be issued "+
				"by a CA the server trusts for client authentication, and not be expired.", repo)
		}
		return fmt.Sprintf("%s refused the TLS handshake: it probably requires a TLS client certificate. Set tlsClientCertData and "+
			"tlsClientCertKey (PEM, key unencrypted) on the Argo CD repository Secret.", repo)
	case c.CAReplaces:
		return fmt.Sprintf("The certificate of %s is not signed by the CA in argocd-tls-certs-cm under the key %s, and for this host "+
			"Argo CD trusts only that CA, not the system roots: add the CA that issued the server's certificate chain to "+
			"argocd-tls-certs-cm under the key %s.", repo, host, host)
	case c.CAGiven:
		return fmt.Sprintf("The certificate of %s is trusted neither by the system roots nor by the extra CA given: add the CA that "+
			"issued the server's chain to argocd-tls-certs-cm under the key %s.", repo, host)
	}
	return fmt.Sprintf("The certificate of %s is not trusted here: add the CA to argocd-tls-certs-cm under the key %s (Argo CD then "+
		"trusts only that CA for %s), or set insecure on the repository Secret. Image Updater with git:secret HTTPS credentials "+
		"does not verify it (it skips TLS verification), so probe with InsecureSkipTLS to reach its verdict; git:repocreds "+
		"honour the repository's insecure flag.", repo, host, host)
}
