package labregistry

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

type authMode int

const (
	authNone authMode = iota
	authBasic
	authToken
)

// authorized checks the credentials of a /v2/ request and, when they are
// missing or wrong, answers 401 with the challenge a real registry sends.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	switch s.cfg.authMode {
	case authBasic:
		if u, p, ok := r.BasicAuth(); ok && s.credsMatch(u, p) {
			return true
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="labregistry"`)
	case authToken:
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok &&
			subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) == 1 {
			return true
		}
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="%s/token",service="labregistry"`, s.URL))
	default:
		return true
	}
	writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
	return false
}

func (s *Server) credsMatch(u, p string) bool {
	uok := subtle.ConstantTimeCompare([]byte(u), []byte(s.cfg.user)) == 1
	pok := subtle.ConstantTimeCompare([]byte(p), []byte(s.cfg.pass)) == 1
	return uok && pok
}

// serveToken is the token endpoint of WithTokenAuth: basic credentials in,
// a Bearer token out, in the JSON shape Docker's token servers use.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	u, p, ok := r.BasicAuth()
	if !ok || !s.credsMatch(u, p) {
		w.Header().Set("WWW-Authenticate", `Basic realm="labregistry-token"`)
		writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "invalid username or password")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"token":        s.token,
		"access_token": s.token,
		"expires_in":   3600,
	})
}

// writeError answers with the distribution spec's error body.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"errors": []map[string]string{{"code": code, "message": msg}},
	})
}

func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
