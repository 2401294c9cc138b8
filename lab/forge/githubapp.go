package labforge

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// githubApp serves POST /app/installations/{id}/access_tokens: it
// verifies the JWT by hand (RS256 with the App's public key; iss the App
// ID; iat not in the future beyond GitHub's 60 s allowance; exp in the
// future and at most 10 minutes after iat), then mints a token for the
// installation from the App's Token template (201, {token, expires_at,
// permissions, repository_selection}). A bad JWT gets 401, an
// installation the App does not have 404.
func (h *Handler) githubApp(w http.ResponseWriter, r *http.Request, rest string) {
	segs := splitRest(rest)
	if len(segs) != 4 || segs[0] != "app" || segs[1] != "installations" || segs[3] != "access_tokens" {
		githubError(w, http.StatusNotFound, "Not Found")
		return
	}
	if r.Method != http.MethodPost {
		githubError(w, http.StatusNotFound, "Not Found")
		return
	}
	jwt, _, _ := credential(r, "Bearer")
	if jwt == "" {
		githubError(w, http.StatusUnauthorized, "A JSON web token could not be decoded")
		return
	}
	app, msg := h.verifyJWT(jwt, time.Now())
	if app == nil {
		githubError(w, http.StatusUnauthorized, msg)
		return
	}
	inst, err := strconv.ParseInt(segs[2], 10, 64)
	if err != nil || inst != app.InstallationID {
		githubError(w, http.StatusNotFound, "Not Found")
		return
	}
	tok := app.Token
	tok.Value = randomToken("ghs_")
	h.mu.Lock()
	h.minted[tok.Value] = tok
	h.mu.Unlock()
	perm := "read"
	if tok.Push {
		perm = "write"
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"token":                tok.Value,
		"expires_at":           time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
		"permissions":          map[string]any{"contents": perm, "metadata": "read"},
		"repository_selection": "selected",
	})
}

// verifyJWT returns the App whose key signed the JWT and whose claims are
// valid, or nil and GitHub's message.
func (h *Handler) verifyJWT(token string, now time.Time) (*App, string) {
	const undecodable = "A JSON web token could not be decoded"
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, undecodable
	}
	var hdr struct {
		Alg string `json:"alg"`
	}
	var claims struct {
		Iss json.RawMessage `json:"iss"`
		Iat *int64          `json:"iat"`
		Exp *int64          `json:"exp"`
	}
	if decodeSegment(parts[0], &hdr) != nil || decodeSegment(parts[1], &claims) != nil {
		return nil, undecodable
	}
	if hdr.Alg != "RS256" {
		return nil, undecodable
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, undecodable
	}
	iss := strings.Trim(string(claims.Iss), `"`)
	var app *App
	for i := range h.cfg.Apps {
		if strconv.FormatInt(h.cfg.Apps[i].ID, 10) == iss {
			app = &h.cfg.Apps[i]
		}
	}
	if app == nil || app.PublicKey == nil {
		return nil, "Integration not found"
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(app.PublicKey, crypto.SHA256, digest[:], sig) != nil {
		return nil, undecodable
	}
	switch {
	case claims.Iat == nil || claims.Exp == nil:
		return nil, "Missing 'issued at' or 'expiration time' claim"
	case time.Unix(*claims.Iat, 0).After(now.Add(60 * time.Second)):
		return nil, "'Issued at' claim ('iat') must be an Integer representing a time in the past"
	case !time.Unix(*claims.Exp, 0).After(now):
		return nil, "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"
	case *claims.Exp-*claims.Iat > 600:
		return nil, "'Expiration time' claim ('exp') is too far in the future"
	}
	return app, ""
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	if len(b) == 0 {
		return errors.New("empty")
	}
	return json.Unmarshal(b, v)
}

// Minted reports whether token is an installation token this fake made
// (and still holds), for a git server that accepts x-access-token:<token>.
func (h *Handler) Minted(token string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.minted[token]
	return ok
}
