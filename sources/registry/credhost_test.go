package registry

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

	labregistry "github.com/imgupd/imgupd/lab/registry"
	updater "github.com/imgupd/imgupd/model/updater"
)

const (
	canaryUser = "canary-user"
	canaryPass = "canary-pass-6b1f0e"
)

// recorder is a loopback server that records the Authorization headers it
// is sent and answers what the test tells it to.
type recorder struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
}

func newRecorder(t *testing.T, h http.HandlerFunc) *recorder {
	t.Helper()
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		if a := req.Header.Get("Authorization"); a != "" {
			r.auths = append(r.auths, a)
		}
		r.mu.Unlock()
		h(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

// sawCanary: the password, plainly or inside Basic's base64.
func sawCanary(auths []string) bool {
	for _, a := range auths {
		if strings.Contains(a, canaryPass) {
			return true
		}
		if b, ok := strings.CutPrefix(a, "Basic "); ok {
			if d, err := base64.StdEncoding.DecodeString(b); err == nil && strings.Contains(string(d), canaryPass) {
				return true
			}
		}
	}
	return false
}

func (r *recorder) sawCanary() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return sawCanary(r.auths)
}

// front is a real registry (the lab's) behind a reverse proxy that sends
// some requests elsewhere with a 307, as registries do for blobs in object
// storage. It records the Authorization headers it is sent: it is the
// registry's host.
func front(t *testing.T, lab *labregistry.Server, redirect func(*http.Request) string) *recorder {
	t.Helper()
	u, _ := url.Parse(lab.URL)
	proxy := httputil.NewSingleHostReverseProxy(u)
	return newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if to := redirect(r); to != "" {
			http.Redirect(w, r, to, http.StatusTemporaryRedirect)
			return
		}
		proxy.ServeHTTP(w, r)
	})
}

// TestCredentialsStayOnTheRegistryHost: a registry's credentials go to the
// registry's host, never to a host a redirect points at (here another port
// of the same address, which Go's client would treat as the same host for
// headers set before the request): go-containerregistry sets Authorization
// inside its transport, only for the registry's host, and Go's client does
// not copy headers a transport set onto the redirected request. The tag
// list (paginated by imgupd itself) and the manifests both go through it.
func TestCredentialsStayOnTheRegistryHost(t *testing.T) {
	t.Parallel()
	lab := startLab(t, labregistry.WithBasicAuth(canaryUser, canaryPass))
	push(t, lab, "team/app", labregistry.Image{Tag: "1.0.0"})
	elsewhere := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/tags/list") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"name":"team/app","tags":["1.0.0","9.9.9"]}`))
			return
		}
		http.NotFound(w, r)
	})
	for _, c := range []struct {
		name     string
		redirect func(*http.Request) string
		run      func(context.Context, *Client, Target) error
	}{
		{"tag list", func(r *http.Request) string {
			if strings.HasSuffix(r.URL.Path, "/tags/list") {
				return elsewhere.URL + r.URL.Path
			}
			return ""
		}, func(ctx context.Context, c *Client, t Target) error { _, err := c.ListTags(ctx, t); return err }},
		{"manifest", func(r *http.Request) string {
			if strings.Contains(r.URL.Path, "/manifests/") {
				return elsewhere.URL + r.URL.Path
			}
			return ""
		}, func(ctx context.Context, c *Client, t Target) error {
			_, err := c.Metadata(ctx, t, []string{"1.0.0"}, func(updater.Platform) bool { return true })
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := front(t, lab, c.redirect)
			target := Target{APIURL: f.URL, Repository: "team/app", Username: canaryUser, Password: canaryPass}
			_ = c.run(testCtx(t), New(), target)
			if elsewhere.sawCanary() {
				t.Fatal("the registry's credentials went to the host it redirected to")
			}
			if !f.sawCanary() {
				t.Fatal("the registry itself never got the credentials: the test proves nothing")
			}
		})
	}
}

// TestTokenRealmOnAnotherPrivateHostIsRefused: a registry whose Bearer
// challenge names a token realm on another private address (here the real
// token server, on another port) gets no credentials there:
// go-containerregistry refuses realms on private or link-local addresses
// other than the registry's own host:port, so an internal service cannot
// be handed the password.
func TestTokenRealmOnAnotherPrivateHostIsRefused(t *testing.T) {
	t.Parallel()
	lab := startLab(t, labregistry.WithTokenAuth(canaryUser, canaryPass))
	push(t, lab, "team/app", labregistry.Image{Tag: "1.0.0"})
	f := front(t, lab, func(*http.Request) string { return "" })
	lab.ResetRequests()
	_, err := New().ListTags(testCtx(t), Target{APIURL: f.URL, Repository: "team/app", Username: canaryUser, Password: canaryPass})
	if err == nil {
		t.Fatal("listing through a realm on another private host should fail")
	}
	if sawCanary(lab.Authorizations()) || lab.Requests().Token != 0 {
		t.Fatalf("the token server on another host got %d request(s): %v", lab.Requests().Token, lab.Authorizations())
	}
}
