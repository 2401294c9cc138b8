package gitsource

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/imgupd/imgupd/model/updater"
)

// Auth is the credentials, TLS, host-key and proxy settings for one
// repository, as Image Updater or Argo CD's repo-server would use them:
// username and password (or token) for HTTPS, a private key for SSH. The
// zero value of every field added after CAData keeps the earlier
// behaviour.
type Auth struct {
	Username         string
	Password         updater.Secret
	SSHPrivateKey    updater.Secret // PEM
	SSHKeyPassphrase updater.Secret
	// InsecureSkipTLS skips TLS certificate verification for HTTPS and
	// host-key verification for SSH (KnownHosts is then not consulted).
	// Image Updater does both for git:secret credentials
	// (image-updater.md §10.20), and Argo CD for a repository Secret with
	// insecure or insecureIgnoreHostKey "true", so set it to reach the
	// same verdict.
	InsecureSkipTLS bool
	// CAData is PEM CA certificates to trust for HTTPS: added to the
	// system roots, or replacing them with CAReplacesSystemRoots.
	CAData []byte

	// CAReplacesSystemRoots makes CAData the only roots for HTTPS, as
	// Argo CD does with an argocd-tls-certs-cm entry for the host: the
	// system roots are then not trusted for this repository. Without
	// CAData it has no effect.
	CAReplacesSystemRoots bool
	// TLSClientCert and TLSClientKey are a PEM client certificate and its
	// unencrypted PEM key for HTTPS (a repository Secret's
	// tlsClientCertData and tlsClientCertKey). As Argo CD does, the
	// certificate is sent only when both are set and form a valid pair,
	// and only when the server asks for one; an invalid pair is sent as
	// no certificate (the error's hint says so).
	TLSClientCert []byte
	TLSClientKey  updater.Secret

	// KnownHosts is OpenSSH known_hosts text (argocd-ssh-known-hosts-cm's
	// ssh_known_hosts) to check SSH host keys against. nil checks them
	// against the local known_hosts files, as go-git does ($SSH_KNOWN_HOSTS
	// or ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts). Non-nil, even
	// empty, checks them only against these lines, as Argo CD's
	// repo-server does: comments, comma lists, wildcards (also for
	// non-standard ports, as skeema/knownhosts does), hashed "|1|" hosts,
	// @cert-authority and @revoked; port 22 matches a bare "host", any
	// other port only "[host]:port"; no entry is HostKeyUnknown, another
	// key HostKeyMismatch, and nothing is ever trusted on first use. The
	// host key algorithms offered to the server are those the lines hold
	// for the host. Lines that do not parse fail every SSH operation, as
	// in Argo CD.
	KnownHosts []byte

	// Proxy is the repository's proxy URL (a repository Secret's proxy).
	// For HTTP(S), "" uses the HTTP client's own Proxy (by default the
	// process environment, HTTPS_PROXY and NO_PROXY); set, it is the
	// proxy for http and https with NoProxy as exceptions, with the
	// semantics of golang.org/x/net/http/httpproxy (as Argo CD: loopback
	// and localhost targets never use it). Userinfo in the URL is sent
	// as proxy credentials. For SSH, Argo CD tunnels through it as SOCKS5:
	// it must be socks5:// or socks5h:// (userinfo is the SOCKS5 username
	// and password), NoProxy does not apply, and an http:// proxy is a
	// Proxy error. It never appears in String, errors or hints with its
	// userinfo.
	Proxy string `json:"-"`
	// NoProxy is the comma-separated hosts, domains, IPs and CIDRs that
	// bypass Proxy (a repository Secret's noProxy); only with Proxy.
	NoProxy string
}

// String describes the credentials without their values, e.g.
// "user=bot password=*** insecure".
func (a Auth) String() string {
	var parts []string
	if a.Username != "" {
		parts = append(parts, "user="+a.Username)
	}
	if !a.Password.IsEmpty() {
		parts = append(parts, "password=***")
	}
	if !a.SSHPrivateKey.IsEmpty() {
		parts = append(parts, "ssh-key=***")
	}
	if !a.SSHKeyPassphrase.IsEmpty() {
		parts = append(parts, "passphrase=***")
	}
	if a.InsecureSkipTLS {
		parts = append(parts, "insecure")
	}
	if len(a.CAData) > 0 {
		ca := fmt.Sprintf("ca=%dB", len(a.CAData))
		if a.CAReplacesSystemRoots {
			ca += " replaces-system-roots"
		}
		parts = append(parts, ca)
	}
	if len(a.TLSClientCert) > 0 {
		parts = append(parts, "client-cert")
	}
	if !a.TLSClientKey.IsEmpty() {
		parts = append(parts, "client-key=***")
	}
	if a.KnownHosts != nil {
		parts = append(parts, fmt.Sprintf("known-hosts=%d lines", knownHostsLines(a.KnownHosts)))
	}
	if a.Proxy != "" {
		parts = append(parts, "proxy="+redactProxy(a.Proxy))
	}
	if a.NoProxy != "" {
		parts = append(parts, fmt.Sprintf("no-proxy=%d entries", len(splitNoProxy(a.NoProxy))))
	}
	if len(parts) == 0 {
		return "anonymous"
	}
	return strings.Join(parts, " ")
}

// GoString masks like String, so %#v of an Auth prints no secret.
func (a Auth) GoString() string { return "gitsource.Auth{" + a.String() + "}" }

func (a Auth) hasCredentials() bool {
	return a.Username != "" || !a.Password.IsEmpty() || !a.SSHPrivateKey.IsEmpty()
}

// identity is a cache key for these settings. The secrets enter only
// through a SHA-256, and the key is never printed.
func (a Auth) identity() string {
	h := sha256.New()
	knownHosts := "nil"
	if a.KnownHosts != nil {
		knownHosts = "set:" + string(a.KnownHosts)
	}
	for _, s := range []string{a.Username, a.Password.Reveal(), a.SSHPrivateKey.Reveal(), a.SSHKeyPassphrase.Reveal(),
		fmt.Sprint(a.InsecureSkipTLS), string(a.CAData),
		fmt.Sprint(a.CAReplacesSystemRoots), string(a.TLSClientCert), a.TLSClientKey.Reveal(), knownHosts, a.Proxy, a.NoProxy} {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// withURLUserinfo fills Username and Password from the URL's userinfo
// when the Auth has no credentials of its own, as git does.
func (a Auth) withURLUserinfo(rawURL string) Auth {
	if a.hasCredentials() {
		return a
	}
	if u := urlUsername(rawURL); u != "" && isHTTPURL(rawURL) {
		a.Username = u
		a.Password = updater.Secret(urlPassword(rawURL))
	}
	return a
}

// transportAuth builds go-git's auth method for an endpoint: HTTP basic
// auth for http(s), public-key (or password) auth for SSH with the host
// key check skipped when InsecureSkipTLS is set, as Image Updater does, or
// bound to KnownHosts when that is set, as Argo CD does. It returns nil
// for anonymous HTTP.
func (a Auth) transportAuth(ep *transport.Endpoint) (transport.AuthMethod, error) {
	switch ep.Protocol {
	case "http", "https":
		if a.Username == "" && a.Password.IsEmpty() {
			return nil, nil
		}
		return &githttp.BasicAuth{Username: a.Username, Password: a.Password.Reveal()}, nil
	case "ssh":
		user := ep.User
		if user == "" {
			user = a.Username
		}
		if user == "" {
			user = "git"
		}
		var (
			m   transport.AuthMethod
			cb  *gitssh.HostKeyCallbackHelper
			err error
		)
		switch {
		case !a.SSHPrivateKey.IsEmpty():
			var pk *gitssh.PublicKeys
			pk, err = gitssh.NewPublicKeys(user, []byte(a.SSHPrivateKey.Reveal()), a.SSHKeyPassphrase.Reveal())
			if err != nil {
				// The parse error names no key material, but keep to a fixed text.
				return nil, fmt.Errorf("parse SSH private key: %w", errBadKey)
			}
			cb, m = &pk.HostKeyCallbackHelper, pk
		case !a.Password.IsEmpty():
			pw := &gitssh.Password{User: user, Password: a.Password.Reveal()}
			cb, m = &pw.HostKeyCallbackHelper, pw
		default:
			return nil, errNoSSHKey
		}
		switch {
		case a.InsecureSkipTLS:
			cb.HostKeyCallback = gossh.InsecureIgnoreHostKey()
		case a.KnownHosts != nil:
			db, err := newKnownHostsDB(a.KnownHosts)
			if err != nil {
				return nil, err
			}
			hostPort := sshHostPort(ep)
			cb.HostKeyCallback = db.callback(hostPort)
			cb.HostKeyAlgorithms = db.HostKeyAlgorithms(hostPort)
		}
		return m, nil
	}
	return nil, fmt.Errorf("scheme %q: %w", ep.Protocol, errUnsupportedScheme)
}

func urlUsername(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.User == nil {
		return ""
	}
	return u.User.Username()
}

func urlPassword(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.User == nil {
		return ""
	}
	p, _ := u.User.Password()
	return p
}

func urlHasPassword(raw string) bool { return urlPassword(raw) != "" }

func isHTTPURL(raw string) bool {
	l := strings.ToLower(strings.TrimSpace(raw))
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}
