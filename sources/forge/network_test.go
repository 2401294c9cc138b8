package forge_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/sources/forge"

	"github.com/imgupd/imgupd/internal/netclass"
	"github.com/imgupd/imgupd/lab/loopback"
)

func creds(tok string) updater.Credentials { return updater.Credentials{Password: updater.Secret(tok)} }

func wantKind(t *testing.T, err error, k forge.Kind) *forge.Error {
	t.Helper()
	var fe *forge.Error
	if !errors.As(err, &fe) {
		t.Fatalf("error = %v (%T), want *forge.Error %s", err, err, k)
	}
	if fe.Kind != k {
		t.Fatalf("kind = %s, want %s: %v", fe.Kind, k, err)
	}
	return fe
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	addr, err := loopback.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

func TestUnreachableAPI(t *testing.T) {
	t.Parallel()
	addr := closedPort(t)
	for _, kind := range []forge.Forge{forge.GitHub, forge.GitLab, forge.Gitea, forge.Bitbucket} {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			c, err := forge.New(forge.WithEndpoints(forge.Endpoint{Host: "git.example", Kind: kind, APIURL: "http://" + addr + "/api"}))
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.BranchProtection(context.Background(), "https://git.example/acme/web.git", "main", creds(tokWriter))
			fe := wantKind(t, err, netclass.Connect)
			if fe.Method != "GET" || !strings.HasPrefix(fe.URL, "http://"+addr+"/api/") {
				t.Errorf("request = %s %s", fe.Method, fe.URL)
			}
			if len(p.Calls) != 1 || p.Calls[0].Status != 0 {
				t.Errorf("calls = %v", p.Calls)
			}
		})
	}
}

func TestSlowAPITimesOut(t *testing.T) {
	t.Parallel()
	cfg := labConfig()
	cfg.Delay = 10 * time.Minute // answers only after the client gave up, however slow the machine
	_, c := startLab(t, cfg, forge.WithRequestTimeout(150*time.Millisecond))
	for _, u := range []string{"https://" + ghesHost + "/acme/web", "https://" + gitlabHost + "/group/sub/proj", "https://" + giteaHost + "/acme/web"} {
		start := time.Now()
		_, err := c.BranchProtection(context.Background(), u, "main", creds(tokWriter))
		wantKind(t, err, netclass.Timeout)
		if d := time.Since(start); d > time.Minute { // a net for a hang, not a timing
			t.Errorf("%s: took %v despite the 150ms timeout", u, d)
		}
	}
}

func TestCallerCancel(t *testing.T) {
	t.Parallel()
	cfg := labConfig()
	cfg.Delay = 10 * time.Minute
	_, c := startLab(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := c.BranchProtection(ctx, "https://"+gitlabHost+"/group/sub/proj", "main", creds(tokWriter))
	wantKind(t, err, netclass.Canceled)
}

func TestBadResponses(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 2<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.Contains(r.URL.Path, "/html/"):
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html>login page</html>"))
		case strings.Contains(r.URL.Path, "/big/"):
			_, _ = w.Write([]byte(`{"name":"` + big + `"}`))
		case strings.Contains(r.URL.Path, "/boom/"):
			http.Error(w, "internal error\n"+strings.Repeat("trace line\n", 200), http.StatusInternalServerError)
		case strings.Contains(r.URL.Path, "/limit/"):
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"message":"slow down"}`))
		}
	}))
	t.Cleanup(srv.Close)
	c, err := forge.New(forge.WithEndpoints(forge.Endpoint{Host: "gitea.test", Kind: forge.Gitea, APIURL: srv.URL + "/api/v1"}))
	if err != nil {
		t.Fatal(err)
	}
	for owner, want := range map[string]forge.Kind{"html": forge.BadResponse, "big": forge.BadResponse, "boom": forge.BadResponse, "limit": forge.RateLimited} {
		_, err := c.BranchProtection(context.Background(), "https://gitea.test/"+owner+"/repo", "main", creds(tokWriter))
		fe := wantKind(t, err, want)
		if s := fe.Error(); strings.Contains(s, "\n") || len(s) > 600 {
			t.Errorf("%s: error not one bounded line: %q", owner, s)
		}
	}
}

// TestTokenStaysOnAPIHost: a redirect to another host must not carry the
// token there.
func TestTokenStaysOnAPIHost(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("Authorization")+r.Header.Get("PRIVATE-TOKEN"))
		mu.Unlock()
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(other.Close)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusMovedPermanently)
	}))
	t.Cleanup(api.Close)
	for _, kind := range []forge.Forge{forge.GitHub, forge.GitLab, forge.Gitea, forge.Bitbucket} {
		c, err := forge.New(forge.WithEndpoints(forge.Endpoint{Host: "git.example", Kind: kind, APIURL: api.URL}))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.BranchProtection(context.Background(), "https://git.example/acme/web", "main", creds(tokWriter))
		if err == nil {
			t.Fatalf("%s: no error", kind)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) == 0 {
		t.Fatal("the redirect target saw no request")
	}
	for _, h := range leaked {
		if h != "" {
			t.Errorf("credentials sent to the redirect target: %q", h)
		}
	}
}

func TestNewRejectsBadEndpoints(t *testing.T) {
	t.Parallel()
	for _, ep := range []forge.Endpoint{
		{Host: "", Kind: forge.GitHub},
		{Host: "git.example", Kind: forge.Unknown},
		{Host: "git.example", Kind: forge.Bitbucket}, // no self-hosted default
		{Host: "git.example", Kind: forge.GitLab, APIURL: "ftp://git.example/api"},
		{Host: "git.example", Kind: forge.GitLab, APIURL: "https://user:pw@git.example/api/v4"},
		{Host: "https://git.example", Kind: forge.GitLab},
	} {
		if _, err := forge.New(forge.WithEndpoints(ep)); err == nil {
			t.Errorf("New accepted %+v", ep)
		}
	}
	if _, err := forge.New(forge.WithEndpoints(forge.Endpoint{Host: "git.example", Kind: forge.GitLab})); err != nil {
		t.Errorf("default API URL: %v", err)
	}
}
