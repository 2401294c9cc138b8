package registry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/imgupd/imgupd/internal/netclass"
	labregistry "github.com/imgupd/imgupd/lab/registry"
)

// TestAccess lists tags and reads metadata under each way of reaching a
// registry, and checks each failure's kind.
func TestAccess(t *testing.T) {
	t.Parallel()
	plain := startLab(t)
	basic := startLab(t, labregistry.WithBasicAuth("alice", "s3cret"))
	token := startLab(t, labregistry.WithTokenAuth("bob", "t0ken-pass"))
	tlsLab := startLab(t, labregistry.WithTLS())
	denied := startLab(t, labregistry.WithRepoBehaviour("team/app", labregistry.Behaviour{Status: http.StatusForbidden}))
	limited := startLab(t, labregistry.WithRepoBehaviour("team/app", labregistry.Behaviour{
		Status: http.StatusTooManyRequests, RetryAfter: 42 * time.Second}))
	for _, s := range []*labregistry.Server{plain, basic, token, tlsLab, denied, limited} {
		push(t, s, "team/app", labregistry.Image{Tag: "1.0.0", Created: day(1)}, labregistry.Image{Tag: "1.1.0", Created: day(2)})
	}

	withCreds := func(tg Target, u, p string) Target { tg.Username, tg.Password = u, p; return tg }
	noCA := func(tg Target) Target { tg.CAData = nil; return tg }
	insecure := func(tg Target) Target { tg.CAData, tg.Insecure = nil, true; return tg }

	for _, tc := range []struct {
		name     string
		target   Target
		wantKind Kind // Other with ok=true means success
		ok       bool
		status   int
		code     string
	}{
		{name: "anonymous plain http", target: targetOf(plain, "team/app"), ok: true},
		{name: "basic good", target: withCreds(targetOf(basic, "team/app"), "alice", "s3cret"), ok: true},
		{name: "basic none", target: targetOf(basic, "team/app"), wantKind: Unauthorized, status: 401},
		{name: "basic wrong", target: withCreds(targetOf(basic, "team/app"), "alice", "nope"), wantKind: Unauthorized, status: 401},
		{name: "token good", target: withCreds(targetOf(token, "team/app"), "bob", "t0ken-pass"), ok: true},
		{name: "token none", target: targetOf(token, "team/app"), wantKind: Unauthorized, status: 401},
		{name: "token wrong", target: withCreds(targetOf(token, "team/app"), "bob", "nope"), wantKind: Unauthorized, status: 401},
		{name: "tls with CA", target: targetOf(tlsLab, "team/app"), ok: true},
		{name: "tls without CA", target: noCA(targetOf(tlsLab, "team/app")), wantKind: netclass.TLS},
		{name: "tls insecure", target: insecure(targetOf(tlsLab, "team/app")), ok: true},
		{name: "tls to plain http server", target: Target{APIURL: "https://" + plain.Host, Repository: "team/app"}, wantKind: netclass.TLS},
		{name: "forbidden", target: targetOf(denied, "team/app"), wantKind: Forbidden, status: 403, code: "DENIED"},
		{name: "rate limited", target: targetOf(limited, "team/app"), wantKind: RateLimited, status: 429, code: "TOOMANYREQUESTS"},
		{name: "missing repository", target: targetOf(plain, "team/nope"), wantKind: NotFound, status: 404, code: "NAME_UNKNOWN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := New()
			ctx := testCtx(t)
			tags, err := c.ListTags(ctx, tc.target)
			if tc.ok {
				if err != nil {
					t.Fatalf("ListTags: %v", err)
				}
				if got := strings.Join(tags, ","); got != "1.0.0,1.1.0" {
					t.Errorf("tags = %s", got)
				}
				meta, err := c.Metadata(ctx, tc.target, tags, nil)
				if err != nil {
					t.Fatalf("Metadata: %v", err)
				}
				if m := meta["1.1.0"]; m.Err != "" || len(m.Manifests) != 1 || !m.Manifests[0].Created.Equal(day(2)) {
					t.Errorf("metadata 1.1.0 = %+v", m)
				}
				return
			}
			e := wantKind(t, err, tc.wantKind)
			if e.Op != "list tags" || e.Status != tc.status {
				t.Errorf("op %q status %d, want list tags %d", e.Op, e.Status, tc.status)
			}
			if tc.code != "" && (len(e.Codes) == 0 || e.Codes[0] != tc.code) {
				t.Errorf("codes = %v, want %s", e.Codes, tc.code)
			}
			if tc.wantKind == RateLimited && e.RetryAfter != 42*time.Second {
				t.Errorf("RetryAfter = %v, want 42s", e.RetryAfter)
			}
			if adviceFor(e) == "" || strings.Contains(e.Error(), "\n") {
				t.Errorf("hint %q, error %q", adviceFor(e), e.Error())
			}
			// Metadata reports the same failure per tag, not as its error.
			meta, err := c.Metadata(ctx, tc.target, []string{"1.0.0"}, nil)
			if err != nil {
				t.Fatalf("Metadata returned %v; per-tag failures belong in TagMeta.Err", err)
			}
			if m := meta["1.0.0"]; m.Err == "" {
				t.Errorf("Metadata 1.0.0 has no Err: %+v", m)
			}
		})
	}
}

func TestListTagsSlowRegistryTimesOut(t *testing.T) {
	t.Parallel()
	s := startLab(t, labregistry.WithRepoBehaviour("slow", labregistry.Behaviour{Delay: 10 * time.Minute, Only: "tags"}))
	push(t, s, "slow", labregistry.Image{Tag: "1"})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err := New().ListTags(ctx, targetOf(s, "slow"))
	wantKind(t, err, netclass.Timeout)
	if d := time.Since(begin); d > time.Minute { // the registry holds the list 10 minutes: a net for a hang
		t.Errorf("gave up after %v; the deadline was 200ms", d)
	}
}

func TestNetworkFailures(t *testing.T) {
	t.Parallel()
	lab := startLab(t)
	push(t, lab, "app", labregistry.Image{Tag: "1"})
	deadProxy, _ := url.Parse("http://" + closedPort(t))

	for _, tc := range []struct {
		name   string
		target Target
		opts   []Option
		want   Kind
	}{
		{"unresolvable host", Target{APIURL: "https://registry.invalid", Repository: "app"}, nil, netclass.DNS},
		{"closed port", Target{APIURL: "http://" + closedPort(t), Repository: "app"}, nil, netclass.Connect},
		{"dead proxy", targetOf(lab, "app"), []Option{WithTransport(&http.Transport{Proxy: http.ProxyURL(deadProxy)})}, netclass.Proxy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := New(tc.opts...)
			ctx := testCtx(t)
			e := wantKind(t, c.Ping(ctx, tc.target), tc.want)
			if e.Op != "ping" {
				t.Errorf("op = %q", e.Op)
			}
			_, err := c.ListTags(ctx, tc.target)
			wantKind(t, err, tc.want)
		})
	}
}

func TestPing(t *testing.T) {
	t.Parallel()
	plain := startLab(t)
	basic := startLab(t, labregistry.WithBasicAuth("u", "p"))
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			_, _ = w.Write([]byte("<html>hello</html>"))
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(web.Close)

	c := New()
	ctx := testCtx(t)
	if err := c.Ping(ctx, Target{APIURL: plain.URL}); err != nil {
		t.Errorf("ping registry: %v", err)
	}
	if err := c.Ping(ctx, Target{APIURL: basic.URL}); err != nil {
		t.Errorf("ping registry answering 401: %v", err)
	}
	e := wantKind(t, c.Ping(ctx, Target{APIURL: web.URL}), NotRegistry)
	if e.Status != http.StatusNotFound || !strings.Contains(adviceFor(e), "api_url") {
		t.Errorf("status %d, hint %q", e.Status, adviceFor(e))
	}
	if got := c.Stats().Ping; got != 3 {
		t.Errorf("Stats().Ping = %d, want 3", got)
	}
}

func TestListTagsPaginates(t *testing.T) {
	t.Parallel()
	const n = 5001
	imgs := make([]labregistry.Image, n)
	for i, tag := range tagNames("1.0.", n) {
		imgs[i] = labregistry.Image{Tag: tag, SameAs: "1.0.0"}
	}
	imgs[0] = labregistry.Image{Tag: "1.0.0", Created: day(0)}

	for _, tc := range []struct {
		name     string
		pageSize int
		pages    int64
	}{
		{"client page size", 0, 6},
		{"server caps at 250", 250, 21},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var opts []labregistry.Option
			if tc.pageSize > 0 {
				opts = append(opts, labregistry.WithPageSize(tc.pageSize))
			}
			s := startLab(t, opts...)
			push(t, s, "big", imgs...)
			c := New()
			tags, err := c.ListTags(testCtx(t), targetOf(s, "big"))
			if err != nil {
				t.Fatal(err)
			}
			if len(tags) != n {
				t.Fatalf("got %d tags, want %d", len(tags), n)
			}
			seen := map[string]bool{}
			for _, tg := range tags {
				seen[tg] = true
			}
			if len(seen) != n || !sort.StringsAreSorted(tags) {
				t.Errorf("%d distinct tags, sorted %v", len(seen), sort.StringsAreSorted(tags))
			}
			if st := c.Stats(); st.TagPages != tc.pages || st.Ping != 1 {
				t.Errorf("stats = %v, want %d pages and 1 ping", st, tc.pages)
			}
			if got := s.Requests().Tags; int64(got) != tc.pages {
				t.Errorf("server saw %d tag pages", got)
			}
		})
	}
}

func TestListTagsOverTLSPaginates(t *testing.T) {
	t.Parallel()
	// remote.List refuses next-page links of https registries on loopback
	// and private addresses; ListTags must not.
	s := startLab(t, labregistry.WithTLS(), labregistry.WithPageSize(2))
	push(t, s, "app", labregistry.Image{Tag: "a"}, labregistry.Image{Tag: "b", SameAs: "a"},
		labregistry.Image{Tag: "c", SameAs: "a"}, labregistry.Image{Tag: "d", SameAs: "a"}, labregistry.Image{Tag: "e", SameAs: "a"})
	tags, err := New().ListTags(testCtx(t), targetOf(s, "app"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tags, ","); got != "a,b,c,d,e" {
		t.Errorf("tags = %s", got)
	}

	// The reason ListTags paginates itself (go-containerregistry v0.22.1).
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.CAPEM)
	repo, err := name.NewRepository(s.Host + "/app")
	if err != nil {
		t.Fatal(err)
	}
	rt := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	if got, err := remote.List(repo, remote.WithTransport(rt)); err == nil {
		t.Logf("remote.List now follows https Link headers on loopback (%d tags): ListTags could use it again", len(got))
	}
}

func TestNextPage(t *testing.T) {
	t.Parallel()
	cur, _ := url.Parse("https://r.example/v2/app/tags/list?n=1000")
	for _, tc := range []struct {
		link, want string
		wantErr    bool
	}{
		{"", "", false},
		{`</v2/app/tags/list?last=b&n=1000>; rel="next"`, "https://r.example/v2/app/tags/list?last=b&n=1000", false},
		{`<https://r.example/v2/app/tags/list?last=c>; rel=next`, "https://r.example/v2/app/tags/list?last=c", false},
		{`</v2/app/tags/list?last=a>; rel="prev", </v2/app/tags/list?last=z>; rel="next"`, "https://r.example/v2/app/tags/list?last=z", false},
		{`<https://evil.example/v2/app/tags/list>; rel="next"`, "", true},
		{`<http://r.example/v2/app/tags/list>; rel="next"`, "", true},
		{`/v2/app/tags/list; rel="next"`, "", true},
		{`</v2/app/tags/list?n=1000>; rel="next"`, "", true},
	} {
		next, err := nextPage(cur, tc.link)
		if (err != nil) != tc.wantErr {
			t.Errorf("nextPage(%q) err = %v", tc.link, err)
			continue
		}
		got := ""
		if next != nil {
			got = next.String()
		}
		if got != tc.want {
			t.Errorf("nextPage(%q) = %q, want %q", tc.link, got, tc.want)
		}
	}
}

// TestTokenFetchedOnce checks the Bearer flow costs one /v2/ ping and one
// token request per target, however many calls follow.
func TestTokenFetchedOnce(t *testing.T) {
	t.Parallel()
	s := startLab(t, labregistry.WithTokenAuth("bob", "pw"))
	push(t, s, "app", labregistry.Image{Tag: "1", Created: day(1)}, labregistry.Image{Tag: "2", Created: day(2)})
	tg := targetOf(s, "app")
	tg.Username, tg.Password = "bob", "pw"
	c := New()
	ctx := testCtx(t)
	for range 2 {
		tags, err := c.ListTags(ctx, tg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Metadata(ctx, tg, tags, nil); err != nil {
			t.Fatal(err)
		}
	}
	// 2 × (1 page + 2 manifests) + 2 configs once (cached), 1 ping, 1 token.
	want := Stats{Ping: 1, Auth: 1, TagPages: 2, Manifests: 4, Blobs: 2}
	if got := c.Stats(); got != want {
		t.Errorf("Stats = %v, want %v", got, want)
	}
	if got := s.Requests(); got.Token != 1 || got.Ping != 1 || got.Total() != int(want.Total()) {
		t.Errorf("server saw %+v", got)
	}
}
