package helmchart

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/imgupd/imgupd/internal/flight"
	"github.com/imgupd/imgupd/internal/hostfail"
	"github.com/imgupd/imgupd/internal/netclass"
)

// Chart is the values.yaml of the chart version a source resolves to.
type Chart struct {
	// Name is the chart name: spec.source.chart, or for an oci://
	// artifact its org.opencontainers.image.title annotation or last
	// repository path element.
	Name string `json:"name"`
	// Version is the version deployed: the index entry's version, the OCI
	// tag with "_" mapped back to "+", or an oci:// digest.
	Version string `json:"version"`
	// Values is values.yaml as stored in the chart (a leading UTF-8 BOM
	// removed, as Helm's loader does).
	Values []byte `json:"values"`
	// ValuesPath is where values.yaml was read inside the archive or
	// layer ("app/values.yaml").
	ValuesPath string `json:"valuesPath"`
	// Kind is KindHelmRepo, KindOCIHelm or KindOCIArtifact.
	Kind string `json:"kind"`
	// Ref is what was fetched, without credentials, userinfo or query:
	// the archive URL, or "oci://<registry>/<repository>:<tag>".
	Ref string `json:"ref"`
	// Digest is the OCI manifest digest ("" for classic repositories).
	Digest string `json:"digest,omitempty"`
}

func (c *Chart) clone() *Chart {
	cp := *c
	cp.Values = append([]byte(nil), c.Values...)
	return &cp
}

// Defaults of New.
const (
	DefaultTimeout  = 30 * time.Second
	DefaultMaxBytes = 64 << 20
)

// DefaultOCILayerMediaTypes is the repo-server's default
// --oci-layer-media-types (ARGOCD_REPO_SERVER_OCI_LAYER_MEDIA_TYPES): the
// only layer media types an oci:// artifact may hold. Each call returns a
// new slice.
func DefaultOCILayerMediaTypes() []string {
	return []string{
		"application/vnd.oci.image.layer.v1.tar",
		"application/vnd.oci.image.layer.v1.tar+gzip",
		helmChartLayer,
	}
}

// Client reads chart values. It is safe for concurrent use, and it keeps
// no chart between calls: every Values call reads the repository, so a
// constraint such as 1.* resolves to the newest version published now.
// Share gives a Shared, made per diagnosis or fleet scan, that reads each
// chart once for everyone in it.
type Client struct {
	base       *http.Transport
	timeout    time.Duration
	maxBytes   int64
	layerTypes []string
}

// Option configures a Client.
type Option func(*Client)

// WithTransport sets the base transport (proxy, dialer, timeouts). Each
// Values call uses a clone of it whose TLSClientConfig comes from the Auth,
// as Argo CD builds one per repository; that is why this takes an
// *http.Transport rather than any RoundTripper or *http.Client. The default
// is a clone of http.DefaultTransport (proxy from the environment).
func WithTransport(t *http.Transport) Option { return func(c *Client) { c.base = t } }

// WithTimeout bounds each Values call (default DefaultTimeout; 0: only the
// caller's context).
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithMaxBytes bounds every read: index.yaml, a chart archive or layer as
// downloaded, the bytes unpacked from it, and values.yaml (default
// DefaultMaxBytes). Past it Values fails with TooLarge.
func WithMaxBytes(n int64) Option { return func(c *Client) { c.maxBytes = n } }

// WithOCILayerMediaTypes sets the layer media types an oci:// artifact may
// hold, as the repo-server's --oci-layer-media-types does (default
// DefaultOCILayerMediaTypes()).
func WithOCILayerMediaTypes(types ...string) Option {
	return func(c *Client) { c.layerTypes = append([]string(nil), types...) }
}

// New returns a Client.
func New(opts ...Option) *Client {
	c := &Client{timeout: DefaultTimeout, maxBytes: DefaultMaxBytes, layerTypes: DefaultOCILayerMediaTypes()}
	for _, o := range opts {
		o(c)
	}
	if c.base == nil {
		c.base = http.DefaultTransport.(*http.Transport).Clone()
	}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultMaxBytes
	}
	return c
}

// Values fetches the values.yaml of the chart version src resolves to, as
// Argo CD's repo-server would for the Application: the same version
// resolution, the same credentials sent to the same hosts, the same trust.
// It never writes anywhere.
//
// Every failure is an *Error (use errors.As) whose Kind says what went
// wrong and whose Hint says what to change; no error text, nor the Chart,
// contains a password, token or key.
func (c *Client) Values(ctx context.Context, src Source, auth Auth) (*Chart, error) {
	kind := Kind(src)
	ch, err := c.values(ctx, kind, src, auth)
	if err != nil {
		return nil, finish(err, kind, src, auth)
	}
	return ch, nil
}

// Shared reads each chart once for everyone in one scope, one diagnosis
// or one fleet scan: one Values per source and credentials; concurrent
// callers share one read. Failures are shared too (every caller gets the
// same *Error), except one that was its caller's own (its deadline ran
// out, it was canceled), which the next caller tries again. Make one per
// diagnosis or scan with Client.Share and drop it with the scope. Each
// caller gets its own copy of the Chart. It is safe for concurrent use.
type Shared struct {
	c      *Client
	charts flight.Group[*Chart]
}

// Share returns a new, empty scope over the Client.
func (c *Client) Share() *Shared { return &Shared{c: c} }

// Values is Client.Values, once per source and credentials in the scope.
func (s *Shared) Values(ctx context.Context, src Source, auth Auth) (*Chart, error) {
	kind := Kind(src)
	fp := auth.fingerprint()
	key := fmt.Sprintf("%s\x00%q\x00%q\x00%q\x00%q\x00%t\x00%x", kind, src.RepoURL, src.Chart, src.TargetRevision, src.Path, src.EnableOCI, fp)
	ch, err := s.charts.Do(ctx, key, func() (*Chart, error) {
		ch, err := s.c.Values(ctx, src, auth)
		if err != nil && ctx.Err() != nil {
			return nil, flight.Transient(err)
		}
		return ch, err
	})
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			// This caller's context ended while it waited for another's read.
			err = finish(err, kind, src, auth)
		}
		return nil, err
	}
	return ch.clone(), nil
}

func (c *Client) values(ctx context.Context, kind string, src Source, auth Auth) (*Chart, error) {
	if kind == "" {
		return nil, &Error{Kind: InvalidSource, Op: "source", detail: "the source has no chart and its repoURL is not oci://, so it is not a Helm chart source"}
	}
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	s, err := c.newSession(kind, auth)
	if err != nil {
		return nil, err
	}
	defer s.close()
	switch kind {
	case KindHelmRepo:
		return s.helmRepo(ctx, src)
	case KindOCIHelm:
		return s.ociHelm(ctx, src)
	}
	return s.ociArtifact(ctx, src)
}

// finish makes every failure an *Error carrying the source's context, and
// scrubs the secrets from it.
func finish(err error, kind string, src Source, auth Auth) *Error {
	var e *Error
	if !errors.As(err, &e) {
		e = classify(&Error{Op: "values"}, err, Other)
	}
	e.Source = kind
	e.auth = auth.summary()
	if e.Chart == "" {
		e.Chart = src.Chart
	}
	if e.Version == "" {
		e.Version = src.TargetRevision
	}
	e.scrub(auth.secrets())
	return e
}

// session is one Values call's transport, built from the Auth.
type session struct {
	c    *Client
	auth Auth
	tr   *http.Transport
	rt   http.RoundTripper // tr, sharing host failures within a scope
	hc   *http.Client
}

func (c *Client) newSession(kind string, auth Auth) (*session, error) {
	tr := c.base.Clone()
	// Argo CD builds no TLS configuration for insecureOCIForceHttp.
	if !(kind != KindHelmRepo && auth.PlainHTTP) {
		tc, err := auth.tlsConfig()
		if err != nil {
			return nil, &Error{Kind: netclass.TLS, Op: "tls", Err: err, detail: err.Error()}
		}
		tr.TLSClientConfig = tc
		tr.ForceAttemptHTTP2 = true
	}
	// Within a scope in the context (see hostfail), a host's connection
	// failure is met once for these TLS settings.
	rt := hostfail.Transport(tr, fmt.Sprintf("helm\x00%s\x00%t\x00%x", kind, auth.PlainHTTP, auth.fingerprint()))
	return &session{c: c, auth: auth, tr: tr, rt: rt, hc: &http.Client{Transport: rt, CheckRedirect: credentialsStayOnHost}}, nil
}

func (s *session) close() { s.tr.CloseIdleConnections() }

// userAgent is sent with every request, so server logs tell the
// diagnosis from Argo CD.
const userAgent = "imgupd-helmchart"
