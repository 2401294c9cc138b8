package forge

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/imgupd/imgupd/internal/errtext"
	"github.com/imgupd/imgupd/model/updater"
)

// GitHubAppUsername is the git username that goes with an installation
// token (git authenticates as x-access-token:<token>).
const GitHubAppUsername = "x-access-token"

// ghinstallationAccept is the Accept header ghinstallation sends for the
// token request; kept so the request is byte-for-byte what Argo CD sends.
const ghinstallationAccept = "application/vnd.github.v3+json"

// installationToken is the documented answer of POST
// /app/installations/{id}/access_tokens.
type installationToken struct {
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
}

// GitHubAppToken creates an installation access token for a GitHub App,
// as Argo CD does for repository secrets with githubAppID,
// githubAppInstallationID and githubAppPrivateKey (Argo CD uses
// bradleyfalzon/ghinstallation; this reproduces its request): a JWT
// signed RS256 with the App's private key, claims iss = the App ID,
// iat = now − 30 s and exp = iat + 2 min, sent as "Authorization: Bearer
// <jwt>" in POST <apiBase>/app/installations/<installationID>/access_tokens.
//
// apiBase is "https://api.github.com" when empty; for GitHub Enterprise
// Server it is githubAppEnterpriseBaseUrl, which includes /api/v3. Use the
// token with BranchProtection (and as git's password, with username
// GitHubAppUsername). The token expires after an hour.
//
// Errors are *Error values: InvalidKey for a key that does not parse,
// Unauthorized when GitHub refuses the JWT (wrong key or App ID, clock
// skew), NotFound for an installation the App does not have, and the
// network kinds. No error contains the key, the JWT or the token.
func (c *Client) GitHubAppToken(ctx context.Context, apiBase string, appID, installationID int64, privateKeyPEM updater.Secret) (updater.Secret, error) {
	const op = "create installation token"
	if strings.TrimSpace(apiBase) == "" {
		apiBase = builtin["github.com"].APIURL
	}
	apiBase, err := (Endpoint{Host: "github-app", Kind: GitHub, APIURL: apiBase}).Validate()
	if err != nil {
		return "", &Error{Kind: Other, Forge: GitHub, Op: op, Err: err, detail: errtext.OneLine(err.Error())}
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM([]byte(privateKeyPEM.Reveal()))
	if err != nil {
		// jwt's and x509's parse errors describe the format, never the bytes.
		e := &Error{Kind: InvalidKey, Forge: GitHub, Op: op, Err: err,
			detail: "githubAppPrivateKey is not a PEM-encoded RSA private key (PKCS#1 or PKCS#8)"}
		return "", e
	}
	// GitHub rejects fractional timestamps; ghinstallation truncates too.
	iat := time.Now().Add(-30 * time.Second).Truncate(time.Second)
	claims := jwt.RegisteredClaims{
		Issuer:    strconv.FormatInt(appID, 10),
		IssuedAt:  jwt.NewNumericDate(iat),
		ExpiresAt: jwt.NewNumericDate(iat.Add(2 * time.Minute)),
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(key)
	if err != nil {
		return "", &Error{Kind: InvalidKey, Forge: GitHub, Op: op, Err: err, detail: "cannot sign the App JWT with this key"}
	}

	s, err := c.newSession(GitHub, apiBase, "", "", func(h http.Header) {
		h.Set("Authorization", "Bearer "+signed)
	}, append(keyLines(privateKeyPEM), signed)...)
	if err != nil {
		return "", &Error{Kind: Other, Forge: GitHub, Op: op, Err: err, detail: "bad API URL"}
	}
	u := fmt.Sprintf("%s/app/installations/%d/access_tokens", apiBase, installationID)
	var tok installationToken
	hdr := http.Header{"Accept": {ghinstallationAccept}, "User-Agent": {userAgent}}
	if _, e := s.doJSON(ctx, op, http.MethodPost, u, hdr, nil, &tok); e != nil {
		return "", e
	}
	if tok.Token == "" {
		e := s.newError(BadResponse, op, http.MethodPost, u)
		e.detail = "the answer has no token"
		return "", s.fail(e)
	}
	return updater.Secret(tok.Token), nil
}

// keyLines are the private key's base64 lines, to scrub from error text.
func keyLines(pemKey updater.Secret) []string {
	var out []string
	for _, l := range strings.Split(pemKey.Reveal(), "\n") {
		if l = strings.TrimSpace(l); len(l) >= 16 && !strings.HasPrefix(l, "-----") {
			out = append(out, l)
		}
	}
	return out
}
