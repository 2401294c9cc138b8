package gitsource

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/imgupd/imgupd/internal/hostfail"
	"github.com/imgupd/imgupd/internal/lru"
)

// DefaultTimeout bounds each operation (ls-remote, fetch, push check)
// unless WithTimeout says otherwise.
const DefaultTimeout = 60 * time.Second

// SnapshotDepth is how many commits of history a Snapshot fetches.
const SnapshotDepth = 20

var (
	errUnsupportedScheme = errors.New("only https://, http:// and SSH repository URLs are supported")
	errBadKey            = errors.New("the SSH private key cannot be parsed (wrong format or passphrase)")
	errBadCA             = errors.New("CAData holds no PEM certificate")
	errCustomTransport   = errors.New("CAData, InsecureSkipTLS, a client certificate and Proxy need the HTTP client's " +
		"Transport to be an *http.Transport")
)

// errNoSSHKey is SSH without a private key (or password), which this
// package does not attempt; it wraps transport.ErrAuthenticationRequired.
var errNoSSHKey error = noSSHKeyError{}

type noSSHKeyError struct{}

func (noSSHKeyError) Error() string {
	return "SSH without sshPrivateKey is not supported here (Argo CD 3.5 and later would try it, checking the host key " +
		"against argocd-ssh-known-hosts-cm)"
}

func (noSSHKeyError) Unwrap() error { return transport.ErrAuthenticationRequired }

// Client reads git repositories. It is safe for concurrent use, and it
// keeps no answer between calls: every LsRemote, Snapshot and CanPush asks
// the server, so a diagnosis sees the branch as it is now. Share gives a
// Shared, made per diagnosis or fleet scan, that reads each repository
// once for everyone in it. Across calls the Client keeps only the HTTP
// transports of the TLS and proxy settings in use, for their connections:
// at most MaxTransports of them and MaxTransportBytes, the least recently
// used dropped. It holds no global state: go-git's process-wide protocol
// table is not used.
type Client struct {
	base    *http.Client
	timeout time.Duration

	stats counters

	mu         sync.Mutex
	transports *lru.Cache[string, keptTransport] // by TLS and proxy settings
}

// keptTransport is a transport the Client keeps, with what it costs.
type keptTransport struct {
	tr   *http.Transport
	cost int64
}

// Bounds of the transports a Client keeps: their keys are CA bundles,
// client certificates and proxies from the cluster's Secrets, so they are
// bounded in number and in the bytes of those settings.
const (
	MaxTransports     = 32
	MaxTransportBytes = 16 << 20
)

// transportCost is what a transport for a holds: its settings, and a
// flat share for its pool and TLS state.
func transportCost(a Auth) int64 {
	return 16<<10 + int64(len(a.CAData)+len(a.TLSClientCert)+len(a.TLSClientKey.Reveal())+len(a.Proxy)+len(a.NoProxy))
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client whose Transport, Jar and
// CheckRedirect are used for HTTP(S) repositories (its Timeout is not: use
// WithTimeout). For Auth.CAData, InsecureSkipTLS, TLSClientCert or Proxy
// its Transport must be an *http.Transport (or nil), which is cloned with
// those settings (its dialer is kept).
func WithHTTPClient(c *http.Client) Option {
	return func(cl *Client) {
		if c != nil {
			cl.base = c
		}
	}
}

// WithTransport sets the HTTP round tripper, e.g. a test's.
func WithTransport(rt http.RoundTripper) Option {
	return func(cl *Client) { cl.base = &http.Client{Transport: rt} }
}

// WithTimeout bounds each operation; 0 means only the caller's context.
func WithTimeout(d time.Duration) Option { return func(cl *Client) { cl.timeout = d } }

// New returns a Client.
func New(opts ...Option) *Client {
	c := &Client{
		base:       &http.Client{},
		timeout:    DefaultTimeout,
		transports: lru.New(MaxTransports, MaxTransportBytes, func(_ string, k keptTransport) int64 { return k.cost }),
	}
	c.transports.OnEvict = func(_ string, k keptTransport) { k.tr.CloseIdleConnections() }
	for _, o := range opts {
		o(c)
	}
	return c
}

// opContext applies the operation timeout.
func (c *Client) opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout > 0 {
		return context.WithTimeout(ctx, c.timeout)
	}
	return context.WithCancel(ctx)
}

// conn is what an operation needs to open a session.
type conn struct {
	ep   *transport.Endpoint
	tr   transport.Transport
	auth transport.AuthMethod
	// creds is the Auth actually used (URL userinfo folded in).
	creds Auth
}

// connect parses rawURL and prepares the transport and auth for it.
func (c *Client) connect(op, rawURL string, a Auth) (*conn, error) {
	a = a.withURLUserinfo(rawURL)
	fail := func(err error) (*conn, error) { return nil, classify(op, rawURL, a, err) }
	ep, err := transport.NewEndpoint(strings.TrimSpace(rawURL))
	if err != nil {
		return fail(fmt.Errorf("%w: %w", errUnsupportedScheme, err))
	}
	cn := &conn{ep: ep, creds: a}
	switch ep.Protocol {
	case "http", "https":
		// Credentials travel in Auth only, never in the endpoint.
		ep.User, ep.Password = "", ""
		hc, err := c.httpClient(a)
		if err != nil {
			return fail(err)
		}
		cn.tr = githttp.NewClientWithOptions(hc, &githttp.ClientOptions{RedirectPolicy: githttp.FollowInitialRedirects})
	case "ssh":
		cn.tr = gitssh.NewClient(nil)
		if a.Proxy != "" {
			// Argo CD tunnels SSH through the repository proxy as SOCKS5
			// (NoProxy does not apply).
			if ep.Proxy, err = sshProxyOptions(a.Proxy); err != nil {
				return fail(err)
			}
		}
	default:
		return fail(fmt.Errorf("scheme %q: %w", ep.Protocol, errUnsupportedScheme))
	}
	if cn.auth, err = a.transportAuth(ep); err != nil {
		return fail(err)
	}
	if m, ok := cn.auth.(gitssh.AuthMethod); ok && c.timeout > 0 {
		cn.auth = sshDialTimeout{AuthMethod: m, timeout: c.timeout}
	}
	return cn, nil
}

// sshDialTimeout bounds the SSH connection and handshake, which go-git's
// SSH transport starts without a context. (A ClientConfig passed to
// gitssh.NewClient would replace every field of the auth's config, host
// key callback included, so the timeout is set here instead.)
type sshDialTimeout struct {
	gitssh.AuthMethod
	timeout time.Duration
}

func (a sshDialTimeout) ClientConfig() (*gossh.ClientConfig, error) {
	cfg, err := a.AuthMethod.ClientConfig()
	if err == nil && cfg.Timeout == 0 {
		cfg.Timeout = a.timeout
	}
	return cfg, err
}

// httpClient returns an HTTP client for the TLS and proxy settings of a,
// counting requests into Stats. Within a scope in the context (see
// hostfail), a host's connection failure is met once: later requests to
// that host through the same settings get it without a request.
func (c *Client) httpClient(a Auth) (*http.Client, error) {
	rt := c.base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	id := "git"
	if a.InsecureSkipTLS || len(a.CAData) > 0 || len(a.TLSClientCert) > 0 || !a.TLSClientKey.IsEmpty() || a.Proxy != "" {
		base, ok := rt.(*http.Transport)
		if !ok {
			return nil, errCustomTransport
		}
		if a.Proxy != "" {
			if _, err := parseProxy(a.Proxy); err != nil {
				return nil, err
			}
		}
		key := transportKey(a)
		c.mu.Lock()
		kept, ok := c.transports.Get(key)
		if !ok {
			tr, err := newTransport(base, a)
			if err != nil {
				c.mu.Unlock()
				return nil, err
			}
			// One too large to keep serves this call only; its idle
			// connections close after the transport's idle timeout.
			kept = keptTransport{tr: tr, cost: transportCost(a)}
			c.transports.Add(key, kept)
		}
		c.mu.Unlock()
		rt, id = kept.tr, id+key
	}
	return &http.Client{
		Transport:     hostfail.Transport(countingTransport{next: boundedTransport{next: rt}, n: &c.stats.http}, id),
		Jar:           c.base.Jar,
		CheckRedirect: c.base.CheckRedirect,
	}, nil
}

// transportKey identifies the transport settings of a; only a SHA-256 of
// the secret ones enters it, and it is never printed.
func transportKey(a Auth) string {
	h := sha256.New()
	for _, s := range []string{fmt.Sprint(a.InsecureSkipTLS, a.CAReplacesSystemRoots), string(a.CAData),
		string(a.TLSClientCert), a.TLSClientKey.Reveal(), a.Proxy, a.NoProxy} {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	return string(h.Sum(nil))
}

// newTransport clones base with the TLS and proxy settings of a, as Argo
// CD's GetRepoHTTPClient builds its transport.
func newTransport(base *http.Transport, a Auth) (*http.Transport, error) {
	tr := base.Clone()
	cfg := tr.TLSClientConfig
	if cfg == nil {
		cfg = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if len(a.CAData) > 0 {
		var pool *x509.CertPool
		if !a.CAReplacesSystemRoots {
			pool, _ = x509.SystemCertPool()
		}
		if pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(a.CAData) {
			return nil, errBadCA
		}
		cfg.RootCAs = pool
	}
	if len(a.TLSClientCert) > 0 || !a.TLSClientKey.IsEmpty() {
		// As Argo CD: the pair is offered only when the server asks, and
		// an incomplete or invalid pair is offered as no certificate.
		cert, err := tls.X509KeyPair(a.TLSClientCert, []byte(a.TLSClientKey.Reveal()))
		valid := err == nil && len(a.TLSClientCert) > 0 && !a.TLSClientKey.IsEmpty()
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			if !valid {
				return &tls.Certificate{}, nil
			}
			return &cert, nil
		}
	}
	// Image Updater skips verification for git:secret HTTPS credentials,
	// Argo CD for insecure repositories; the caller asks for the same to
	// compare verdicts.
	cfg.InsecureSkipVerify = a.InsecureSkipTLS //nolint:gosec // deliberate, documented on Auth
	tr.TLSClientConfig = cfg
	if a.Proxy != "" {
		tr.Proxy = httpProxyFunc(a.Proxy, a.NoProxy)
		tr.OnProxyConnectResponse = checkProxyConnect
	}
	return tr, nil
}

// countingTransport counts every HTTP request sent.
type countingTransport struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return t.next.RoundTrip(r)
}

// Stats counts what a Client did.
type Stats struct {
	LsRemote          int64 // LsRemote calls
	Fetches           int64 // Snapshot calls that fetched from the server
	SnapshotCacheHits int64 // Shared.Snapshot calls answered with a snapshot of their scope
	PushChecks        int64 // CanPush calls
	HTTPRequests      int64 // HTTP requests sent, redirects included
	SSHSessions       int64 // SSH sessions opened
}

// String is a one-line summary, e.g.
// "ls-remote=1 fetches=1 cache-hits=2 push-checks=0 http=3 ssh=0".
func (s Stats) String() string {
	return fmt.Sprintf("ls-remote=%d fetches=%d cache-hits=%d push-checks=%d http=%d ssh=%d",
		s.LsRemote, s.Fetches, s.SnapshotCacheHits, s.PushChecks, s.HTTPRequests, s.SSHSessions)
}

type counters struct {
	lsRemote, fetches, cacheHits, pushChecks, http, ssh atomic.Int64
}

// Stats returns the counts since New.
func (c *Client) Stats() Stats {
	return Stats{
		LsRemote: c.stats.lsRemote.Load(), Fetches: c.stats.fetches.Load(), SnapshotCacheHits: c.stats.cacheHits.Load(),
		PushChecks: c.stats.pushChecks.Load(), HTTPRequests: c.stats.http.Load(), SSHSessions: c.stats.ssh.Load(),
	}
}

// countSSH counts an SSH session for the endpoint's protocol.
func (c *Client) countSSH(ep *transport.Endpoint) {
	if ep.Protocol == "ssh" {
		c.stats.ssh.Add(1)
	}
}
