package forge

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// discoverPaths are the API roots self-hosted forges serve on their own
// host, in the order they are tried, with the public (unauthenticated)
// endpoint that tells them apart:
//   - GitHub Enterprise Server: GET /api/v3/meta → 200, JSON with
//     "verifiable_password_authentication" (and "installed_version");
//   - GitLab: GET /api/v4/version → 200 with "version" and "revision", or
//     401 {"message":"401 Unauthorized"} without a token;
//   - Gitea and Forgejo: GET /api/v1/version → 200 {"version": "..."}.
var discoverPaths = []struct {
	kind  Forge
	root  string
	probe string
}{
	{GitHub, "/api/v3", "/api/v3/meta"},
	{GitLab, "/api/v4", "/api/v4/version"},
	{Gitea, "/api/v1", "/api/v1/version"},
}

// Discover looks for a forge API on the repository's own host, for hosts
// neither built in nor configured (a self-hosted forge nobody named): one
// unauthenticated GET per candidate, never with credentials, so nothing is
// sent to a host that turns out not to be a forge. SSH URLs are not
// probed (their host's web side is unknown). It returns the endpoint it
// found, or false.
func (c *Client) Discover(ctx context.Context, repoURL string) (Endpoint, bool) {
	u, err := url.Parse(strings.TrimSpace(repoURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Endpoint{}, false
	}
	base := u.Scheme + "://" + u.Host
	for _, d := range discoverPaths {
		if c.probe(ctx, d.kind, base+d.probe) {
			return Endpoint{Host: u.Host, Kind: d.kind, APIURL: base + d.root}, true
		}
	}
	return Endpoint{}, false
}

// probe GETs one discovery endpoint without credentials and checks the
// answer has the forge's shape.
func (c *Client) probe(ctx context.Context, kind Forge, rawURL string) bool {
	ctx, cancel := context.WithTimeout(ctx, c.probeTimeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return false
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	hc := *c.http
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var body map[string]any
	if json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&body) != nil {
		return false
	}
	switch kind {
	case GitHub:
		_, ok := body["verifiable_password_authentication"]
		return resp.StatusCode == http.StatusOK && ok
	case GitLab:
		if resp.StatusCode == http.StatusUnauthorized {
			m, _ := body["message"].(string)
			return m == "401 Unauthorized"
		}
		_, v := body["version"]
		_, rev := body["revision"]
		return resp.StatusCode == http.StatusOK && v && rev
	case Gitea:
		v, _ := body["version"].(string)
		return resp.StatusCode == http.StatusOK && v != "" && len(body) == 1
	}
	return false
}

// defaultProbeTimeout bounds each discovery GET: a host that is no forge
// should not slow the diagnosis.
const defaultProbeTimeout = 3 * time.Second

func (c *Client) probeTimeout() time.Duration {
	if c.timeout > 0 && c.timeout < defaultProbeTimeout {
		return c.timeout
	}
	return defaultProbeTimeout
}
