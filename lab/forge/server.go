package labforge

import (
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Server is a running fake forge on 127.0.0.1.
type Server struct {
	// URL is "http://127.0.0.1:PORT".
	URL string
	// Host is "127.0.0.1:PORT".
	Host string

	*Handler
	srv *httptest.Server
}

// Start serves a Handler for cfg on a free loopback port with
// net/http/httptest (which panics if it cannot listen). Close it when done.
func Start(cfg Config) *Server {
	h := NewHandler(cfg)
	srv := httptest.NewServer(h)
	return &Server{URL: srv.URL, Host: strings.TrimPrefix(srv.URL, "http://"), Handler: h, srv: srv}
}

// Close stops the server; requests held by Config.Delay end when their
// clients give up or the server closes their connections.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// GitHubAPI is the GitHub Enterprise Server style API base, URL + "/api/v3".
func (s *Server) GitHubAPI() string { return s.URL + "/api/v3" }

// GitLabAPI is URL + "/api/v4".
func (s *Server) GitLabAPI() string { return s.URL + "/api/v4" }

// GiteaAPI is URL + "/api/v1" (Gitea and Forgejo).
func (s *Server) GiteaAPI() string { return s.URL + "/api/v1" }

// BitbucketAPI is URL + "/2.0".
func (s *Server) BitbucketAPI() string { return s.URL + "/2.0" }

// Handler answers GitHub (under /api/v3, and at the root as
// api.github.com does), GitLab (/api/v4), Gitea/Forgejo (/api/v1) and
// Bitbucket Cloud (/2.0) API requests for one Config, and records them.
// It is safe for concurrent use.
type Handler struct {
	cfg Config

	mu       sync.Mutex
	minted   map[string]Token // GitHub App installation tokens, by value
	requests []Request
}

// NewHandler returns a Handler for cfg.
func NewHandler(cfg Config) *Handler {
	if cfg.PageSize <= 0 {
		cfg.PageSize = 10
	}
	return &Handler{cfg: cfg, minted: map[string]Token{}}
}

// Request is one request as the fake saw it. It never holds a token.
type Request struct {
	// Dialect is "github", "github-app", "gitlab", "gitea", "bitbucket",
	// or "" for paths no dialect serves.
	Dialect string
	Method  string
	// Path is the escaped path as sent ("/api/v4/projects/group%2Fproj/...").
	Path  string
	Query string
	// Auth is the authentication scheme used: "Bearer", "token", "Basic",
	// "PRIVATE-TOKEN", another Authorization scheme's name, or "" for none.
	Auth string
	// Accept and APIVersion are the Accept and X-GitHub-Api-Version
	// headers.
	Accept     string
	APIVersion string
	// Status is the answer's status.
	Status int
}

// Requests returns a copy of the requests recorded so far.
func (h *Handler) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Request(nil), h.requests...)
}

// ResetRequests forgets the recorded requests.
func (h *Handler) ResetRequests() {
	h.mu.Lock()
	h.requests = nil
	h.mu.Unlock()
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// ServeHTTP routes by path prefix to the dialect, after Config.Delay.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.EscapedPath()
	dialect, rest := "", p
	switch {
	case strings.HasPrefix(p, "/api/v3/"):
		dialect, rest = "github", strings.TrimPrefix(p, "/api/v3")
	case strings.HasPrefix(p, "/api/v4/"):
		dialect, rest = "gitlab", strings.TrimPrefix(p, "/api/v4")
	case strings.HasPrefix(p, "/api/v1/"):
		dialect, rest = "gitea", strings.TrimPrefix(p, "/api/v1")
	case strings.HasPrefix(p, "/2.0/"):
		dialect, rest = "bitbucket", strings.TrimPrefix(p, "/2.0")
	case strings.HasPrefix(p, "/repos/"), strings.HasPrefix(p, "/app/"):
		dialect = "github"
	}
	if dialect == "github" && strings.HasPrefix(rest, "/app/") {
		dialect = "github-app"
	}
	sw := &statusWriter{ResponseWriter: w}
	defer func() {
		h.mu.Lock()
		h.requests = append(h.requests, Request{Dialect: dialect, Method: r.Method, Path: p, Query: r.URL.RawQuery,
			Auth: authScheme(r), Accept: r.Header.Get("Accept"), APIVersion: r.Header.Get("X-GitHub-Api-Version"), Status: sw.status})
		h.mu.Unlock()
	}()
	if h.cfg.Delay > 0 {
		t := time.NewTimer(h.cfg.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if only := h.cfg.Only; only != "" && dialect != only && !(only == "github" && dialect == "github-app") {
		http.NotFound(sw, r)
		return
	}
	if h.discovery(sw, r, dialect, rest) {
		return
	}
	switch dialect {
	case "github":
		h.github(sw, r, rest)
	case "github-app":
		h.githubApp(sw, r, rest)
	case "gitlab":
		h.gitlab(sw, r, rest)
	case "gitea":
		h.gitea(sw, r, rest)
	case "bitbucket":
		h.bitbucket(sw, r, rest)
	default:
		http.NotFound(sw, r)
	}
}

// authScheme names the authentication a request used, never its value.
func authScheme(r *http.Request) string {
	if r.Header.Get("PRIVATE-TOKEN") != "" {
		return "PRIVATE-TOKEN"
	}
	a := r.Header.Get("Authorization")
	if a == "" {
		return ""
	}
	scheme, _, _ := strings.Cut(a, " ")
	return scheme
}

// credential is the token a request carries, by the schemes the dialect
// accepts, and the Basic user name when Basic was used.
func credential(r *http.Request, schemes ...string) (token, user string, basic bool) {
	a := r.Header.Get("Authorization")
	scheme, val, _ := strings.Cut(a, " ")
	for _, s := range schemes {
		switch {
		case s == "PRIVATE-TOKEN" && r.Header.Get("PRIVATE-TOKEN") != "":
			return r.Header.Get("PRIVATE-TOKEN"), "", false
		case s == "Basic" && strings.EqualFold(scheme, "Basic"):
			u, p, ok := r.BasicAuth()
			if ok {
				return p, u, true
			}
		case s != "PRIVATE-TOKEN" && s != "Basic" && strings.EqualFold(scheme, s):
			return strings.TrimSpace(val), "", false
		}
	}
	return "", "", false
}

// token looks up the request's token (configured or minted).
func (h *Handler) token(r *http.Request, schemes ...string) *Token {
	v, user, basic := credential(r, schemes...)
	if v == "" {
		return nil
	}
	find := func() *Token {
		for i := range h.cfg.Tokens {
			if h.cfg.Tokens[i].Value == v {
				t := h.cfg.Tokens[i]
				return &t
			}
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if t, ok := h.minted[v]; ok {
			return &t
		}
		return nil
	}
	t := find()
	if t != nil && basic && t.Username != "" && t.Username != user {
		return nil
	}
	return t
}

// repo finds a repository by path.
func (h *Handler) repo(path string) *Repo {
	for i := range h.cfg.Repos {
		if h.cfg.Repos[i].Path == path {
			return &h.cfg.Repos[i]
		}
	}
	return nil
}

// visibleRepo is the repository if the token may see it.
func (h *Handler) visibleRepo(t *Token, path string) *Repo {
	r := h.repo(path)
	if r == nil || !t.sees(path) {
		return nil
	}
	return r
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// sha is a stable fake commit id for a repository's branch.
func sha(parts ...string) string {
	sum := sha1.Sum([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])
}

// fixedTime is the timestamp every fake commit and repository carries.
const fixedTime = "2025-01-02T03:04:05Z"

func randomToken(prefix string) string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// splitRest splits an escaped path into its escaped segments.
func splitRest(rest string) []string {
	return strings.Split(strings.Trim(rest, "/"), "/")
}

// discovery answers each forge's public "what are you" endpoint, as the
// forges document them: GitHub Enterprise's GET /api/v3/meta, GitLab's GET
// /api/v4/version (401 without a token), Gitea's GET /api/v1/version.
func (h *Handler) discovery(w http.ResponseWriter, r *http.Request, dialect, rest string) bool {
	if r.Method != http.MethodGet {
		return false
	}
	switch {
	case dialect == "github" && rest == "/meta":
		writeJSON(w, http.StatusOK, map[string]any{"verifiable_password_authentication": true, "installed_version": "3.13.0",
			"hooks": []string{}, "git": []string{}})
	case dialect == "gitlab" && rest == "/version":
		tok, _, _ := credential(r, "PRIVATE-TOKEN", "Bearer")
		if tok == "" {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "401 Unauthorized"})
			return true
		}
		writeJSON(w, http.StatusOK, map[string]any{"version": "17.5.0", "revision": "a1b2c3d4", "kas": map[string]any{"enabled": false}})
	case dialect == "gitea" && rest == "/version":
		writeJSON(w, http.StatusOK, map[string]any{"version": "1.22.3"})
	default:
		return false
	}
	return true
}
