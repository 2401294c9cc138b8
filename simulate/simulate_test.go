package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/imgupd/imgupd/internal/netclass"
	labregistry "github.com/imgupd/imgupd/lab/registry"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/sources/registry"
)

func day(d string) time.Time {
	t, err := time.Parse("2006-01-02", d)
	if err != nil {
		panic(err)
	}
	return t
}

var (
	amd = updater.Platform{OS: "linux", Arch: "amd64"}
	arm = updater.Platform{OS: "linux", Arch: "arm64"}
)

func start(t *testing.T, opts ...labregistry.Option) *labregistry.Server {
	t.Helper()
	srv, err := labregistry.Start(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

func push(t *testing.T, srv *labregistry.Server, repo string, imgs ...labregistry.Image) {
	t.Helper()
	if err := srv.Push(context.Background(), repo, imgs...); err != nil {
		t.Fatal(err)
	}
}

func str(s string) *string { return &s }

// TestCalibrationOnRealRegistry replays the picks of the real v1.3.0 `test`
// command through the whole path: real registry, real metadata, the model.
func TestCalibrationOnRealRegistry(t *testing.T) {
	srv := start(t)
	push(t, srv, "acme/pub", labregistry.CalibrationImages()...)
	stable, err := remote.Head(mustRef(t, srv.Host+"/acme/pub:1.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		req       Request
		want      string
		wantError string
	}{
		{name: "semver no constraint", req: Request{Strategy: "semver"}, want: "2020.01.01"},
		{name: "semver ^0.1 from the image", req: Request{Image: "acme/pub:^0.1", Strategy: "semver"}, want: "0.1.0"},
		{name: "semver 1.0", req: Request{Strategy: "semver", Constraint: str("1.0")}, want: "1.0.1"},
		{name: "prerelease range", req: Request{Strategy: "semver", Constraint: str(">=1.0.0-0,<1.0.1")}, want: "1.0.1-hotfix"},
		{name: "ignore 2020*", req: Request{Strategy: "semver", IgnoreTags: []string{"2020*"}}, want: "v1.1.5"},
		{name: "alphabetical", req: Request{Strategy: "alphabetical"}, want: "v1.1.5"},
		{name: "newest-build default platform", req: Request{Strategy: "newest-build"}, want: "nightly"},
		{name: "newest-build ignore nightly", req: Request{Strategy: "newest-build", IgnoreTags: []string{"nightly"}}, want: "1.0.1-hotfix"},
		{name: "newest-build arm64", req: Request{Strategy: "newest-build", Platforms: []string{"linux/arm64"}}, want: "dev-123"},
		{name: "digest on stable", req: Request{Strategy: "digest", Constraint: str("stable")}, want: "stable@" + stable.Digest.String()},
		{name: "semver constraint stable", req: Request{Strategy: "semver", Constraint: str("stable")}, wantError: "improper constraint: stable"},
	}
	r := &Runner{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			if req.Image == "" {
				req.Image = "acme/pub"
			}
			req.Image = srv.Host + "/" + req.Image
			req.PlainHTTP = true
			res, err := r.Run(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			d := res.Decision
			if tc.wantError != "" {
				if d.Err == nil || !strings.Contains(d.Err.Error(), tc.wantError) {
					t.Fatalf("want error %q, got %v", tc.wantError, d.Err)
				}
				return
			}
			if d.Selected == nil || d.Selected.String() != tc.want {
				t.Fatalf("pick %v, want %s: %s", d.Selected, tc.want, d.Reason)
			}
		})
	}
}

func mustRef(t *testing.T, s string) name.Reference {
	t.Helper()
	r, err := name.ParseReference(s, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFiveThousandTagsAcrossPages: every tag is read through Link pagination.
func TestFiveThousandTagsAcrossPages(t *testing.T) {
	srv := start(t, labregistry.WithPageSize(400))
	var imgs []labregistry.Image
	for i := 0; i < 5003; i++ {
		imgs = append(imgs, labregistry.Image{Tag: fmt.Sprintf("1.%d.%d", i/100, i%100), Created: day("2026-01-01")})
	}
	push(t, srv, "big/app", imgs...)
	srv.ResetRequests()
	res, err := (&Runner{}).Run(context.Background(), Request{Image: srv.Host + "/big/app:~1.49", PlainHTTP: true, CurrentTag: str("1.49.0")})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Decision
	if d.Listed != 5003 {
		t.Fatalf("listed %d tags, want 5003", d.Listed)
	}
	if d.Selected == nil || d.Selected.Tag != "1.49.99" || d.Outcome != updater.OutcomeUpdate {
		t.Fatalf("pick %v outcome %s", d.Selected, d.Outcome)
	}
	if d.Candidates != 100 {
		t.Errorf("candidates %d, want 100", d.Candidates)
	}
	if got := srv.Requests(); got.Tags < 13 || got.Manifest != 0 || got.Blob != 0 {
		t.Errorf("requests %+v: want >=13 tag pages and no manifest or blob fetch for semver", got)
	}
}

// TestCredentialsAndFailures covers auth and the classified failures, and
// checks that a canary password never appears in any output.
func TestCredentialsAndFailures(t *testing.T) {
	const user, pass = "CANARY-user-7f3a", "CANARY-pass-9c1e"
	t.Setenv("IMGUPD_TEST_CREDS", user+":"+pass)
	t.Setenv("IMGUPD_TEST_BAD", user+":wrong")

	basic := start(t, labregistry.WithBasicAuth(user, pass))
	push(t, basic, "team/app", labregistry.Image{Tag: "1.0.0"}, labregistry.Image{Tag: "1.1.0"})
	token := start(t, labregistry.WithTokenAuth(user, pass))
	push(t, token, "team/app", labregistry.Image{Tag: "2.0.0"})
	denied := start(t, labregistry.WithRepoBehaviour("team/app", labregistry.Behaviour{Status: 403}))
	push(t, denied, "team/app", labregistry.Image{Tag: "1.0.0"})
	limited := start(t, labregistry.WithRepoBehaviour("team/app", labregistry.Behaviour{Status: 429, RetryAfter: 30 * time.Second}))
	push(t, limited, "team/app", labregistry.Image{Tag: "1.0.0"})
	slow := start(t, labregistry.WithRepoBehaviour("team/app", labregistry.Behaviour{Delay: 3 * time.Second, Only: "tags"}))
	push(t, slow, "team/app", labregistry.Image{Tag: "1.0.0"})

	cases := []struct {
		name    string
		host    string
		creds   string
		timeout time.Duration
		want    string        // pick
		kind    registry.Kind // failure kind
		input   bool          // an InputError
	}{
		{name: "basic auth via env", host: basic.Host, creds: "env:IMGUPD_TEST_CREDS", want: "1.1.0"},
		{name: "basic auth missing", host: basic.Host, kind: registry.Unauthorized},
		{name: "basic auth wrong", host: basic.Host, creds: "env:IMGUPD_TEST_BAD", kind: registry.Unauthorized},
		{name: "token auth", host: token.Host, creds: "env:IMGUPD_TEST_CREDS", want: "2.0.0"},
		{name: "token auth missing", host: token.Host, kind: registry.Unauthorized},
		{name: "403 denied", host: denied.Host, kind: registry.Forbidden},
		{name: "429 rate limited", host: limited.Host, kind: registry.RateLimited},
		{name: "slow registry times out", host: slow.Host, timeout: 500 * time.Millisecond, kind: netclass.Timeout},
		{name: "unresolvable host", host: "registry.invalid", kind: netclass.DNS},
		{name: "env var not set", host: basic.Host, creds: "env:IMGUPD_TEST_UNSET", input: true},
		{name: "credential ref without prefix", host: basic.Host, creds: "argocd/regcred", input: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			res, err := (&Runner{}).Run(ctx, Request{Image: tc.host + "/team/app", PlainHTTP: true, Credentials: tc.creds})
			var all strings.Builder
			if err != nil {
				all.WriteString(err.Error())
				var re *RegistryError
				if errors.As(err, &re) {
					all.WriteString(re.Hint())
				}
			} else {
				WriteText(&all, res, TextOptions{All: true})
				b, _ := json.Marshal(NewJSON(res))
				all.Write(b)
			}
			if strings.Contains(all.String(), pass) || strings.Contains(all.String(), "wrong") && tc.creds == "env:IMGUPD_TEST_BAD" {
				t.Fatalf("output leaks a password:\n%s", all.String())
			}
			switch {
			case tc.want != "":
				if err != nil {
					t.Fatal(err)
				}
				if res.Decision.Selected == nil || res.Decision.Selected.Tag != tc.want {
					t.Fatalf("pick %v, want %s", res.Decision.Selected, tc.want)
				}
				if !strings.Contains(res.CredentialsUsed, "IMGUPD_TEST_CREDS") {
					t.Errorf("credentials used = %q", res.CredentialsUsed)
				}
			case tc.input:
				var ie *InputError
				if !errors.As(err, &ie) {
					t.Fatalf("want InputError, got %T %v", err, err)
				}
			default:
				var re *RegistryError
				if !errors.As(err, &re) {
					t.Fatalf("want RegistryError, got %T %v", err, err)
				}
				if re.Err.Kind != tc.kind {
					t.Fatalf("kind %s, want %s (%v)", re.Err.Kind, tc.kind, err)
				}
				if re.Hint() == "" {
					t.Error("no hint")
				}
			}
		})
	}
}

// TestRegistriesConf: the endpoint, plain HTTP, TLS and credentials come from
// registries.conf exactly as Image Updater reads it.
func TestRegistriesConf(t *testing.T) {
	const user, pass = "CANARY-user-1b2c", "CANARY-pass-3d4e"
	t.Setenv("IMGUPD_CONF_CREDS", user+":"+pass)
	plain := start(t, labregistry.WithBasicAuth(user, pass))
	push(t, plain, "team/app", labregistry.Image{Tag: "1.0.0"})
	tlsSrv := start(t, labregistry.WithTLS())
	push(t, tlsSrv, "team/app", labregistry.Image{Tag: "3.0.0"})

	conf := fmt.Sprintf(`registries:
- name: plain
  api_url: http://%s/
  prefix: %s
  credentials: env:IMGUPD_CONF_CREDS
- name: selfsigned
  api_url: https://%s
  prefix: %s
  insecure: true
`, plain.Host, plain.Host, tlsSrv.Host, tlsSrv.Host)
	r := &Runner{}
	res, err := r.Run(context.Background(), Request{Image: plain.Host + "/team/app", RegistriesConf: []byte(conf)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Endpoint.Name != "plain" || res.Decision.Selected == nil || res.Decision.Selected.Tag != "1.0.0" {
		t.Fatalf("endpoint %q pick %v", res.Endpoint.Name, res.Decision.Selected)
	}
	res, err = r.Run(context.Background(), Request{Image: tlsSrv.Host + "/team/app", RegistriesConf: []byte(conf)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Endpoint.Name != "selfsigned" || res.Decision.Selected == nil || res.Decision.Selected.Tag != "3.0.0" {
		t.Fatalf("endpoint %q pick %v", res.Endpoint.Name, res.Decision.Selected)
	}
	// Without insecure: true the self-signed certificate is refused.
	_, err = r.Run(context.Background(), Request{Image: tlsSrv.Host + "/team/app"})
	var re *RegistryError
	if !errors.As(err, &re) || re.Err.Kind != netclass.TLS {
		t.Fatalf("want a TLS failure, got %v", err)
	}
	// A registries.conf Image Updater would refuse to load.
	_, err = r.Run(context.Background(), Request{Image: "x/y", RegistriesConf: []byte("registries:\n- name: a\n  api_url: https://a\n  bogus: 1\n")})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != "registries.conf" {
		t.Fatalf("want a registries.conf input error, got %v", err)
	}
}

// TestMetadataFetchedOncePerDigest: newest-build fetches one config per
// matching platform image, shared by tags on the same digest.
func TestMetadataFetchedOncePerDigest(t *testing.T) {
	srv := start(t)
	push(t, srv, "acme/web",
		labregistry.Image{Tag: "1.4.0", Created: day("2026-03-01"), Platforms: []updater.Platform{amd, arm}},
		labregistry.Image{Tag: "1.5.0", Created: day("2026-04-01"), Platforms: []updater.Platform{amd, arm}},
		labregistry.Image{Tag: "1.6.0", Created: day("2026-05-01"), Platforms: []updater.Platform{arm}},
		labregistry.Image{Tag: "latest", SameAs: "1.5.0"},
	)
	srv.ResetRequests()
	res, err := (&Runner{}).Run(context.Background(), Request{Image: srv.Host + "/acme/web", PlainHTTP: true, Strategy: "newest-build", CurrentTag: str("1.4.0")})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Decision
	// 1.5.0 and latest share a build date; the greater name wins the tie.
	if d.Selected == nil || d.Selected.Tag != "latest" {
		t.Fatalf("pick %v: %s", d.Selected, d.Reason)
	}
	for _, f := range d.Tags {
		if f.Tag == "1.6.0" && f.Fate != updater.FatePlatform {
			t.Errorf("1.6.0 (arm64 only) should be dropped by platform: %+v", f)
		}
	}
	got := srv.Requests()
	// Configs: the linux/amd64 child of 1.4.0 and of 1.5.0, and the config of
	// the single-platform 1.6.0 (its platform is only in its config). The
	// arm64 children are never fetched, and "latest" (same index as 1.5.0)
	// costs nothing more.
	if got.Blob != 3 {
		t.Errorf("config fetches = %d, want 3: %+v", got.Blob, got)
	}
	for digest, n := range got.Blobs {
		if n > 1 {
			t.Errorf("blob %s fetched %d times", digest, n)
		}
	}
}
