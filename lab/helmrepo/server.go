// Package helmrepo runs a classic Helm chart repository on loopback for
// tests and the lab: GET <repo>/index.yaml and the chart archives it lists,
// as `helm repo index` lays them out and ChartMuseum, Harbor's chartrepo,
// Artifactory and GitHub Pages serve them.
//
// It has the options users meet in the field: HTTP basic authentication,
// HTTPS with a self-signed CA (Server.CAPEM), a required TLS client
// certificate, a repository below a path (https://host/charts/stable),
// relative or absolute chart URLs, and chart URLs on another server. Every
// request is recorded (without its password) so tests can prove which
// credentials a client sent where.
//
// Build makes valid chart archives (.tgz) in Go, without the helm binary.
package helmrepo

import (
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/imgupd/imgupd/lab/loopback"
)

// Server is a running chart repository. Its exported fields are set by
// Start and must not be changed.
type Server struct {
	// URL is the server root: "http://127.0.0.1:PORT" or "https://...".
	URL string
	// Host is "127.0.0.1:PORT".
	Host string
	// RepoURL is the repository URL, URL plus the WithPrefix path: what an
	// Application's spec.source.repoURL holds.
	RepoURL string
	// CAPEM is the PEM certificate that signs the server's TLS
	// certificate (nil without WithTLS): what argocd-tls-certs-cm holds.
	CAPEM []byte
	// ClientCertPEM and ClientKeyPEM are a client certificate and key the
	// server accepts (nil without WithClientCertAuth): what a repository
	// Secret's tlsClientCertData and tlsClientCertKey hold.
	ClientCertPEM []byte
	ClientKeyPEM  []byte

	cfg  config
	srv  *http.Server
	done chan error
	once sync.Once

	mu       sync.Mutex
	entries  []indexEntry
	files    map[string][]byte
	index    []byte // SetIndex override; nil: generated
	handlers map[string]http.Handler
	requests []Request
}

// Option configures a Server.
type Option func(*config)

type config struct {
	tls        bool
	clientCert bool
	user, pass string
	basic      bool
	prefix     string
	absolute   bool
	errorLog   *log.Logger
}

// WithTLS serves HTTPS with a freshly generated self-signed certificate
// for 127.0.0.1 and localhost; Server.CAPEM holds it.
func WithTLS() Option { return func(c *config) { c.tls = true } }

// WithClientCertAuth serves HTTPS (it implies WithTLS) and requires a TLS
// client certificate signed by a fresh client CA; Server.ClientCertPEM and
// ClientKeyPEM hold one that passes.
func WithClientCertAuth() Option { return func(c *config) { c.tls, c.clientCert = true, true } }

// WithBasicAuth requires HTTP basic credentials on every request; others
// get 401 with `WWW-Authenticate: Basic realm="helmrepo"`.
func WithBasicAuth(user, pass string) Option {
	return func(c *config) { c.basic, c.user, c.pass = true, user, pass }
}

// WithPrefix serves the repository below a path ("/charts/stable"):
// index.yaml is at <prefix>/index.yaml and RepoURL ends with the prefix.
func WithPrefix(p string) Option {
	return func(c *config) { c.prefix = "/" + strings.Trim(p, "/") }
}

// WithAbsoluteURLs writes absolute chart URLs into index.yaml
// (https://127.0.0.1:PORT/<prefix>/charts/x-1.0.0.tgz), as ChartMuseum
// and Artifactory do; by default they are relative to the repository
// ("charts/x-1.0.0.tgz"), as `helm repo index` writes them.
func WithAbsoluteURLs() Option { return func(c *config) { c.absolute = true } }

// WithErrorLog sets the logger for the HTTP server's own errors (TLS
// handshake failures and the like). By default they are discarded.
func WithErrorLog(l *log.Logger) Option { return func(c *config) { c.errorLog = l } }

// Request is one request the server received. The password is never kept.
type Request struct {
	Method string
	Path   string
	// Authorization reports whether the request carried an Authorization
	// header at all.
	Authorization bool
	// User is the basic-auth user name sent, "" if none.
	User string
}

// Start serves an empty repository on a free loopback port. Close it when
// done.
func Start(opts ...Option) (*Server, error) {
	s := &Server{files: map[string][]byte{}, handlers: map[string]http.Handler{}, done: make(chan error, 1)}
	for _, o := range opts {
		o(&s.cfg)
	}
	if s.cfg.prefix == "/" {
		s.cfg.prefix = ""
	}
	if s.cfg.errorLog == nil {
		s.cfg.errorLog = log.New(io.Discard, "", 0)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("helmrepo: listen: %w", err)
	}
	s.Host = ln.Addr().String()
	s.URL = "http://" + s.Host
	if s.cfg.tls {
		tc, err := s.tlsConfig()
		if err != nil {
			ln.Close()
			return nil, err
		}
		ln = tls.NewListener(ln, tc)
		s.URL = "https://" + s.Host
	}
	s.RepoURL = s.URL + s.cfg.prefix
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second, ErrorLog: s.cfg.errorLog}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// tlsConfig makes the server certificate and, with WithClientCertAuth, the
// client certificate the server requires.
func (s *Server) tlsConfig() (*tls.Config, error) {
	cert, caPEM, err := loopback.SelfSigned("helmrepo")
	if err != nil {
		return nil, fmt.Errorf("helmrepo: certificate: %w", err)
	}
	s.CAPEM = caPEM
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if s.cfg.clientCert {
		certPEM, keyPEM, err := clientCertificate()
		if err != nil {
			return nil, fmt.Errorf("helmrepo: client certificate: %w", err)
		}
		s.ClientCertPEM, s.ClientKeyPEM = certPEM, keyPEM
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(certPEM)
		tc.ClientCAs, tc.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return tc, nil
}

// Close stops the server and closes every open connection.
func (s *Server) Close() {
	s.once.Do(func() {
		_ = s.srv.Close()
		if err := <-s.done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.cfg.errorLog.Printf("helmrepo: serve: %v", err)
		}
	})
}

// Handle serves path (absolute, e.g. "/stable/index.yaml") with h instead
// of the repository, after authentication; for broken or endless answers.
func (s *Server) Handle(path string, h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[path] = h
}

// Requests returns the requests received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ResetRequests forgets the requests received so far.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	user, pass, hasBasic := r.BasicAuth()
	s.mu.Lock()
	s.requests = append(s.requests, Request{
		Method: r.Method, Path: r.URL.Path, Authorization: r.Header.Get("Authorization") != "", User: user,
	})
	h := s.handlers[r.URL.Path]
	s.mu.Unlock()

	if s.cfg.basic && !(hasBasic && s.credsMatch(user, pass)) {
		w.Header().Set("WWW-Authenticate", `Basic realm="helmrepo"`)
		http.Error(w, "401 Unauthorized", http.StatusUnauthorized)
		return
	}
	if h != nil {
		h.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "405 Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == s.cfg.prefix+"/index.yaml" {
		body, err := s.indexYAML()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/x-yaml")
		_, _ = w.Write(body)
		return
	}
	s.mu.Lock()
	body, ok := s.files[r.URL.Path]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/gzip")
	_, _ = w.Write(body)
}

func (s *Server) credsMatch(u, p string) bool {
	uok := subtle.ConstantTimeCompare([]byte(u), []byte(s.cfg.user)) == 1
	pok := subtle.ConstantTimeCompare([]byte(p), []byte(s.cfg.pass)) == 1
	return uok && pok
}
