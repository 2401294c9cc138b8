package helmchart

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/internal/netclass"
	"github.com/imgupd/imgupd/lab/helmrepo"
	"github.com/imgupd/imgupd/lab/loopback"
	"github.com/imgupd/imgupd/model/updater"
)

func TestKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  Source
		want string
	}{
		{Source{RepoURL: "https://charts.example.com", Chart: "app"}, KindHelmRepo},
		{Source{RepoURL: "http://charts.example.com/stable/", Chart: "app"}, KindHelmRepo},
		{Source{RepoURL: "registry-1.docker.io/bitnamicharts", Chart: "nginx"}, KindOCIHelm},
		{Source{RepoURL: "ghcr.io/org/charts", Chart: "app"}, KindOCIHelm},
		{Source{RepoURL: "localhost:5000/charts", Chart: "app"}, KindOCIHelm},
		// url.Parse refuses a colon in the first path segment: Argo CD
		// needs enableOCI for an IP:port registry.
		{Source{RepoURL: "127.0.0.1:5000/charts", Chart: "app"}, KindHelmRepo},
		{Source{RepoURL: "127.0.0.1:5000/charts", Chart: "app", EnableOCI: true}, KindOCIHelm},
		{Source{RepoURL: "https://charts.example.com", Chart: "app", EnableOCI: true}, KindOCIHelm},
		{Source{RepoURL: "oci://ghcr.io/org/app", Path: "."}, KindOCIArtifact},
		{Source{RepoURL: "oci://ghcr.io/org/app", Chart: "ignored"}, KindOCIArtifact},
		{Source{RepoURL: "https://github.com/org/repo.git", Path: "charts/app"}, ""},
		{Source{}, ""},
	} {
		if got := Kind(tc.src); got != tc.want {
			t.Errorf("Kind(%+v) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

func TestRepoExactVersion(t *testing.T) {
	t.Parallel()
	s := startRepo(t)
	addCharts(t, s, "app", "1.0.0", "1.2.0", "1.2.3", "2.0.0")
	ch := mustValues(t, Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: "1.2.0"}, Auth{})
	wantValues(t, ch, "1.2.0")
	if ch.Kind != KindHelmRepo || ch.Name != "app" || ch.ValuesPath != "app/values.yaml" || ch.Ref != s.ArchiveURL("app", "1.2.0") {
		t.Errorf("chart = %+v", ch)
	}
}

func TestRepoConstraintPicksHighestMatch(t *testing.T) {
	t.Parallel()
	s := startRepo(t)
	addCharts(t, s, "app", "1.0.0", "1.2.0", "1.2.3", "1.10.0", "2.0.0", "3.0.0-rc.1", "nightly")
	for _, tc := range []struct{ rev, want string }{
		{"1.2.*", "1.2.3"},
		{">=1.0 <2", "1.10.0"},
		{"^1.2", "1.10.0"},
		{"~1.2", "1.2.3"},
		{"1.2.x", "1.2.3"},
		{"*", "2.0.0"}, // prereleases need a prerelease constraint
		{"", "2.0.0"},
		{">=3.0.0-0", "3.0.0-rc.1"},
		{"nightly", "nightly"}, // neither version nor constraint: string equality
		// Pins go to `helm pull --version` as they are: Helm takes the
		// verbatim entry, else the newest match of the pin as a constraint.
		{"v1.0.0", "1.0.0"},
		{"1.2", "1.2.3"},
	} {
		ch := mustValues(t, Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: tc.rev}, Auth{})
		if ch.Version != tc.want {
			t.Errorf("targetRevision %q → %s, want %s", tc.rev, ch.Version, tc.want)
		}
	}
}

func TestRepoMissingChart(t *testing.T) {
	t.Parallel()
	s := startRepo(t)
	addCharts(t, s, "app", "1.0.0")
	_, err := values(t, Source{RepoURL: s.RepoURL, Chart: "App", TargetRevision: "1.0.0"}, Auth{})
	e := wantKind(t, err, ChartNotFound)
	wantContains(t, e.Error(), `no chart "App"`, s.RepoURL+"/index.yaml")
	wantContains(t, adviceFor(e), "spec.source.chart")
}

func TestRepoMissingVersionListsVersions(t *testing.T) {
	t.Parallel()
	s := startRepo(t)
	var vs []string
	for i := range 14 {
		vs = append(vs, fmt.Sprintf("1.%d.0", i))
	}
	addCharts(t, s, "app", vs...)
	for _, rev := range []string{"9.9.9", "2.*"} {
		_, err := values(t, Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: rev}, Auth{})
		e := wantKind(t, err, VersionNotFound)
		if len(e.Versions) != 10 || e.Versions[0] != "1.13.0" || e.Versions[9] != "1.4.0" || e.MoreVersions != 4 {
			t.Errorf("versions = %v (+%d)", e.Versions, e.MoreVersions)
		}
		wantContains(t, e.Error(), "versions: 1.13.0, 1.12.0", "1.4.0 (and 4 more)", fmt.Sprintf("%q", rev))
		wantContains(t, adviceFor(e), "targetRevision", "1.13.0")
	}
}

func TestRepoBasicAuth(t *testing.T) {
	t.Parallel()
	s := startRepo(t, helmrepo.WithBasicAuth(canaryUser, canaryPass))
	addCharts(t, s, "app", "1.0.0")
	src := Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: "1.0.0"}

	_, err := values(t, src, Auth{})
	e := wantKind(t, err, Unauthorized)
	if e.Status != 401 || e.CredentialsSent || e.Op != "index" {
		t.Errorf("no credentials: %+v", e)
	}
	wantContains(t, adviceFor(e), "none were sent", "username and password")

	wantValues(t, mustValues(t, src, goodAuth()), "1.0.0")
	for _, r := range s.Requests() {
		if r.Authorization && r.User != canaryUser {
			t.Errorf("request %s sent user %q", r.Path, r.User)
		}
	}

	_, err = values(t, src, wrongAuth())
	e = wantKind(t, err, Unauthorized)
	if !e.CredentialsSent {
		t.Error("wrong password: CredentialsSent = false")
	}
	wantContains(t, adviceFor(e), "rejected the credentials")
}

func TestRepoRelativeAndAbsoluteURLs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []helmrepo.Option
		repo func(*helmrepo.Server) string
	}{
		{"relative", nil, func(s *helmrepo.Server) string { return s.RepoURL }},
		{"relative below a path", []helmrepo.Option{helmrepo.WithPrefix("/charts/stable")}, func(s *helmrepo.Server) string { return s.RepoURL }},
		{"trailing slash", []helmrepo.Option{helmrepo.WithPrefix("/charts/stable")}, func(s *helmrepo.Server) string { return s.RepoURL + "/" }},
		{"absolute", []helmrepo.Option{helmrepo.WithAbsoluteURLs(), helmrepo.WithPrefix("/x")}, func(s *helmrepo.Server) string { return s.RepoURL }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startRepo(t, tc.opts...)
			addCharts(t, s, "app", "1.0.0")
			ch := mustValues(t, Source{RepoURL: tc.repo(s), Chart: "app", TargetRevision: "1.0.0"}, Auth{})
			wantValues(t, ch, "1.0.0")
			if ch.Ref != s.ArchiveURL("app", "1.0.0") {
				t.Errorf("ref = %s, want %s", ch.Ref, s.ArchiveURL("app", "1.0.0"))
			}
		})
	}
}

// A chart URL on another host gets the repository's credentials only with
// passCredentials (Helm's HTTPGetter compares scheme and host:port).
func TestRepoChartOnOtherHost(t *testing.T) {
	t.Parallel()
	other := startRepo(t)
	addCharts(t, other, "app", "1.0.0")
	repo := startRepo(t, helmrepo.WithBasicAuth(canaryUser, canaryPass))
	if err := repo.Add(helmrepo.Entry{Chart: chart("app", "1.0.0"), URL: other.ArchiveURL("app", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	src := Source{RepoURL: repo.RepoURL, Chart: "app", TargetRevision: "1.0.0"}

	wantValues(t, mustValues(t, src, goodAuth()), "1.0.0")
	reqs := other.Requests()
	if len(reqs) != 1 || reqs[0].Authorization {
		t.Fatalf("other host without passCredentials saw %+v, want one request without credentials", reqs)
	}

	other.ResetRequests()
	pass := goodAuth()
	pass.PassCredentials = true
	wantValues(t, mustValues(t, src, pass), "1.0.0")
	reqs = other.Requests()
	if len(reqs) != 1 || !reqs[0].Authorization || reqs[0].User != canaryUser {
		t.Fatalf("other host with passCredentials saw %+v, want the credentials", reqs)
	}

	// The other host wants the credentials too: Argo CD fails there
	// unless passCredentials is set, and the hint says so.
	locked := startRepo(t, helmrepo.WithBasicAuth(canaryUser, canaryPass))
	addCharts(t, locked, "app", "1.0.0")
	repo2 := startRepo(t, helmrepo.WithBasicAuth(canaryUser, canaryPass))
	if err := repo2.Add(helmrepo.Entry{Chart: chart("app", "1.0.0"), URL: locked.ArchiveURL("app", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	_, err := values(t, Source{RepoURL: repo2.RepoURL, Chart: "app", TargetRevision: "1.0.0"}, goodAuth())
	e := wantKind(t, err, Unauthorized)
	if e.Op != "download" || !e.CrossHost || e.CredentialsSent {
		t.Errorf("cross-host 401: %+v", e)
	}
	wantContains(t, adviceFor(e), "passCredentials: true")
}

// Helm sends archive credentials only when both username and password are
// set; the index gets them with either.
func TestRepoPasswordOnly(t *testing.T) {
	t.Parallel()
	s := startRepo(t)
	addCharts(t, s, "app", "1.0.0")
	mustValues(t, Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: "1.0.0"}, Auth{Password: updater.Secret(canaryPass)})
	reqs := s.Requests()
	if len(reqs) != 2 || !reqs[0].Authorization || reqs[1].Authorization {
		t.Errorf("requests = %+v, want index with and archive without credentials", reqs)
	}
}

func TestRepoTLS(t *testing.T) {
	t.Parallel()
	s := startRepo(t, helmrepo.WithTLS())
	addCharts(t, s, "app", "1.0.0")
	src := Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: "1.0.0"}

	wantValues(t, mustValues(t, src, Auth{CAData: s.CAPEM}), "1.0.0")
	wantValues(t, mustValues(t, src, Auth{Insecure: true}), "1.0.0")

	_, err := values(t, src, Auth{})
	e := wantKind(t, err, netclass.TLS)
	wantContains(t, adviceFor(e), "argocd-tls-certs-cm under the key 127.0.0.1", "insecure: true")

	// A CA from argocd-tls-certs-cm replaces the roots: another CA fails.
	other := startRepo(t, helmrepo.WithTLS())
	_, err = values(t, src, Auth{CAData: other.CAPEM})
	e = wantKind(t, err, netclass.TLS)
	wantContains(t, adviceFor(e), "not signed by the CA under the key 127.0.0.1")

	_, err = values(t, src, Auth{CAData: []byte("not a certificate")})
	e = wantKind(t, err, netclass.TLS)
	if e.Op != "tls" {
		t.Errorf("op = %s, want tls", e.Op)
	}

	// https:// to a plain-HTTP server.
	plain := startRepo(t)
	addCharts(t, plain, "app", "1.0.0")
	_, err = values(t, Source{RepoURL: strings.Replace(plain.RepoURL, "http://", "https://", 1), Chart: "app", TargetRevision: "1.0.0"}, Auth{})
	e = wantKind(t, err, netclass.TLS)
	wantContains(t, adviceFor(e), "plain HTTP", "http://")
}

func TestRepoClientCertificate(t *testing.T) {
	t.Parallel()
	s := startRepo(t, helmrepo.WithClientCertAuth())
	addCharts(t, s, "app", "1.0.0")
	src := Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: "1.0.0"}

	_, err := values(t, src, Auth{CAData: s.CAPEM})
	e := wantKind(t, err, netclass.TLS)
	wantContains(t, adviceFor(e), "tlsClientCertData")

	auth := Auth{CAData: s.CAPEM, ClientCert: s.ClientCertPEM, ClientKey: updater.Secret(s.ClientKeyPEM)}
	wantValues(t, mustValues(t, src, auth), "1.0.0")

	// A key that does not parse never shows up in the error.
	bad := Auth{CAData: s.CAPEM, ClientCert: s.ClientCertPEM, ClientKey: updater.Secret("-----BEGIN PRIVATE KEY-----\n" + canaryKey + "\n-----END PRIVATE KEY-----\n")}
	_, err = values(t, src, bad)
	e = wantKind(t, err, netclass.TLS)
	if e.Op != "tls" {
		t.Errorf("op = %s, want tls", e.Op)
	}
}

func TestRepoBadCharts(t *testing.T) {
	t.Parallel()
	s := startRepo(t)
	noValues := chart("novalues", "1.0.0")
	noValues.NoValues = true
	wrongTop := chart("wrongtop", "1.0.0")
	wrongTop.TopDir = "something-else"
	for _, c := range []helmrepo.Chart{noValues, wrongTop} {
		if err := s.AddChart(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(helmrepo.Entry{Chart: chart("garbage", "1.0.0"), Archive: []byte("<html>not a chart</html>")}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ chart, detail string }{
		{"novalues", "no values.yaml (novalues/values.yaml)"},
		{"wrongtop", "top directory is something-else, not the chart name wrongtop"},
		{"garbage", "not a gzip archive"},
	} {
		_, err := values(t, Source{RepoURL: s.RepoURL, Chart: tc.chart, TargetRevision: "1.0.0"}, Auth{})
		e := wantKind(t, err, BadChart)
		wantContains(t, e.Error(), tc.detail, s.ArchiveURL(tc.chart, "1.0.0"))
		if e.Op != "extract" {
			t.Errorf("%s: op = %s, want extract", tc.chart, e.Op)
		}
	}
}

func TestRepoNotAHelmRepo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		status     int
	}{
		{"404", "", http.StatusNotFound},
		{"html", "<html><body>Welcome</body></html>", 200},
		{"no apiVersion", "entries:\n  app:\n  - version: 1.0.0\n    urls: [app-1.0.0.tgz]\n", 200},
		{"empty", "", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startRepo(t)
			s.Handle("/index.yaml", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			_, err := values(t, Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: "1.0.0"}, Auth{})
			e := wantKind(t, err, NotAHelmRepo)
			wantContains(t, adviceFor(e), "index.yaml")
		})
	}
}

func TestRepoArchiveMissing(t *testing.T) {
	t.Parallel()
	s := startRepo(t)
	if err := s.Add(helmrepo.Entry{Chart: chart("app", "1.0.0"), URL: "gone/app-1.0.0.tgz"}); err != nil {
		t.Fatal(err)
	}
	_, err := values(t, Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: "1.0.0"}, Auth{})
	e := wantKind(t, err, ChartNotFound)
	if e.Op != "download" || e.Status != 404 {
		t.Errorf("err = %+v", e)
	}
	wantContains(t, adviceFor(e), "stale")
}

// An endless index.yaml stops at the limit: an error, and memory bounded
// by the limit, not by what the server sends.
func TestRepoOversizedIndexIsBounded(t *testing.T) {
	s := startRepo(t)
	s.Handle("/index.yaml", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		line := []byte(strings.Repeat("# padding padding padding padding\n", 64))
		for r.Context().Err() == nil {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	}))
	s.Handle("/big/index.yaml", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10737418240")
		w.WriteHeader(200)
	}))
	const limit = 1 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := values(t, Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: "1.0.0"}, Auth{}, WithMaxBytes(limit))
	runtime.ReadMemStats(&after)
	e := wantKind(t, err, TooLarge)
	if e.Limit != limit {
		t.Errorf("limit = %d", e.Limit)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*limit {
		t.Errorf("allocated %d bytes reading a %d-byte-limited index", alloc, limit)
	}
	wantContains(t, adviceFor(e), "limit")

	_, err = values(t, Source{RepoURL: s.URL + "/big", Chart: "app", TargetRevision: "1.0.0"}, Auth{}, WithMaxBytes(limit))
	wantContains(t, wantKind(t, err, TooLarge).Error(), "10737418240 bytes")
}

func TestRepoConnectAndTimeout(t *testing.T) {
	t.Parallel()
	addr, err := loopback.ClosedAddr() // nothing listens there, nor can while the test runs
	if err != nil {
		t.Fatal(err)
	}
	_, err = values(t, Source{RepoURL: "http://" + addr, Chart: "app", TargetRevision: "1.0.0"}, Auth{})
	e := wantKind(t, err, netclass.Connect)
	if e.Host != addr {
		t.Errorf("host = %s", e.Host)
	}

	s := startRepo(t)
	s.Handle("/index.yaml", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	_, err = values(t, Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: "1.0.0"}, Auth{}, WithTimeout(200*time.Millisecond))
	wantKind(t, err, netclass.Timeout)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = New().Values(ctx, Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: "1.0.0"}, Auth{})
	wantKind(t, err, netclass.Canceled)
}

func TestInvalidSources(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  Source
		hint string
	}{
		{Source{RepoURL: "127.0.0.1:5000/charts", Chart: "app"}, "enableOCI: true"},
		{Source{RepoURL: "ftp://charts.example.com", Chart: "app"}, "http(s)://"},
		{Source{RepoURL: "", Chart: "app"}, "empty"},
		{Source{RepoURL: "https://github.com/org/repo.git", Path: "charts/app"}, "not a Helm chart source"},
		{Source{RepoURL: "https://charts.example.com", Chart: "app", EnableOCI: true}, "hostname and port only"},
		{Source{RepoURL: "oci://ghcr.io/org/app", Path: "../etc", TargetRevision: "1.0.0"}, "leaves the artifact root"},
		{Source{RepoURL: "oci://ghcr.io/org/app"}, "targetRevision is empty"},
	} {
		_, err := values(t, tc.src, goodAuth())
		e := wantKind(t, err, InvalidSource)
		wantContains(t, adviceFor(e), tc.hint)
	}
	// Userinfo in a repoURL is never echoed.
	_, err := New().Values(context.Background(), Source{RepoURL: "ftp://u:" + canaryPass + "@charts.example.com/?token=" + canaryKey, Chart: "app"}, Auth{})
	noCanaries(t, err)
	wantKind(t, err, InvalidSource)
}

// TestValuesIsTheRepositoryAsItIsNow: a Client keeps no chart: after 1.5.0
// is published, the constraint 1.* resolves to it; a Shared scope made
// before keeps the 1.0.0 it read, a new scope reads 1.5.0.
func TestValuesIsTheRepositoryAsItIsNow(t *testing.T) {
	t.Parallel()
	s := startRepo(t)
	addCharts(t, s, "app", "1.0.0")
	src := Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: "1.*"}
	c := New()
	ctx := context.Background()
	scope := c.Share()
	old, err := scope.Values(ctx, src, Auth{})
	if err != nil {
		t.Fatal(err)
	}
	wantValues(t, old, "1.0.0")
	addCharts(t, s, "app", "1.5.0")
	for name, v := range map[string]*Shared{"client": nil, "new scope": c.Share()} {
		var ch *Chart
		if v == nil {
			ch, err = c.Values(ctx, src, Auth{})
		} else {
			ch, err = v.Values(ctx, src, Auth{})
		}
		if err != nil {
			t.Fatal(err)
		}
		if ch.Version != "1.5.0" {
			t.Errorf("%s: 1.* is %s after 1.5.0 was published", name, ch.Version)
		}
	}
	if again, err := scope.Values(ctx, src, Auth{}); err != nil || again.Version != "1.0.0" {
		t.Errorf("the first scope read the repository again: %v %v", again, err)
	}
}

func TestSharedPerScopeAndCredentials(t *testing.T) {
	t.Parallel()
	s := startRepo(t, helmrepo.WithBasicAuth(canaryUser, canaryPass))
	addCharts(t, s, "app", "1.0.0")
	src := Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: "1.0.0"}
	scope := New().Share()
	ctx := context.Background()
	first, err := scope.Values(ctx, src, goodAuth())
	if err != nil {
		t.Fatal(err)
	}
	first.Values[0] = 'X' // callers get copies
	n := len(s.Requests())
	again, err := scope.Values(ctx, src, goodAuth())
	if err != nil {
		t.Fatal(err)
	}
	wantValues(t, again, "1.0.0")
	if len(s.Requests()) != n {
		t.Errorf("a chart read in the scope was fetched again")
	}
	// Other credentials are not served the chart; their failure is
	// shared: the same error, no second request.
	_, err1 := scope.Values(ctx, src, wrongAuth())
	if err1 == nil {
		t.Fatal("wrong password served the scope's chart")
	}
	noCanaries(t, err1)
	n = len(s.Requests())
	if _, err2 := scope.Values(ctx, src, wrongAuth()); err2 == nil || err2.Error() != err1.Error() {
		t.Errorf("the shared failure differs: %v / %v", err1, err2)
	}
	if len(s.Requests()) != n {
		t.Error("a failure was asked again within the scope")
	}
	if _, err := New().Share().Values(ctx, src, Auth{}); err == nil {
		t.Fatal("a new scope shared the chart")
	}
}
