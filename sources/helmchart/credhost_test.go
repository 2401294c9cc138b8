package helmchart

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestRepoCredentialsNotForwardedOnRedirect: the repository's index.yaml
// and chart archive answer with a redirect to another origin: the same
// address on another port (which Go's client treats as the same host for
// headers set on the request, as Helm sets its Basic header) and a
// subdomain-like host. The repository's credentials go to the repository's
// scheme and host:port only; the redirect target gets the request without
// them.
func TestRepoCredentialsNotForwardedOnRedirect(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var leaked, reached []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reached = append(reached, r.URL.Path)
		if a := r.Header.Get("Authorization"); a != "" {
			if d, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(a, "Basic ")); err == nil && strings.Contains(string(d), canaryPass) {
				leaked = append(leaked, r.URL.Path)
			}
		}
		mu.Unlock()
		http.Error(w, "nothing here", http.StatusNotFound)
	}))
	t.Cleanup(elsewhere.Close)
	var originSaw bool
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); ok && u == canaryUser && p == canaryPass {
			mu.Lock()
			originSaw = true
			mu.Unlock()
		}
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(origin.Close)

	_, err := values(t, Source{RepoURL: origin.URL, Chart: "app", TargetRevision: "1.0.0"}, goodAuth())
	if err == nil {
		t.Fatal("the redirected index should not be found")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) > 0 {
		t.Fatalf("the repository's credentials followed a redirect to another host:port: %v", leaked)
	}
	if !originSaw || len(reached) == 0 {
		t.Fatalf("the repository got the credentials: %v, the redirect was followed: %v (else the test proves nothing)", originSaw, reached)
	}
}
