package labgit

import (
	"crypto/subtle"
	"net/http"
	"net/http/cgi"
	"strings"
)

// anonymousUser is REMOTE_USER for servers without users: git-http-backend
// refuses pushes when REMOTE_USER is unset.
const anonymousUser = "anonymous"

// handler is the request pipeline: count, authenticate, refuse pushes by
// read-only users, then git-http-backend.
func (s *Server) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.counter.sawAuthorization(r)
		if api := s.cfg.api; api != nil && (strings.HasPrefix(r.URL.Path, "/api/") || strings.HasPrefix(r.URL.Path, "/2.0/")) {
			api.ServeHTTP(w, r)
			return
		}
		svc := serviceOf(r)
		name, ok := s.authenticate(r)
		if !ok {
			s.counter.count(svc, http.StatusUnauthorized)
			w.Header().Set("WWW-Authenticate", `Basic realm="labgit"`)
			http.Error(w, s.refusalOr("Authentication failed"), http.StatusUnauthorized)
			return
		}
		if svc.isPush() && s.cfg.users[name].readOnly {
			s.counter.count(svc, http.StatusForbidden)
			http.Error(w, s.refusalOr("Write access to repository not granted."), http.StatusForbidden)
			return
		}
		s.counter.count(svc, 0)
		// The backend needs no credentials; keep them out of its environment.
		r.Header.Del("Authorization")
		h := &cgi.Handler{
			Path: s.cfg.backend,
			Env: []string{
				"GIT_PROJECT_ROOT=" + s.reposDir(),
				"GIT_HTTP_EXPORT_ALL=1",
				"REMOTE_USER=" + name,
				"HOME=" + s.homeDir(),
				"GIT_CONFIG_NOSYSTEM=1",
			},
			Stderr: s.cfg.stderr,
			Logger: s.cfg.errorLog,
		}
		h.ServeHTTP(w, r)
	})
}

// refusalOr is the body of a refusal: WithRefusalText's, else def.
func (s *Server) refusalOr(def string) string {
	if s.cfg.refusal != "" {
		return s.cfg.refusal
	}
	return def
}

// authenticate returns the user name a request acts as. Without
// configured users everyone is anonymousUser.
func (s *Server) authenticate(r *http.Request) (string, bool) {
	if len(s.cfg.users) == 0 && s.cfg.tokenCheck == nil {
		return anonymousUser, true
	}
	u, p, ok := r.BasicAuth()
	if !ok {
		return "", false
	}
	if s.cfg.tokenCheck != nil && s.cfg.tokenCheck(u, p) {
		return u, true
	}
	want, known := s.cfg.users[u]
	if !known {
		// Compare anyway so unknown and known users take the same time.
		subtle.ConstantTimeCompare([]byte(p), []byte(p))
		return "", false
	}
	if subtle.ConstantTimeCompare([]byte(p), []byte(want.pass)) != 1 {
		return "", false
	}
	return u, true
}

// service is what a smart-HTTP request asks for.
type service int

const (
	svcOther service = iota
	svcInfoRefsUpload
	svcInfoRefsReceive
	svcUploadPack
	svcReceivePack
)

func (v service) isPush() bool { return v == svcInfoRefsReceive || v == svcReceivePack }

// serviceOf classifies a request by path and query, as git-http-backend
// routes it.
func serviceOf(r *http.Request) service {
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/info/refs"):
		switch r.URL.Query().Get("service") {
		case "git-upload-pack":
			return svcInfoRefsUpload
		case "git-receive-pack":
			return svcInfoRefsReceive
		}
	case strings.HasSuffix(p, "/git-upload-pack"):
		return svcUploadPack
	case strings.HasSuffix(p, "/git-receive-pack"):
		return svcReceivePack
	}
	return svcOther
}
