// Package labgit runs a real git server on loopback for tests, benchmarks
// and the demo lab.
//
// Repositories are bare repositories under the server's own temporary
// directory, served over smart HTTP by git's own
// /usr/lib/git-core/git-http-backend through net/http/cgi, so clients meet
// the same protocol, errors and hooks as with a real git host. The server
// adds what such hosts do in front of git: HTTP basic authentication, a
// read-only user whose pushes are refused with 403, TLS with a self-signed
// certificate or a private CA chain, required TLS client certificates, and
// protected branches (a pre-receive hook that rejects pushes with a
// GitHub-like message). Every request is counted by service.
//
// The same repositories can also be served over SSH (StartSSH), with
// authorized keys, read-only keys and a generated host key whose
// known_hosts line is what argocd-ssh-known-hosts-cm would hold. StartProxy
// and StartSOCKS5Proxy run forward proxies for repository proxy settings.
package labgit

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/imgupd/imgupd/lab/loopback"
)

// DefaultBackend is where Debian's git package installs git-http-backend.
const DefaultBackend = "/usr/lib/git-core/git-http-backend"

// Server is a running lab git server. Its exported fields are set by Start
// and must not be changed.
type Server struct {
	// URL is "http://127.0.0.1:PORT", or "https://127.0.0.1:PORT" with
	// WithTLS. Repositories are at URL + "/" + name (see RepoURL).
	URL string
	// Host is "127.0.0.1:PORT".
	Host string
	// CAPEM is the PEM certificate that signs the server's TLS certificate
	// (nil without WithTLS). Give it to clients as their extra root CA, or
	// as their only root (argocd-tls-certs-cm). With WithTLS alone it is
	// the self-signed leaf itself; with WithPrivateCA, WithCertNames or
	// WithClientCertRequired it is a lab CA distinct from the leaf.
	CAPEM []byte
	// ClientCAPEM is the CA that issues accepted client certificates
	// (IssueClientCert); nil without WithClientCertRequired.
	ClientCAPEM []byte

	cfg       config
	root      string // the temporary directory: repos/ and home/
	counter   requestCounter
	repoMu    sync.Mutex
	closeOnce sync.Once
	http      interface{ Close() }
	clientCA  *certAuthority

	sshMu      sync.Mutex
	sshServers []*SSHServer
	closed     bool
}

// Option configures a Server.
type Option func(*config)

type config struct {
	tls       bool
	privateCA bool
	certNames []string
	// clientCert requires TLS client certificates from clientCA or clientCAs.
	clientCert bool
	clientCAs  [][]byte
	users      map[string]user
	backend    string
	errorLog   *log.Logger
	stderr     io.Writer
	// api serves a forge's REST API on the git server's own host, as
	// GitHub Enterprise, GitLab and Gitea do.
	api http.Handler
	// tokenCheck accepts further basic credentials (tokens a forge minted).
	tokenCheck func(user, pass string) bool
	// refusal is the body of 401 and 403 answers ("" = the defaults).
	refusal string
}

type user struct {
	pass     string
	readOnly bool
}

// WithTLS serves HTTPS with a freshly generated self-signed certificate for
// 127.0.0.1 and localhost; Server.CAPEM holds it (the leaf is its own CA,
// so it also works as a client's only root). WithPrivateCA serves a chain
// from a distinct CA instead.
func WithTLS() Option { return func(c *config) { c.tls = true } }

// WithAPI serves h on the same host for the paths a forge's REST API
// uses (/api/..., Bitbucket's /2.0/...), next to git's own paths.
func WithAPI(h http.Handler) Option { return func(c *config) { c.api = h } }

// WithTokenCheck accepts, besides the users, any basic credentials check
// approves: tokens a forge minted (a GitHub App installation token used as
// x-access-token:<token>, as git does). Once set, requests need credentials.
func WithTokenCheck(check func(user, pass string) bool) Option {
	return func(c *config) { c.tokenCheck = check }
}

// WithHTTPOnly serves plain HTTP. It is the default and exists so callers
// can say so explicitly. It undoes WithTLS, WithPrivateCA, WithCertNames
// and WithClientCertRequired.
func WithHTTPOnly() Option {
	return func(c *config) {
		c.tls, c.privateCA, c.clientCert, c.certNames, c.clientCAs = false, false, false, nil, nil
	}
}

// WithBasicAuth adds a user who may fetch and push. Once any user is
// configured, every request needs valid basic credentials; requests without
// them, or with others, get 401 with `WWW-Authenticate: Basic`.
func WithBasicAuth(username, password string) Option {
	return func(c *config) { c.addUser(username, user{pass: password}) }
}

// WithReadOnlyUser adds a user who may fetch but not push: the push
// advertisement (info/refs?service=git-receive-pack) and git-receive-pack
// itself answer 403, as a git host does for a token without write access.
func WithReadOnlyUser(username, password string) Option {
	return func(c *config) { c.addUser(username, user{pass: password, readOnly: true}) }
}

// WithRefusalText makes text the body of every 401 and 403 answer, as a
// forge writes its own message there ("remote: …", a link to its docs) and
// git clients show it: text the server, not the client, controls.
func WithRefusalText(text string) Option { return func(c *config) { c.refusal = text } }

// WithBackend overrides the path of git-http-backend.
func WithBackend(path string) Option { return func(c *config) { c.backend = path } }

// WithErrorLog sets the logger for the HTTP server's own errors (TLS
// handshake failures and the like). By default they are discarded.
func WithErrorLog(l *log.Logger) Option { return func(c *config) { c.errorLog = l } }

// WithBackendStderr receives git-http-backend's and the hooks' standard
// error. By default it is discarded.
func WithBackendStderr(w io.Writer) Option { return func(c *config) { c.stderr = w } }

func (c *config) addUser(name string, u user) {
	if c.users == nil {
		c.users = map[string]user{}
	}
	c.users[name] = u
}

// Start starts a git server on 127.0.0.1 on a free port, with no
// repositories (add them with CreateRepo). Close it when done: Close also
// removes the repositories.
func Start(opts ...Option) (*Server, error) {
	s := &Server{}
	for _, o := range opts {
		o(&s.cfg)
	}
	if s.cfg.backend == "" {
		s.cfg.backend = DefaultBackend
	}
	if s.cfg.errorLog == nil {
		s.cfg.errorLog = log.New(io.Discard, "", 0)
	}
	if s.cfg.stderr == nil {
		s.cfg.stderr = io.Discard
	}
	if _, err := os.Stat(s.cfg.backend); err != nil {
		return nil, fmt.Errorf("labgit: git-http-backend: %w", err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("labgit: git CLI: %w", err)
	}
	root, err := os.MkdirTemp("", "labgit-")
	if err != nil {
		return nil, fmt.Errorf("labgit: temp dir: %w", err)
	}
	s.root = root
	for _, d := range []string{s.reposDir(), s.homeDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			_ = os.RemoveAll(root)
			return nil, fmt.Errorf("labgit: %w", err)
		}
	}

	if s.cfg.privateCA {
		hs, err := s.startPrivateTLS(s.handler())
		if err != nil {
			_ = os.RemoveAll(root)
			return nil, err
		}
		s.http = hs
		return s, nil
	}
	srv, err := loopback.Start("labgit", s.cfg.tls, s.handler(), s.cfg.errorLog)
	if err != nil {
		_ = os.RemoveAll(root)
		return nil, err
	}
	s.http, s.URL, s.Host, s.CAPEM = srv, srv.URL, srv.Host, srv.CAPEM
	return s, nil
}

// Close stops the server and its SSH servers, closes open connections and
// removes every repository from disk.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.sshMu.Lock()
		s.closed = true
		ssh := s.sshServers
		s.sshMu.Unlock()
		for _, x := range ssh {
			x.Close()
		}
		s.http.Close()
		_ = os.RemoveAll(s.root)
	})
}

// RepoURL is the clone URL of the repository name, e.g.
// "http://127.0.0.1:PORT/team/app.git". A name without ".git" gets it.
func (s *Server) RepoURL(name string) string {
	return s.URL + "/" + repoPath(name)
}

// repoPath is name cleaned of surrounding slashes, with ".git" appended.
func repoPath(name string) string {
	name = strings.Trim(name, "/")
	if !strings.HasSuffix(name, ".git") {
		name += ".git"
	}
	return name
}

func (s *Server) reposDir() string { return s.root + "/repos" }
func (s *Server) homeDir() string  { return s.root + "/home" }

// RepoDir is the bare repository's directory on disk, for serving it over
// another transport (an SSH server in tests) or inspecting it.
func (s *Server) RepoDir(name string) string {
	return filepath.Join(s.reposDir(), filepath.FromSlash(repoPath(name)))
}
