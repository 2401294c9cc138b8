package gitsource

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/imgupd/imgupd/internal/errtext"
	"github.com/imgupd/imgupd/internal/netclass"
	"github.com/imgupd/imgupd/model/updater"
)

// Kind is the class of a git access failure, as a stable name that is
// safe to alert on: a network kind (netclass.DNS, Connect, TLS, Timeout,
// Proxy, Canceled), shared with the other sources, or one of git's own
// below. Its value is that name, as JSON and log lines carry it.
//
// Over git, netclass.TLS also covers a server refusing the handshake (a
// TLS alert, e.g. a client certificate required or not accepted); SSH host
// keys are HostKeyUnknown and HostKeyMismatch. netclass.Proxy also covers
// a proxy that refused the tunnel (HTTP 403 or 407 to CONNECT, a SOCKS5
// refusal) or is not usable for the URL (an http:// proxy for SSH);
// Error.Proxy names it.
type Kind = netclass.Kind

const (
	// Other: none of the kinds below.
	Other Kind = "Other"
	// AuthRequired: the server wants credentials and none were given
	// (HTTP 401 or 403 without credentials, SSH without a key).
	AuthRequired Kind = "AuthRequired"
	// AuthFailed: credentials were given and refused (HTTP 401 or 403,
	// SSH authentication failure).
	AuthFailed Kind = "AuthFailed"
	// RepoNotFound: the server has no such repository (HTTP 404). GitHub
	// and others also answer so for private repositories the credentials
	// cannot see.
	RepoNotFound Kind = "RepoNotFound"
	// BranchNotFound: the repository has no such branch (or no branches).
	BranchNotFound Kind = "BranchNotFound"
	// UnsupportedURL: the URL cannot be used: an unknown scheme, or a
	// URL git:secret credentials cannot be used with (see
	// RequiresSecureURL).
	UnsupportedURL Kind = "UnsupportedURL"
	// HostKeyUnknown: the known hosts (Auth.KnownHosts, else the local
	// known_hosts files) have no entry for the SSH server's host and port
	// ("knownhosts: key is unknown").
	HostKeyUnknown Kind = "HostKeyUnknown"
	// HostKeyMismatch: the known hosts list other keys for the SSH
	// server, or mark its key @revoked ("knownhosts: key mismatch"): a
	// changed or spoofed server.
	HostKeyMismatch Kind = "HostKeyMismatch"
	// TooLarge: the server's answer passed imgupd's bounds (a ref
	// advertisement, a pack, or the objects it inflates to; see
	// MaxPackBytes); Error.Limit says which.
	TooLarge Kind = "TooLarge"
)

// Kinds is every Kind: this package's own, in the order above, then the
// network kinds (netclass.Kinds).
func Kinds() []Kind {
	return append([]Kind{
		Other, AuthRequired, AuthFailed, RepoNotFound, BranchNotFound, UnsupportedURL, HostKeyUnknown,
		HostKeyMismatch, TooLarge,
	}, netclass.Kinds()...)
}

var kindPhrases = map[Kind]string{
	Other: "failed", AuthRequired: "authentication required", AuthFailed: "credentials refused",
	RepoNotFound: "repository not found", BranchNotFound: "branch not found",
	netclass.TLS: "server identity not verified", UnsupportedURL: "unsupported URL",
	HostKeyUnknown: "SSH host key unknown", HostKeyMismatch: "SSH host key mismatch", netclass.Proxy: "proxy failed",
	TooLarge: "past imgupd's read bound",
}

var errNeedsSecureURL = errors.New("git:secret credentials need an https:// or SSH (user@host) URL; Image Updater fails with \"unknown repository type\"")

// Error is one classified git failure. Its message is one line and never
// contains credentials: URL has its userinfo removed and the detail text is
// scrubbed of the secrets that were in use.
type Error struct {
	Kind Kind
	// Op is what was being done: "ls-remote", "fetch", "push check", ...
	Op string
	// URL is the repository URL without userinfo.
	URL string
	// Branch is the branch concerned, when there is one.
	Branch string
	// Status is the HTTP status when one is known (401, 403, 404, ...; for
	// Proxy the proxy's answer to CONNECT, 403 or 407), else 0.
	Status int
	// Proxy is the repository proxy in use, without userinfo
	// ("http://proxy.corp:3128"), when Kind is Proxy and Auth.Proxy was
	// set; "" otherwise (an environment proxy is named in the message).
	Proxy string `json:",omitempty"`
	// Limit, for TooLarge, is the bound the answer passed.
	Limit *SizeLimit `json:",omitempty"`
	// Err is the underlying error, for errors.Is/As. Print Error(), never
	// Err: its text was not scrubbed.
	Err error `json:"-"`

	detail string
	hint   hintContext
}

// hintContext is the settings in use, which Facts reports.
type hintContext struct {
	knownHosts    bool // Auth.KnownHosts was set
	ca            bool // Auth.CAData was set
	caReplaces    bool // ... and replaces the system roots
	clientCert    bool // a client certificate or key was given
	clientCertBad bool // ... but not as a valid pair
	repoProxy     bool // Auth.Proxy was set
	tlsRefused    bool // the server sent a TLS alert
}

// Error is "<op> <url>: <what> (HTTP <status>): <detail>", on one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.URL != "" {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(e.URL)
	}
	if e.Branch != "" {
		b.WriteString(" branch " + e.Branch)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Kind == netclass.TLS && e.hint.tlsRefused {
		b.WriteString("TLS handshake refused by the server")
	} else {
		b.WriteString(phrase(e.Kind))
	}
	if e.Proxy != "" {
		b.WriteString(" (proxy " + e.Proxy + ")")
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	d := e.detail
	if d == "" && e.Err != nil && e.Kind == UnsupportedURL {
		d = e.Err.Error() // our own text, no secrets
	}
	if d != "" {
		b.WriteString(": " + d)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

func phrase(k Kind) string { return k.Phrase(kindPhrases) }

// classify turns an error from go-git or the network into an *Error, using
// typed errors only (errors.Is / errors.As). go-git's
// plumbing.PermanentError and UnexpectedError have no Unwrap, so their
// inner error is joined in explicitly.
//
// One exception is documented: golang.org/x/crypto/ssh reports a refused
// SSH login only as text ("ssh: unable to authenticate"), so that phrase is
// matched to classify AuthFailed over SSH.
func classify(op, rawURL string, a Auth, err error) *Error {
	if err == nil {
		return nil
	}
	var already *Error
	if errors.As(err, &already) {
		c := *already
		if c.Op == "" {
			c.Op = op
		}
		return &c
	}
	e := &Error{Kind: Other, Op: op, URL: redactURL(rawURL), Err: err, hint: newHintContext(a)}
	all := withInner(err)
	var (
		keyErr    *knownhosts.KeyError
		revErr    *knownhosts.RevokedError
		hkErr     *hostKeyError
		httpErr   *githttp.Err
		refErr    git.NoMatchingRefSpecError
		statusErr *proxyStatusError
		sizeErr   *SizeLimit
	)
	detail := err
	creds := a.hasCredentials() || urlHasPassword(rawURL)
	netClass, netDetail := netclass.Classify(all)
	socksErr := socksFailure(all)
	switch {
	case errors.As(all, &sizeErr):
		e.Kind, e.Limit, detail = TooLarge, sizeErr, sizeErr
	case errors.Is(all, errUnsupportedScheme):
		e.Kind = UnsupportedURL
	case errors.Is(all, errBadProxy), errors.Is(all, errSSHNotSOCKS):
		e.Kind, detail = netclass.Proxy, firstOf(all, errBadProxy, errSSHNotSOCKS)
	case errors.As(all, &statusErr):
		e.Kind, e.Status, detail = netclass.Proxy, statusErr.Status, statusErr
	case socksErr != nil && netClass != netclass.Canceled:
		e.Kind, detail = netclass.Proxy, socksErr
	case netClass != netclass.None:
		e.Kind, detail = netClass, netDetail
	case errors.As(all, &hkErr):
		e.Kind, detail = hostKeyKind(all), hkErr
	case errors.As(all, &revErr):
		e.Kind, detail = HostKeyMismatch, revErr
	case errors.As(all, &keyErr):
		e.Kind, detail = hostKeyKind(all), keyErr
	case netclass.RemoteTLSAlert(all) != nil:
		e.Kind, detail, e.hint.tlsRefused = netclass.TLS, netclass.RemoteTLSAlert(all), true
	case errors.Is(all, errNoSSHKey):
		e.Kind, detail = AuthRequired, errNoSSHKey
	case errors.Is(all, transport.ErrAuthenticationRequired):
		e.Kind, detail = authKind(creds), transport.ErrAuthenticationRequired
		e.Status = httpStatus(rawURL, http.StatusUnauthorized)
	case errors.Is(all, transport.ErrAuthorizationFailed):
		e.Kind, detail = authKind(creds), transport.ErrAuthorizationFailed
		e.Status = httpStatus(rawURL, http.StatusForbidden)
	case errors.Is(all, transport.ErrRepositoryNotFound):
		e.Kind, detail = RepoNotFound, transport.ErrRepositoryNotFound
		e.Status = httpStatus(rawURL, http.StatusNotFound)
	case errors.Is(all, plumbing.ErrReferenceNotFound):
		e.Kind, detail = BranchNotFound, plumbing.ErrReferenceNotFound
	case errors.As(all, &refErr):
		e.Kind, detail = BranchNotFound, refErr
	case errors.Is(all, transport.ErrEmptyRemoteRepository):
		e.Kind, detail = BranchNotFound, transport.ErrEmptyRemoteRepository
	case errors.As(all, &httpErr):
		e.Status = httpErr.StatusCode()
		detail = httpErr
	case isSSHAuthFailure(all):
		e.Kind = AuthFailed
	}
	if e.Kind == netclass.Proxy && a.Proxy != "" {
		e.Proxy = redactProxy(a.Proxy)
	}
	if !isSentinel(detail) {
		e.detail = scrub(errtext.OneLine(detail.Error()), a, rawURL)
	}
	return e
}

// firstOf returns the first of targets that err wraps.
func firstOf(err error, targets ...error) error {
	for _, t := range targets {
		if errors.Is(err, t) {
			return t
		}
	}
	return err
}

// hostKeyKind tells an unknown host from a known host with other keys.
func hostKeyKind(err error) Kind {
	var keyErr *knownhosts.KeyError
	var revErr *knownhosts.RevokedError
	if errors.As(err, &revErr) || (errors.As(err, &keyErr) && len(keyErr.Want) > 0) {
		return HostKeyMismatch
	}
	return HostKeyUnknown
}

func newHintContext(a Auth) hintContext {
	h := hintContext{
		knownHosts: a.KnownHosts != nil, ca: len(a.CAData) > 0, caReplaces: len(a.CAData) > 0 && a.CAReplacesSystemRoots,
		clientCert: len(a.TLSClientCert) > 0 || !a.TLSClientKey.IsEmpty(), repoProxy: a.Proxy != "",
	}
	if h.clientCert {
		_, err := tls.X509KeyPair(a.TLSClientCert, []byte(a.TLSClientKey.Reveal()))
		h.clientCertBad = err != nil
	}
	return h
}

// isSentinel reports whether err is one of go-git's bare sentinels, whose
// text only repeats the kind's phrase.
func isSentinel(err error) bool {
	for _, s := range []error{transport.ErrAuthenticationRequired, transport.ErrAuthorizationFailed,
		transport.ErrRepositoryNotFound, plumbing.ErrReferenceNotFound} {
		if err == s {
			return true
		}
	}
	return false
}

// withInner joins err with the errors inside go-git's PermanentError and
// UnexpectedError, which do not implement Unwrap.
func withInner(err error) error {
	errs := []error{err}
	for cur := err; ; {
		var p *plumbing.PermanentError
		var u *plumbing.UnexpectedError
		switch {
		case errors.As(cur, &p) && p.Err != nil:
			cur = p.Err
		case errors.As(cur, &u) && u.Err != nil:
			cur = u.Err
		default:
			return errors.Join(errs...)
		}
		errs = append(errs, cur)
	}
}

func authKind(creds bool) Kind {
	if creds {
		return AuthFailed
	}
	return AuthRequired
}

// httpStatus is status for HTTP(S) URLs, where go-git's sentinel errors
// stand for exactly one status, and 0 otherwise.
func httpStatus(rawURL string, status int) int {
	l := strings.ToLower(strings.TrimSpace(rawURL))
	if strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") {
		return status
	}
	return 0
}

// isSSHAuthFailure is the one documented text match (see classify).
func isSSHAuthFailure(err error) bool {
	return strings.Contains(err.Error(), "ssh: unable to authenticate")
}

// scrub removes every secret in use (3 characters or more), and the URL's
// userinfo, from a detail text, in case a server or library echoed one.
func scrub(s string, a Auth, rawURL string) string {
	secrets := []string{a.Password.Reveal(), a.SSHKeyPassphrase.Reveal(), urlPassword(rawURL), urlPassword(a.Proxy), urlUsername(a.Proxy)}
	if isHTTPURL(rawURL) {
		// An HTTPS user name may be a token; an SSH one ("git") is a login.
		secrets = append(secrets, urlUsername(rawURL))
	}
	for _, key := range []updater.Secret{a.SSHPrivateKey, a.TLSClientKey} {
		for _, line := range strings.Split(key.Reveal(), "\n") {
			secrets = append(secrets, strings.TrimSpace(line))
		}
	}
	kept := secrets[:0]
	for _, sec := range secrets {
		if !isPEMBoundary(sec) {
			kept = append(kept, sec)
		}
	}
	return errtext.Scrub(s, kept...)
}

func isPEMBoundary(line string) bool { return strings.HasPrefix(line, "-----") }

// GoString prints like Error, so %#v cannot reach Err's unscrubbed text.
func (e *Error) GoString() string { return "gitsource.Error{" + e.Error() + "}" }
