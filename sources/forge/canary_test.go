package forge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/model/advice"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/sources/forge"
)

// TestCanaryTokens runs every case, failing and succeeding, with
// distinctive token values (and a server that echoes credentials into
// its error bodies) and checks that no printed or JSON form of a result
// or an error holds one.
func TestCanaryTokens(t *testing.T) {
	t.Parallel()
	key, other := testKeys(t)
	lab, c := appLab(t)
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status := map[string]int{"e401": 401, "e403": 403, "e404": 404, "e500": 500}[strings.Split(strings.Trim(r.URL.Path, "/"), "/")[len(strings.Split(strings.Trim(r.URL.Path, "/"), "/"))-1]]
		if status == 0 {
			status = 500
		}
		user, pass, _ := r.BasicAuth()
		echoed := fmt.Sprintf("bad credentials %q %q %s:%s", r.Header.Get("Authorization"), r.Header.Get("PRIVATE-TOKEN"), user, pass)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"message": echoed, "error": map[string]any{"message": echoed}})
	}))
	t.Cleanup(echo.Close)
	var eps []forge.Endpoint
	for _, k := range []forge.Forge{forge.GitHub, forge.GitLab, forge.Gitea, forge.Bitbucket} {
		eps = append(eps, forge.Endpoint{Host: strings.ToLower(k.String()) + ".echo", Kind: k, APIURL: echo.URL + "/api"})
	}
	echoClient, err := forge.New(forge.WithEndpoints(eps...), forge.WithRequestTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}

	var printed []string
	record := func(vals ...any) {
		for _, v := range vals {
			printed = append(printed, fmt.Sprintf("%v|%+v|%#v|%s|%q", v, v, v, v, v))
			if b, err := json.Marshal(v); err == nil {
				printed = append(printed, string(b))
			}
		}
	}
	recordErr := func(err error) {
		if err == nil {
			return
		}
		record(err, fmt.Errorf("wrapped: %w", err))
		var fe *forge.Error
		if errors.As(err, &fe) {
			printed = append(printed, advice.ForForge(fe.Facts()), fe.Error(), fe.URL, fe.Scope)
			record(*fe)
		}
	}

	ctx := context.Background()
	for _, tc := range protectionCases() {
		cr := updater.Credentials{Username: tc.user, Password: updater.Secret(tc.token)}
		p, err := c.BranchProtection(ctx, tc.url, tc.branch, cr)
		record(p, &p, cr)
		recordErr(err)
		for _, cl := range p.Calls {
			record(cl)
		}
	}
	for _, e := range eps {
		for _, path := range []string{"e401", "e403", "e404", "e500"} {
			for _, user := range []string{"", "bot"} {
				cr := updater.Credentials{Username: user, Password: tokWriter}
				p, err := echoClient.BranchProtection(ctx, "https://"+e.Host+"/acme/"+path, "main", cr)
				if err == nil {
					t.Fatalf("%s %s: no error", e.Host, path)
				}
				record(p)
				recordErr(err)
			}
		}
	}
	// URL userinfo must not leak either.
	_, err = c.BranchProtection(ctx, "https://bot:"+tokAdmin+"@git.unknown.example/acme/web", "main", creds(tokWriter))
	recordErr(err)
	_, err = c.BranchProtection(ctx, "https://x:"+tokAdmin+"@"+ghesHost+"/acme/web", "main", creds(tokUnknown))
	recordErr(err)

	// GitHub App: keys and minted tokens.
	secrets := append([]string(nil), canaries...)
	for _, k := range []updater.Secret{pemPKCS1(key), pemPKCS1(other)} {
		secrets = append(secrets, keyMaterial(k)...)
		tok, err := c.GitHubAppToken(ctx, lab.GitHubAPI(), appID, installationID, k)
		recordErr(err)
		record(tok)
		if tok != "" {
			secrets = append(secrets, tok.Reveal())
			p, err := c.BranchProtection(ctx, "https://"+ghesHost+"/"+ghRepo, "main", updater.Credentials{Username: forge.GitHubAppUsername, Password: tok})
			record(p)
			recordErr(err)
			_, err = echoClient.BranchProtection(ctx, "https://github.echo/acme/e401", "main", updater.Credentials{Password: tok})
			recordErr(err)
		}
	}

	if len(printed) < 300 {
		t.Fatalf("only %d printed forms", len(printed))
	}
	for _, p := range printed {
		for _, s := range secrets {
			if strings.Contains(p, s) {
				t.Errorf("secret %.14q… printed in: %.300s", s, p)
			}
		}
	}
	// The recorded requests hold no token either.
	for _, r := range lab.Requests() {
		s := fmt.Sprintf("%+v", r)
		for _, sec := range secrets {
			if strings.Contains(s, sec) {
				t.Errorf("lab recorded a secret: %s", s)
			}
		}
	}
}
