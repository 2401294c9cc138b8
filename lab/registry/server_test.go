package labregistry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/imgupd/imgupd/model/updater"
)

func start(t *testing.T, opts ...Option) *Server {
	t.Helper()
	s, err := Start(opts...)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func repoRef(t *testing.T, s *Server, repo string) name.Repository {
	t.Helper()
	r, err := name.NewRepository(s.Host+"/"+repo, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestPushAndPull(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := context.Background()
	created := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	err := s.Push(ctx, "team/app",
		Image{Tag: "1.0.0", Created: created},
		Image{Tag: "arm", Created: created, Platforms: []updater.Platform{{OS: "linux", Arch: "arm64", Variant: "v8"}}},
		Image{Tag: "multi", Created: created.Add(time.Hour), Platforms: []updater.Platform{
			{OS: "linux", Arch: "amd64"}, {OS: "linux", Arch: "arm64", Variant: "v8"}}},
		Image{Tag: "latest", SameAs: "1.0.0"},
	)
	if err != nil {
		t.Fatalf("Push: %v", err)
	}
	// SameAs a tag pushed by an earlier call.
	if err := s.Push(ctx, "team/app", Image{Tag: "stable", SameAs: "multi"}); err != nil {
		t.Fatalf("Push SameAs earlier: %v", err)
	}
	repo := repoRef(t, s, "team/app")

	tags, err := remote.List(repo)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if got, want := strings.Join(tags, ","), "1.0.0,arm,latest,multi,stable"; got != want {
		t.Errorf("tags = %s, want %s", got, want)
	}

	single, err := remote.Image(repo.Tag("1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	cf, err := single.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if !cf.Created.Time.Equal(created) || cf.OS != "linux" || cf.Architecture != "amd64" || cf.Config.Labels[LabelTag] != "1.0.0" {
		t.Errorf("config = created %v %s/%s labels %v", cf.Created.Time, cf.OS, cf.Architecture, cf.Config.Labels)
	}
	same, err := remote.Get(repo.Tag("latest"))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := single.Digest(); same.Digest != d {
		t.Errorf("latest digest %s, want that of 1.0.0 %s", same.Digest, d)
	}

	idx, err := remote.Index(repo.Tag("multi"))
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 2 || im.Manifests[1].Platform == nil || im.Manifests[1].Platform.Variant != "v8" {
		t.Fatalf("index manifests = %+v", im.Manifests)
	}
	child, err := idx.Image(im.Manifests[1].Digest)
	if err != nil {
		t.Fatal(err)
	}
	ccf, err := child.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if ccf.Architecture != "arm64" || ccf.Variant != "v8" || !ccf.Created.Time.Equal(created.Add(time.Hour)) {
		t.Errorf("child config = %s/%s %v", ccf.Architecture, ccf.Variant, ccf.Created.Time)
	}
	stable, err := remote.Get(repo.Tag("stable"))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := idx.Digest(); stable.Digest != d {
		t.Errorf("stable digest %s, want %s", stable.Digest, d)
	}
}

func TestPaginationFollowsLink(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		pageSize int
		tags     int
		pages    int
	}{
		{"client n only", 0, 5001, 6},
		{"server cap below client n", 300, 1000, 4},
		{"exact multiple", 500, 1000, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var opts []Option
			if tc.pageSize > 0 {
				opts = append(opts, WithPageSize(tc.pageSize))
			}
			s := start(t, opts...)
			if err := s.Push(context.Background(), "big", manyTags(tc.tags)...); err != nil {
				t.Fatal(err)
			}
			s.ResetRequests()
			tags, err := remote.List(repoRef(t, s, "big"))
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			if len(tags) != tc.tags {
				t.Errorf("got %d tags, want %d", len(tags), tc.tags)
			}
			if got := s.Requests().Tags; got != tc.pages {
				t.Errorf("tag pages = %d, want %d", got, tc.pages)
			}
		})
	}
}

func TestTagsLastPastEnd(t *testing.T) {
	t.Parallel()
	s := start(t)
	if err := s.Push(context.Background(), "r", manyTags(3)...); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(s.URL + "/v2/r/tags/list?last=zzz&n=10")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Tags []string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if len(body.Tags) != 0 || resp.Header.Get("Link") != "" {
		t.Errorf("after the last tag: tags %v, Link %q; want none", body.Tags, resp.Header.Get("Link"))
	}
}

func manyTags(n int) []Image {
	imgs := make([]Image, n)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range imgs {
		imgs[i] = Image{Tag: fmt.Sprintf("1.0.%d", i), Created: base.Add(time.Duration(i) * time.Minute)}
		if i > 0 && i%10 != 0 {
			imgs[i] = Image{Tag: imgs[i].Tag, SameAs: fmt.Sprintf("1.0.%d", i-i%10)}
		}
	}
	return imgs
}

func fiveThousand() []Image {
	imgs := make([]Image, 5000)
	for i := range imgs {
		imgs[i] = Image{Tag: fmt.Sprintf("v%d", i), Created: time.Unix(int64(i), 0).UTC()}
	}
	return imgs
}

// TestPush5000 pushes 5,000 distinct images (its speed is measured by
// BenchmarkPush5000, not asserted here).
func TestPush5000(t *testing.T) {
	t.Parallel()
	s := start(t)
	begin := time.Now()
	if err := s.Push(context.Background(), "many", fiveThousand()...); err != nil {
		t.Fatal(err)
	}
	t.Logf("pushed 5000 distinct images in %v", time.Since(begin))
	tags, err := remote.List(repoRef(t, s, "many"))
	if err != nil || len(tags) != 5000 {
		t.Fatalf("listed %d tags, %v", len(tags), err)
	}
}

func BenchmarkPush5000(b *testing.B) {
	imgs := fiveThousand()
	for b.Loop() {
		s, err := Start()
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Push(context.Background(), "many", imgs...); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

func TestAuth(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		opt    Option
		auth   authn.Authenticator
		wantOK bool
	}{
		{"basic good", WithBasicAuth("u", "p"), &authn.Basic{Username: "u", Password: "p"}, true},
		{"basic wrong", WithBasicAuth("u", "p"), &authn.Basic{Username: "u", Password: "x"}, false},
		{"basic none", WithBasicAuth("u", "p"), authn.Anonymous, false},
		{"token good", WithTokenAuth("u", "p"), &authn.Basic{Username: "u", Password: "p"}, true},
		{"token wrong", WithTokenAuth("u", "p"), &authn.Basic{Username: "u", Password: "x"}, false},
		{"token none", WithTokenAuth("u", "p"), authn.Anonymous, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, tc.opt)
			if err := s.Push(context.Background(), "app", Image{Tag: "1"}); err != nil {
				t.Fatal(err)
			}
			tags, err := remote.List(repoRef(t, s, "app"), remote.WithAuth(tc.auth))
			if tc.wantOK != (err == nil) {
				t.Fatalf("List err = %v, want ok=%v", err, tc.wantOK)
			}
			if tc.wantOK && len(tags) != 1 {
				t.Errorf("tags = %v", tags)
			}
		})
	}
}

func TestTLS(t *testing.T) {
	t.Parallel()
	s := start(t, WithTLS())
	if !strings.HasPrefix(s.URL, "https://") || len(s.CAPEM) == 0 {
		t.Fatalf("URL %s, CAPEM %d bytes", s.URL, len(s.CAPEM))
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.CAPEM)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := c.Get(s.URL + "/v2/")
	if err != nil {
		t.Fatalf("GET with CA: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
	if _, err := http.Get(s.URL + "/v2/"); err == nil {
		t.Error("GET without the CA succeeded")
	}
}

func TestBehaviourAndCounts(t *testing.T) {
	t.Parallel()
	s := start(t,
		WithRepoBehaviour("denied", Behaviour{Status: http.StatusForbidden}),
		WithRepoBehaviour("limited", Behaviour{Status: http.StatusTooManyRequests, RetryAfter: 30 * time.Second, Only: "manifests"}),
	)
	ctx := context.Background()
	for _, r := range []string{"denied", "limited"} {
		if err := s.Push(ctx, r, Image{Tag: "1"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Requests().Total(); got != 0 {
		t.Errorf("pushes counted: %d requests", got)
	}
	for _, tc := range []struct {
		path, code string
		status     int
		retryAfter string
	}{
		{"/v2/denied/tags/list", "DENIED", 403, ""},
		{"/v2/denied/manifests/1", "DENIED", 403, ""},
		{"/v2/limited/tags/list", "", 200, ""},
		{"/v2/limited/manifests/1", "TOOMANYREQUESTS", 429, "30"},
	} {
		resp, err := http.Get(s.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Errors []struct{ Code string } }
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get("Retry-After") != tc.retryAfter {
			t.Errorf("%s: status %d Retry-After %q", tc.path, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		if tc.code != "" && (len(body.Errors) == 0 || body.Errors[0].Code != tc.code) {
			t.Errorf("%s: errors %+v, want %s", tc.path, body.Errors, tc.code)
		}
	}
	got := s.Requests()
	if got.Tags != 2 || got.Manifest != 2 || got.MaxInFlight != 1 {
		t.Errorf("counts = %+v", got)
	}
	s.ResetRequests()
	if got := s.Requests(); got.Total() != 0 || got.MaxInFlight != 0 {
		t.Errorf("after reset: %+v", got)
	}
}

func TestDelayReleasedOnClientCancel(t *testing.T) {
	t.Parallel()
	s := start(t, WithRepoBehaviour("slow", Behaviour{Delay: time.Minute}))
	if err := s.Push(context.Background(), "slow", Image{Tag: "1"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := remote.List(repoRef(t, s, "slow"), remote.WithContext(ctx))
	if err == nil {
		t.Fatal("List of a slow repo did not time out")
	}
}

// TestHostileBehaviour: a behaviour's message replaces the error's, and its
// extra tags are listed (sorted in) beside the tags the repository holds.
func TestHostileBehaviour(t *testing.T) {
	t.Parallel()
	const msg = "<!channel> sign in at <https://evil.example|here>"
	s := start(t,
		WithRepoBehaviour("denied", Behaviour{Status: http.StatusForbidden, Message: msg}),
		WithRepoBehaviour("odd", Behaviour{ExtraTags: []string{"<!here>", "1.0-:fire:"}}),
	)
	ctx := context.Background()
	for _, r := range []string{"denied", "odd"} {
		if err := s.Push(ctx, r, Image{Tag: "1.0.0"}); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.Get(s.URL + "/v2/denied/tags/list")
	if err != nil {
		t.Fatal(err)
	}
	var errs struct {
		Errors []struct{ Code, Message string }
	}
	_ = json.NewDecoder(resp.Body).Decode(&errs)
	resp.Body.Close()
	if resp.StatusCode != 403 || len(errs.Errors) != 1 || errs.Errors[0].Code != "DENIED" || errs.Errors[0].Message != msg {
		t.Errorf("denied: %d %+v", resp.StatusCode, errs)
	}
	resp, err = http.Get(s.URL + "/v2/odd/tags/list")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Tags []string }
	_ = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if want := []string{"1.0-:fire:", "1.0.0", "<!here>"}; strings.Join(list.Tags, " ") != strings.Join(want, " ") {
		t.Errorf("tags %q, want %q", list.Tags, want)
	}
}
