// Package labregistry runs a real OCI distribution registry in-process, on
// loopback, for tests, benchmarks and the embedded demo lab.
//
// It wraps go-containerregistry's pkg/registry (a complete in-memory
// registry) with the things users meet in the field and the plain registry
// lacks: basic or token (Bearer) authentication, TLS with a self-signed CA,
// injected failures per repository (403, 429 with Retry-After, slow
// answers), and tag-list pagination with Link headers. Every request that
// reaches the server is counted by kind, so callers can prove how many
// requests a client made.
package labregistry

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"time"

	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"

	"github.com/imgupd/imgupd/lab/loopback"
)

// Server is a running lab registry. Its exported fields are set by Start
// and must not be changed.
type Server struct {
	// URL is the registry API root: "http://127.0.0.1:PORT", or
	// "https://127.0.0.1:PORT" with WithTLS.
	URL string
	// Host is "127.0.0.1:PORT", the registry part of image references.
	Host string
	// CAPEM is the PEM certificate that signs the server's TLS certificate
	// (nil without WithTLS). Give it to clients as their extra root CA.
	CAPEM []byte

	cfg     config
	inner   http.Handler // the unwrapped registry: pushes go here directly
	token   string
	counter requestCounter
	http    *loopback.Server
	lazy    lazyRepos // PushLazy's images not pushed yet
}

// Option configures a Server.
type Option func(*config)

type config struct {
	tls        bool
	authMode   authMode
	user, pass string
	behaviours map[string]Behaviour
	pageSize   int
	errorLog   *log.Logger
}

// WithTLS serves HTTPS with a freshly generated self-signed certificate for
// 127.0.0.1 and localhost; Server.CAPEM holds it.
func WithTLS() Option { return func(c *config) { c.tls = true } }

// WithBasicAuth requires HTTP basic credentials on every /v2/ request; a
// request without them (or with others) gets 401 with
// `WWW-Authenticate: Basic realm="labregistry"`.
func WithBasicAuth(user, pass string) Option {
	return func(c *config) { c.authMode, c.user, c.pass = authBasic, user, pass }
}

// WithTokenAuth requires a Bearer token on every /v2/ request, as Docker
// Hub, GHCR and Harbor do. Requests without one get 401 with
// `WWW-Authenticate: Bearer realm="<URL>/token",service="labregistry"`;
// GET /token with these basic credentials returns the token.
func WithTokenAuth(user, pass string) Option {
	return func(c *config) { c.authMode, c.user, c.pass = authToken, user, pass }
}

// WithRepoBehaviour injects a failure or a delay into requests for one
// repository (after authentication succeeded). See Behaviour.
func WithRepoBehaviour(repo string, b Behaviour) Option {
	return func(c *config) {
		if c.behaviours == nil {
			c.behaviours = map[string]Behaviour{}
		}
		c.behaviours[repo] = b
	}
}

// WithPageSize caps tag-list pages at n tags, whatever n the client asks
// for; while more tags remain the answer carries
// `Link: </v2/<repo>/tags/list?last=X&n=N>; rel="next"`. Without it pages
// are only as small as the client's n (the server paginates either way).
func WithPageSize(n int) Option { return func(c *config) { c.pageSize = n } }

// WithErrorLog sets the logger for the HTTP server's own errors (TLS
// handshake failures and the like). By default they are discarded.
func WithErrorLog(l *log.Logger) Option { return func(c *config) { c.errorLog = l } }

// Start starts a registry on 127.0.0.1 on a free port. Close it when done.
func Start(opts ...Option) (*Server, error) {
	s := &Server{}
	for _, o := range opts {
		o(&s.cfg)
	}
	if s.cfg.errorLog == nil {
		s.cfg.errorLog = log.New(io.Discard, "", 0)
	}
	s.inner = ggcrregistry.New(ggcrregistry.Logger(log.New(io.Discard, "", 0)))

	if s.cfg.authMode == authToken {
		tok, err := randomToken()
		if err != nil {
			return nil, fmt.Errorf("labregistry: token: %w", err)
		}
		s.token = tok
	}

	srv, err := loopback.Start("labregistry", s.cfg.tls, s.handler(), s.cfg.errorLog)
	if err != nil {
		return nil, err
	}
	s.http, s.URL, s.Host, s.CAPEM = srv, srv.URL, srv.Host, srv.CAPEM
	return s, nil
}

// Close stops the server and closes every open connection, including
// requests held by a Behaviour delay.
func (s *Server) Close() { s.http.Close() }

// handler is the request pipeline: count, authenticate, inject the
// repository's behaviour, paginate tag lists, then the real registry.
func (s *Server) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		done := s.counter.begin(r)
		defer done()

		if r.URL.Path == "/token" && s.cfg.authMode == authToken {
			s.serveToken(w, r)
			return
		}
		if !strings.HasPrefix(r.URL.Path, "/v2/") && r.URL.Path != "/v2" {
			http.NotFound(w, r)
			return
		}
		if !s.authorized(w, r) {
			return
		}
		repo, kind := splitPath(r.URL.Path)
		if b, ok := s.cfg.behaviours[repo]; ok && b.applies(kind) && s.readsTags(r, repo, kind, b.Tags) {
			if b.serve(w, r) {
				return
			}
		}
		if kind == kindTags && r.Method == http.MethodGet {
			s.serveTags(w, r, repo)
			return
		}
		if kind == kindManifest {
			if err := s.materialize(r, repo); err != nil {
				writeError(w, http.StatusInternalServerError, "UNKNOWN", err.Error())
				return
			}
		}
		s.inner.ServeHTTP(w, r)
	})
}

// splitPath returns the repository and the kind of a /v2/ request path.
func splitPath(p string) (repo string, k kind) {
	rest, ok := strings.CutPrefix(p, "/v2/")
	if !ok || rest == "" {
		return "", kindPing
	}
	if r, ok := strings.CutSuffix(rest, "/tags/list"); ok {
		return r, kindTags
	}
	for _, m := range []struct {
		sep string
		k   kind
	}{{"/manifests/", kindManifest}, {"/blobs/", kindBlob}, {"/referrers/", kindReferrers}} {
		if i := strings.LastIndex(rest, m.sep); i >= 0 {
			return rest[:i], m.k
		}
	}
	return "", kindOther
}

// sleepCtx waits d or until ctx is done; it reports whether d passed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
