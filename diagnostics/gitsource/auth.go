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

	"github.com/imgupd/imgupd/diagnostics/updater"
)

// Auth is the credentials and TLS settings for one repository, as Image
// Updater would use them: username and password (or token) for HTTPS, a
// private key for SSH.
type Auth struct {
	Username         string
	Password         updater.Secret
	SSHPrivateKey    updater.Secret // PEM
	SSHKeyPassphrase updater.Secret
	// InsecureSkipTLS skips TLS certificate verification for HTTPS and
	// host-key verification for SSH. Image Updater does both for
	// git:secret credentials (image-updater.md §10.20), so set it to
	// reach the same verdict.
	InsecureSkipTLS bool
	// CAData is extra PEM CA certificates to trust for HTTPS.
	CAData []byte
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
		parts = append(parts, fmt.Sprintf("ca=%dB", len(a.CAData)))
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
	for _, s := range []string{a.Username, a.Password.Reveal(), a.SSHPrivateKey.Reveal(), a.SSHKeyPassphrase.Reveal(),
		fmt.Sprint(a.InsecureSkipTLS), string(a.CAData)} {
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
// key check skipped when InsecureSkipTLS is set, as Image Updater does. It
// returns nil for anonymous HTTP.
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
			return nil, transport.ErrAuthenticationRequired
		}
		if a.InsecureSkipTLS {
			cb.HostKeyCallback = gossh.InsecureIgnoreHostKey()
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
