// Package registry reads what the diagnosis needs from container
// registries: whether the API answers, the tags of a repository, and per
// tag the manifest digest, platforms and build dates. It is built on
// go-containerregistry and decides nothing; failures are classified into
// *Error values with a Kind and a Hint for the on-call engineer.
package registry

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"golang.org/x/time/rate"

	"github.com/imgupd/imgupd/internal/errtext"
	"github.com/imgupd/imgupd/internal/flight"
	"github.com/imgupd/imgupd/internal/hostfail"
	"github.com/imgupd/imgupd/internal/lru"
)

// Target is one repository on one registry, with how to reach it.
type Target struct {
	// APIURL is the registry API root: "https://ghcr.io". An http:// URL
	// means plain HTTP.
	APIURL string
	// Repository is the path inside the registry: "library/nginx".
	Repository string
	// Insecure skips TLS certificate verification.
	Insecure bool
	// Username and Password are basic credentials, also used to get a
	// Bearer token when the registry asks for one. Both empty means
	// anonymous.
	Username, Password string
	// CAData is an optional PEM bundle of extra root CAs.
	CAData []byte
	// Limit is the registry's requests per second (registries.conf
	// limit:), shared by every target on the same host of the Client; 0 is
	// unlimited.
	Limit float64
	// Proxy, when set, is the HTTP(S) proxy every request goes through
	// (Image Updater's proxy for this registry, to probe its path); nil
	// leaves the client's transport as it is (its own environment proxy).
	Proxy *url.URL
}

// Option configures a Client.
type Option func(*Client)

// WithTransport sets the base transport under authentication (for a proxy
// or tests; default remote.DefaultTransport, which honours HTTPS_PROXY and
// NO_PROXY). If it is an *http.Transport, a target with Insecure or CAData
// gets a clone with those TLS settings; any other RoundTripper is used as
// is and must handle TLS itself.
func WithTransport(rt http.RoundTripper) Option { return func(c *Client) { c.base = rt } }

// WithConcurrency bounds how many tags Metadata reads at once across all
// calls on the Client (default 8). Each tag's requests are sequential, so
// this also bounds requests in flight.
func WithConcurrency(n int) Option {
	return func(c *Client) {
		if n > 0 {
			c.concurrency = n
		}
	}
}

// WithRateLimit caps the requests per second of the whole Client, like
// registries.conf's `limit:` (0, the default, is unlimited).
func WithRateLimit(rps float64) Option { return func(c *Client) { c.rps = rps } }

// WithUserAgent sets the User-Agent of every request.
func WithUserAgent(s string) Option { return func(c *Client) { c.userAgent = s } }

// Client reads registries. It is safe for concurrent use. Tag lists and
// tag→digest answers are never cached: every ListTags lists again and every
// Metadata call GETs each tag's manifest, so a tag pushed a second ago is
// seen. What it keeps across calls is what does not go stale, bounded,
// least recently used dropped: per target, the authenticated transport (so
// the /v2/ handshake and token fetch happen once; MaxSessions,
// MaxSessionBytes); per registry host with a limit, its rate limiter
// (MaxHostLimiters); per manifest digest, the platform and build date of
// the image, per config digest the same (MaxDigests each, MaxDigestBytes):
// content addressed, so never stale.
type Client struct {
	base        http.RoundTripper
	concurrency int
	rps         float64
	userAgent   string
	// maxTags and maxTagBytes bound one tag list (WithTagListLimits).
	maxTags     int
	maxTagBytes int64

	sem     chan struct{}
	limiter *rate.Limiter
	stats   stats

	mu       sync.Mutex
	sessions *lru.Cache[string, *session]
	hosts    *lru.Cache[string, *rate.Limiter] // per registry host, from Target.Limit

	images  flight.Group[imageInfo]  // manifest digest → platform, created
	configs flight.Group[configInfo] // config digest → platform, created
}

// Bounds of what a Client keeps across calls. Targets (repositories with
// their credentials and CA bundles) and digests come from the cluster and
// the registries, so nothing grows with what imgupd has ever seen.
const (
	// MaxSessions and MaxSessionBytes bound the targets whose handshake is
	// kept; a session's bytes are its target's fields (a CA bundle counts
	// twice: the PEM and its pool) plus a flat 4 KiB.
	MaxSessions     = 1024
	MaxSessionBytes = 16 << 20
	// MaxHostLimiters bounds the registry hosts whose rate limiter is kept.
	MaxHostLimiters = 256
	// MaxDigests and MaxDigestBytes bound each of the two digest caches
	// (image manifests, configs); an entry's bytes are its digest, its
	// platform's strings and a flat 160.
	MaxDigests     = 8192
	MaxDigestBytes = 4 << 20
)

func sessionCost(_ string, s *session) int64 {
	t := s.target
	return 4<<10 + int64(len(t.APIURL)+len(t.Repository)+len(t.Username)+len(t.Password)+2*len(t.CAData))
}

func digestCost(key string, i imageInfo) int64 {
	return 160 + int64(len(key)+len(i.platform.OS)+len(i.platform.Arch)+len(i.platform.Variant))
}

// New returns a Client.
func New(opts ...Option) *Client {
	c := &Client{concurrency: 8, maxTags: DefaultMaxTags, maxTagBytes: DefaultMaxTagListBytes,
		sessions: lru.New(MaxSessions, MaxSessionBytes, sessionCost),
		hosts:    lru.New[string, *rate.Limiter](MaxHostLimiters, 0, nil)}
	c.sessions.OnEvict = func(_ string, s *session) { c.closeIdle(s) }
	// A failed metadata read is tried again by the next caller: one
	// timeout must not cost every later report its metadata.
	c.images.ForgetErrors, c.configs.ForgetErrors = true, true
	c.images.MaxEntries, c.images.MaxBytes, c.images.Size = MaxDigests, MaxDigestBytes, digestCost
	c.configs.MaxEntries, c.configs.MaxBytes, c.configs.Size = MaxDigests, MaxDigestBytes, digestCost
	for _, o := range opts {
		o(c)
	}
	if c.base == nil {
		c.base = remote.DefaultTransport
	}
	c.sem = make(chan struct{}, c.concurrency)
	if c.rps > 0 {
		c.limiter = rate.NewLimiter(rate.Limit(c.rps), max(1, int(c.rps)))
	}
	return c
}

// session is everything per target: the parsed repository, the counting
// base transport, and (once the /v2/ handshake succeeded) go-containerregistry's
// authenticated transport and puller.
type session struct {
	target Target
	repo   name.Repository
	apiURL *url.URL
	// base is counting (counts and rate limits requests, TLS as
	// configured) under hostfail: within a scope in the context, a
	// host's connection failure is met once for these settings.
	base     http.RoundTripper
	counting *countingTransport

	mu     sync.Mutex
	auth   http.RoundTripper // *transport.Wrapper after the handshake
	puller *remote.Puller
}

func (c *Client) session(t Target) (*session, error) {
	key := t.Key()
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.sessions.Get(key); ok {
		return s, nil
	}
	s, err := c.newSession(t)
	if err != nil {
		return nil, err
	}
	// A session too large to keep serves this call only.
	c.sessions.Add(key, s)
	return s, nil
}

// Key identifies a target, credentials, trust and proxy included, without
// keeping its secrets readable: two targets with equal keys get the same
// answers from the registry.
func (t Target) Key() string {
	h := sha256.New()
	proxy := ""
	if t.Proxy != nil {
		proxy = t.Proxy.String()
	}
	for _, f := range []string{t.APIURL, t.Repository, fmt.Sprint(t.Insecure), t.Username, t.Password, string(t.CAData), proxy} {
		fmt.Fprintf(h, "%d:%s;", len(f), f)
	}
	return string(h.Sum(nil))
}

func (c *Client) newSession(t Target) (*session, error) {
	u, err := url.Parse(strings.TrimSuffix(t.APIURL, "/"))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("api url %q: want http(s)://host[:port]", redactURL(t.APIURL))
	}
	u.User = nil // credentials come from Username/Password only
	var nopts []name.Option
	if u.Scheme == "http" {
		nopts = append(nopts, name.Insecure)
	}
	reg, err := name.NewRegistry(u.Host, nopts...)
	if err != nil {
		return nil, fmt.Errorf("registry %q: %w", u.Host, err)
	}
	// An empty repository is fine for Ping; ListTags and Metadata refuse it.
	repo := reg.Repo()
	if path := strings.Trim(t.Repository, "/"); path != "" {
		if repo, err = name.NewRepository(u.Host+"/"+path, nopts...); err != nil {
			return nil, fmt.Errorf("repository %q on %s: %w", t.Repository, u.Host, err)
		}
	}
	base, err := c.baseFor(t)
	if err != nil {
		return nil, err
	}
	ct := &countingTransport{
		inner:       base,
		host:        u.Host,
		scheme:      u.Scheme,
		stats:       &c.stats,
		limiter:     c.limiter,
		hostLimiter: c.hostLimiter(u.Host, t.Limit),
	}
	return &session{
		target:   t,
		repo:     repo,
		apiURL:   u,
		base:     hostfail.Transport(ct, connectionID(t)),
		counting: ct,
	}, nil
}

// connectionID is what, besides the host, decides whether a connection to
// t's registry can be made: its TLS trust and its proxy (never its
// credentials).
func connectionID(t Target) string {
	h := sha256.New()
	proxy := ""
	if t.Proxy != nil {
		proxy = t.Proxy.String()
	}
	for _, f := range []string{fmt.Sprint(t.Insecure), string(t.CAData), proxy} {
		fmt.Fprintf(h, "%d:%s;", len(f), f)
	}
	return "registry\x00" + string(h.Sum(nil))
}

// hostLimiter is the limiter of a registry host with a limit (called with
// c.mu held, from session).
func (c *Client) hostLimiter(host string, limit float64) *rate.Limiter {
	if limit <= 0 {
		return nil
	}
	if l, ok := c.hosts.Get(host); ok {
		return l
	}
	l := rate.NewLimiter(rate.Limit(limit), max(1, int(limit)))
	c.hosts.Add(host, l)
	return l
}

// baseFor applies the target's TLS settings to the client's base transport.
func (c *Client) baseFor(t Target) (http.RoundTripper, error) {
	ht, ok := c.base.(*http.Transport)
	if !ok {
		return c.base, nil
	}
	if !t.Insecure && len(t.CAData) == 0 && t.Proxy == nil {
		return ht, nil // shared: connections are reused across Clients
	}
	ht = ht.Clone()
	if t.Proxy != nil {
		ht.Proxy = http.ProxyURL(t.Proxy)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if ht.TLSClientConfig != nil {
		cfg = ht.TLSClientConfig.Clone()
	}
	if t.Insecure {
		cfg.InsecureSkipVerify = true //nolint:gosec // the registry is configured insecure: true, as in Image Updater
	}
	if len(t.CAData) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(t.CAData) {
			return nil, errors.New("ca data: no PEM certificate found")
		}
		cfg.RootCAs = pool
	}
	ht.TLSClientConfig = cfg
	return ht, nil
}

// authenticated returns go-containerregistry's authenticated transport and
// puller for the session, doing the /v2/ handshake (and token fetch) the
// first time. A failed handshake is not cached.
func (s *session) authenticated(ctx context.Context, userAgent string) (http.RoundTripper, *remote.Puller, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.auth != nil {
		return s.auth, s.puller, nil
	}
	var auth authn.Authenticator = authn.Anonymous
	if s.target.Username != "" || s.target.Password != "" {
		auth = &authn.Basic{Username: s.target.Username, Password: s.target.Password}
	}
	var base http.RoundTripper = s.base
	if userAgent != "" {
		base = transport.NewUserAgent(base, userAgent)
	}
	rt, err := transport.NewWithContext(ctx, s.repo.Registry, auth, base, []string{s.repo.Scope(transport.PullScope)})
	if err != nil {
		return nil, nil, err
	}
	// rt is a *transport.Wrapper: remote uses it as is, without its retry
	// layer (Image Updater does not retry within a cycle either) and
	// without pinging again.
	p, err := remote.NewPuller(remote.WithTransport(rt))
	if err != nil {
		return nil, nil, err
	}
	s.auth, s.puller = rt, p
	return rt, p, nil
}

// CloseIdleConnections closes the idle connections of the transports the
// Client made for targets with their own TLS settings (Insecure, CAData).
// The shared base transport is left alone.
func (c *Client) CloseIdleConnections() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sessions.Each(func(_ string, s *session) { c.closeIdle(s) })
}

// closeIdle closes the idle connections of a session's own transport.
func (c *Client) closeIdle(s *session) {
	if s.counting != nil && s.counting.inner != c.base {
		if ci, ok := s.counting.inner.(interface{ CloseIdleConnections() }); ok {
			ci.CloseIdleConnections()
		}
	}
}

// fail classifies err for op on this session's target, adds the Retry-After
// seen by the request (if any) and scrubs the target's credentials.
func (s *session) fail(op string, err error, ra *retryAfterRecorder) *Error {
	e := Classify(op, err)
	e.Registry, e.Repository = s.repo.RegistryStr(), s.repo.RepositoryStr()
	if ra != nil && e.Kind == RateLimited && e.RetryAfter == 0 {
		e.RetryAfter = ra.get()
	}
	e.scrub(s.target.Username, s.target.Password)
	return e
}

// Ping is Image Updater's check before listing tags: GET <api>/v2/ must
// answer 200 or 401 (a challenge). Any other answer is a NotRegistry error
// (429 is RateLimited); network failures are classified.
func (c *Client) Ping(ctx context.Context, t Target) error {
	s, err := c.session(t)
	if err != nil {
		return badTarget("ping", err)
	}
	ctx, ra := withRetryAfter(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.apiURL.Scheme+"://"+s.apiURL.Host+"/v2/", nil)
	if err != nil {
		return s.fail("ping", err, ra)
	}
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	resp, err := (&http.Client{Transport: s.base}).Do(req)
	if err != nil {
		return s.fail("ping", err, ra)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch resp.StatusCode {
	case http.StatusOK, http.StatusUnauthorized:
		return nil
	}
	kind := NotRegistry
	if resp.StatusCode == http.StatusTooManyRequests {
		kind = RateLimited
	}
	e := &Error{Kind: kind, Op: "ping", Registry: s.repo.RegistryStr(), Status: resp.StatusCode,
		RetryAfter: ra.get(), detail: fmt.Sprintf("GET %s://%s/v2/ answered %s", s.apiURL.Scheme, s.apiURL.Host, resp.Status),
		Err: fmt.Errorf("GET /v2/: unexpected status %d", resp.StatusCode)}
	e.scrub(t.Username, t.Password)
	return e
}

func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "<unparsable>"
	}
	return u.Redacted()
}

// badTarget is the error for a Target that cannot be parsed.
func badTarget(op string, err error) *Error {
	return &Error{Kind: Other, Op: op, Err: err, detail: errtext.OneLine(err.Error())}
}

// repoSession is session for operations on a repository.
func (c *Client) repoSession(op string, t Target) (*session, *Error) {
	if strings.Trim(t.Repository, "/") == "" {
		return nil, badTarget(op, errors.New("no repository given"))
	}
	s, err := c.session(t)
	if err != nil {
		return nil, badTarget(op, err)
	}
	return s, nil
}
