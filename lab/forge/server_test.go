package labforge

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

const secretTok = "LABSECRET-tok-1234"

func testServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	s := Start(cfg)
	t.Cleanup(s.Close)
	return s
}

func baseConfig() Config {
	return Config{
		PageSize: 2,
		Repos: []Repo{{Path: "acme/web", Branches: []Branch{{Name: "main", Protected: true}, {Name: "feature/x"}},
			Restrictions: []Restriction{{ID: 1, Pattern: "a"}, {ID: 2, Pattern: "b"}, {ID: 3, Pattern: "c"}, {ID: 4, Kind: "delete", Pattern: "d"}}},
			{Path: "g/s/p", Branches: []Branch{{Name: "release/1"}}}},
		Tokens: []Token{{Value: secretTok, Repos: []string{"*"}, Push: true, Admin: true}, {Value: "scopeless", Repos: []string{"*"}, MissingScope: true}},
	}
}

func get(t *testing.T, method, url string, hdr map[string]string) (int, map[string]any, []any) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var obj map[string]any
	var arr []any
	if json.Unmarshal(b, &obj) != nil {
		_ = json.Unmarshal(b, &arr)
	}
	return resp.StatusCode, obj, arr
}

func TestDialects(t *testing.T) {
	t.Parallel()
	s := testServer(t, baseConfig())
	bearer := map[string]string{"Authorization": "Bearer " + secretTok}
	for _, tc := range []struct {
		method, path string
		hdr          map[string]string
		status       int
		field        string // a field the JSON object must have
	}{
		{"GET", "/api/v3/repos/acme/web", bearer, 200, "permissions"},
		{"GET", "/repos/acme/web", map[string]string{"Authorization": "token " + secretTok}, 200, "default_branch"},
		{"GET", "/api/v3/repos/acme/web/branches/main", bearer, 200, "protection_url"},
		{"GET", "/api/v3/repos/acme/web/branches/feature%2Fx", bearer, 200, "_links"},
		{"GET", "/api/v3/repos/acme/web/branches/nope", bearer, 404, "documentation_url"},
		{"GET", "/api/v3/repos/acme/other", bearer, 404, "message"},
		{"GET", "/api/v3/repos/acme/web", nil, 401, "message"},
		{"GET", "/api/v3/repos/acme/web", map[string]string{"Authorization": "Bearer wrong"}, 401, "message"},
		{"GET", "/api/v3/repos/acme/web", map[string]string{"Authorization": "Bearer scopeless"}, 403, "message"},
		{"DELETE", "/api/v3/repos/acme/web", bearer, 405, "message"},
		{"GET", "/api/v4/projects/g%2Fs%2Fp", map[string]string{"PRIVATE-TOKEN": secretTok}, 200, "path_with_namespace"},
		{"GET", "/api/v4/projects/2/repository/branches/release%2F1", map[string]string{"PRIVATE-TOKEN": secretTok}, 200, "can_push"},
		{"GET", "/api/v4/projects/g%2Fs%2Fp/repository/branches/release/1", map[string]string{"PRIVATE-TOKEN": secretTok}, 404, "message"},
		{"GET", "/api/v4/projects/g/s/p/repository/branches/release%2F1", map[string]string{"PRIVATE-TOKEN": secretTok}, 404, "message"},
		{"GET", "/api/v4/projects/acme%2Fweb/protected_branches/main", map[string]string{"PRIVATE-TOKEN": secretTok}, 200, "push_access_levels"},
		{"GET", "/api/v4/projects/acme%2Fweb", map[string]string{"PRIVATE-TOKEN": "scopeless"}, 403, "error_description"},
		{"GET", "/api/v1/version", nil, 200, "version"},
		{"GET", "/api/v1/repos/acme/web/branches/main", map[string]string{"Authorization": "token " + secretTok}, 200, "user_can_push"},
		{"GET", "/api/v1/repos/acme/web/branches/feature/x", map[string]string{"Authorization": "token " + secretTok}, 200, "effective_branch_protection_name"},
		{"GET", "/2.0/repositories/acme/web", bearer, 200, "mainbranch"},
		{"GET", "/2.0/repositories/acme/web/branch-restrictions?kind=push", bearer, 200, "next"},
		{"GET", "/2.0/repositories/acme/web/branch-restrictions", map[string]string{"Authorization": "Bearer scopeless"}, 403, "error"},
		{"GET", "/2.0/repositories/acme/web/effective-branching-model", bearer, 200, "development"},
		{"GET", "/nowhere", bearer, 404, ""},
	} {
		status, obj, _ := get(t, tc.method, s.URL+tc.path, tc.hdr)
		if status != tc.status {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, status, tc.status)
		}
		if _, ok := obj[tc.field]; tc.field != "" && !ok {
			t.Errorf("%s %s: no %q in %v", tc.method, tc.path, tc.field, obj)
		}
	}
	status, _, rules := get(t, "GET", s.URL+"/api/v3/repos/acme/web/rules/branches/main", bearer)
	if status != 200 || rules == nil {
		t.Errorf("rules: %d %v, want 200 and an array", status, rules)
	}
	for _, r := range s.Requests() {
		if strings.Contains(fmt.Sprintf("%+v", r), secretTok) {
			t.Errorf("recorded the token: %+v", r)
		}
	}
	if got := s.Requests()[0]; got.Dialect != "github" || got.Auth != "Bearer" || got.Status != 200 {
		t.Errorf("first request %+v", got)
	}
	s.ResetRequests()
	if len(s.Requests()) != 0 {
		t.Error("ResetRequests kept requests")
	}
}

func TestBitbucketPaging(t *testing.T) {
	t.Parallel()
	s := testServer(t, baseConfig())
	next := s.URL + "/2.0/repositories/acme/web/branch-restrictions?kind=push"
	var ids []float64
	for pages := 0; next != ""; pages++ {
		if pages > 5 {
			t.Fatal("endless pages")
		}
		_, obj, _ := get(t, "GET", next, map[string]string{"Authorization": "Bearer " + secretTok})
		for _, v := range obj["values"].([]any) {
			ids = append(ids, v.(map[string]any)["id"].(float64))
		}
		next, _ = obj["next"].(string)
	}
	if fmt.Sprint(ids) != "[1 2 3]" {
		t.Errorf("ids %v, want the three push restrictions", ids)
	}
}

func TestGitHubAppJWT(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	cfg := baseConfig()
	cfg.Apps = []App{{ID: 42, InstallationID: 7, PublicKey: &key.PublicKey, Token: Token{Repos: []string{"acme/web"}, NoPermissions: true}}}
	s := testServer(t, cfg)
	now := time.Now().Unix()
	sign := func(alg string, claims map[string]any) string {
		h, _ := json.Marshal(map[string]any{"alg": alg, "typ": "JWT"})
		c, _ := json.Marshal(claims)
		in := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
		d := sha256.Sum256([]byte(in))
		sig, _ := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, d[:])
		return in + "." + base64.RawURLEncoding.EncodeToString(sig)
	}
	good := map[string]any{"iss": "42", "iat": now - 30, "exp": now + 90}
	url := s.GitHubAPI() + "/app/installations/7/access_tokens"
	for _, tc := range []struct {
		name   string
		jwt    string
		url    string
		status int
	}{
		{"valid", sign("RS256", good), url, 201},
		{"numeric iss", sign("RS256", map[string]any{"iss": 42, "iat": now - 30, "exp": now + 90}), url, 201},
		{"expired", sign("RS256", map[string]any{"iss": "42", "iat": now - 300, "exp": now - 10}), url, 401},
		{"too long", sign("RS256", map[string]any{"iss": "42", "iat": now, "exp": now + 3600}), url, 401},
		{"future iat", sign("RS256", map[string]any{"iss": "42", "iat": now + 600, "exp": now + 700}), url, 401},
		{"unknown app", sign("RS256", map[string]any{"iss": "43", "iat": now - 30, "exp": now + 90}), url, 401},
		{"alg none", sign("none", good), url, 401},
		{"tampered", sign("RS256", good) + "x", url, 401},
		{"wrong installation", sign("RS256", good), s.GitHubAPI() + "/app/installations/8/access_tokens", 404},
	} {
		req, _ := http.NewRequest("POST", tc.url, nil)
		req.Header.Set("Authorization", "Bearer "+tc.jwt)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Token     string `json:"token"`
			ExpiresAt string `json:"expires_at"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.status)
		}
		if tc.status == 201 {
			if !strings.HasPrefix(body.Token, "ghs_") || body.ExpiresAt == "" {
				t.Errorf("%s: body %+v", tc.name, body)
			}
			// The minted token works, and sees only its repositories.
			if st, obj, _ := get(t, "GET", s.GitHubAPI()+"/repos/acme/web", map[string]string{"Authorization": "Bearer " + body.Token}); st != 200 || obj["permissions"] != nil {
				t.Errorf("minted token: %d %v", st, obj["permissions"])
			}
			if st, _, _ := get(t, "GET", s.GitHubAPI()+"/repos/g/s", map[string]string{"Authorization": "Bearer " + body.Token}); st != 404 {
				t.Errorf("minted token sees another repository: %d", st)
			}
		}
	}
}

func TestDelayEndsWithClient(t *testing.T) {
	t.Parallel()
	cfg := baseConfig()
	cfg.Delay = 10 * time.Minute
	s := testServer(t, cfg)
	c := &http.Client{Timeout: 100 * time.Millisecond}
	start := time.Now()
	if _, err := c.Get(s.URL + "/api/v1/version"); err == nil {
		t.Fatal("no timeout")
	}
	if time.Since(start) > time.Minute { // the server holds it 10 minutes: a net for a hang
		t.Fatal("the client's timeout did not end the request")
	}
}
