package forge_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	labforge "github.com/imgupd/imgupd/lab/forge"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/sources/forge"
)

// TestDiscover: a forge nobody configured is found on the repository's own
// host by its public "what are you" endpoint, without credentials, and the
// protection check then works as for a configured one.
func TestDiscover(t *testing.T) {
	for _, tt := range []struct {
		only string
		want forge.Forge
		repo string
	}{
		{"github", forge.GitHub, ghRepo},
		{"gitlab", forge.GitLab, glRepo},
		{"gitea", forge.Gitea, ghRepo},
	} {
		t.Run(tt.only, func(t *testing.T) {
			cfg := labConfig()
			cfg.Only = tt.only
			srv := labforge.Start(cfg)
			defer srv.Close()
			c, err := forge.New()
			if err != nil {
				t.Fatal(err)
			}
			repoURL := srv.URL + "/" + tt.repo + ".git"
			ep, ok := c.Discover(context.Background(), repoURL)
			if !ok || ep.Kind != tt.want || ep.Host != srv.Host {
				t.Fatalf("Discover = %+v %v, want %s on %s", ep, ok, tt.want, srv.Host)
			}
			for _, r := range srv.Handler.Requests() {
				if r.Auth != "" {
					t.Errorf("discovery sent credentials (%s) to %s", r.Auth, r.Path)
				}
			}
			p, err := c.BranchProtection(context.Background(), repoURL, "main", updater.Credentials{Password: updater.Secret(tokWriter)})
			if err != nil {
				t.Fatalf("BranchProtection after discovery: %v", err)
			}
			if p.Forge != tt.want || !p.Protected {
				t.Errorf("%+v: main should be protected on %s", p, tt.want)
			}
		})
	}
}

// TestDiscoverNothing: a host that is no forge (a plain git server, HTML
// pages, a catch-all JSON API) is not taken for one.
func TestDiscoverNothing(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		"404":  http.NotFound,
		"html": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>hello</html>")) },
		"json everywhere": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"ok": true, "version": "1", "extra": 2}`))
		},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(h)
			defer srv.Close()
			c, _ := forge.New()
			if ep, ok := c.Discover(context.Background(), srv.URL+"/acme/web.git"); ok {
				t.Fatalf("took %s for a forge: %+v", name, ep)
			}
			_, err := c.BranchProtection(context.Background(), srv.URL+"/acme/web.git", "main", updater.Credentials{Password: updater.Secret(tokWriter)})
			if err == nil || !strings.Contains(err.Error(), "not on a built-in or configured forge") {
				t.Fatalf("want NotRecognised, got %v", err)
			}
		})
	}
	c, _ := forge.New()
	if _, ok := c.Discover(context.Background(), "git@ghe.example:acme/web.git"); ok {
		t.Fatal("SSH URLs are not probed")
	}
}
