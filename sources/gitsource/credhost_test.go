package gitsource

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/imgupd/imgupd/model/updater"
)

// authLog records the Authorization headers a loopback server is sent.
type authLog struct {
	mu       sync.Mutex
	auths    []string
	requests int
}

func (l *authLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.requests++
		if a := r.Header.Get("Authorization"); a != "" {
			l.auths = append(l.auths, a)
		}
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// saw reports whether a recorded Basic header carries pass.
func (l *authLog) saw(pass string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range l.auths {
		if b, ok := strings.CutPrefix(a, "Basic "); ok {
			if d, err := base64.StdEncoding.DecodeString(b); err == nil && strings.Contains(string(d), pass) {
				return true
			}
		}
	}
	return false
}

// TestCredentialsNotSentToRedirectTarget: the repository's host answers its
// ref advertisement with a redirect to another origin (here a real git
// server on another port, as a moved repository or a hostile host would):
// go-git follows the initial redirect as git does (FollowInitialRedirects)
// but drops the credentials at the origin boundary, so the other server
// never sees them; the repository's own host did (the test can fail).
func TestCredentialsNotSentToRedirectTarget(t *testing.T) {
	elsewhere := authedLab(t)
	var targetLog, originLog authLog
	target := httptest.NewServer(targetLog.wrap(mustProxy(t, elsewhere.URL)))
	t.Cleanup(target.Close)
	origin := httptest.NewServer(originLog.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="origin"`)
			http.Error(w, "auth", http.StatusUnauthorized)
			return
		}
		http.Redirect(w, r, target.URL+r.URL.RequestURI(), http.StatusFound)
	})))
	t.Cleanup(origin.Close)

	c := newClient()
	auth := Auth{Username: writerUser, Password: updater.Secret(writerPass)}
	_, err := c.LsRemote(context.Background(), origin.URL+"/team/app.git", auth)
	if err == nil {
		t.Fatal("the redirected ls-remote should fail without credentials on the other origin")
	}
	if targetLog.saw(writerPass) {
		t.Fatal("the credentials followed the redirect to another origin")
	}
	if targetLog.requests == 0 {
		t.Fatal("the redirect was not followed: the test proves nothing")
	}
	if !originLog.saw(writerPass) {
		t.Fatal("the repository's own host never got the credentials: the test proves nothing")
	}
	// Credentials in the URL are moved to Auth and dropped the same way.
	_, _ = c.LsRemote(context.Background(), strings.Replace(origin.URL, "http://", "http://"+writerUser+":"+writerPass+"@", 1)+"/team/app.git", Auth{})
	if targetLog.saw(writerPass) {
		t.Fatal("URL credentials followed the redirect to another origin")
	}
}

func mustProxy(t *testing.T, raw string) http.Handler {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return httputil.NewSingleHostReverseProxy(u)
}
