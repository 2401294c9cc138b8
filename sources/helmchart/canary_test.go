package helmchart

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab/helmrepo"
	labregistry "github.com/imgupd/imgupd/lab/registry"
)

// Servers that echo the credentials back in their error answers: the
// error text still holds none of them. (Every other test also runs its
// calls through noCanaries.)
func TestCanariesEchoedByServers(t *testing.T) {
	t.Parallel()
	s := startRepo(t)
	s.Handle("/index.yaml", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte("bad login " + u + ":" + p + " header " + r.Header.Get("Authorization")))
	}))
	_, err := values(t, Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: "1.0.0"}, goodAuth())
	e := wantKind(t, err, Unauthorized)
	wantContains(t, e.Error(), "[redacted]")
	basic := base64.StdEncoding.EncodeToString([]byte(canaryUser + ":" + canaryPass))
	if strings.Contains(e.Error(), basic) {
		t.Fatalf("the Authorization header leaked: %s", e.Error())
	}

	// A chart URL with userinfo and a signed query in the index.
	s2 := startRepo(t)
	if err := s2.Add(helmrepo.Entry{Chart: chart("app", "1.0.0"), URL: "http://u:" + canaryPass + "@" + s2.Host + "/missing.tgz?sig=" + canaryKey}); err != nil {
		t.Fatal(err)
	}
	_, err = values(t, Source{RepoURL: s2.RepoURL, Chart: "app", TargetRevision: "1.0.0"}, goodAuth())
	wantKind(t, err, ChartNotFound)

	// Every failure kind of the registry path, with canary passwords.
	r := startRegistry(t, labregistry.WithTokenAuth(canaryUser, canaryPass))
	pushCharts(t, r, "charts", "app", "1.0.0")
	for _, a := range []Auth{goodAuth(), wrongAuth(), {}} {
		a.PlainHTTP = true
		for _, src := range []Source{
			{RepoURL: r.Host + "/charts", Chart: "app", TargetRevision: "1.0.0", EnableOCI: true},
			{RepoURL: r.Host + "/charts", Chart: "app", TargetRevision: "9.*", EnableOCI: true},
			{RepoURL: r.Host + "/charts", Chart: "gone", TargetRevision: "1.0.0", EnableOCI: true},
			{RepoURL: "oci://" + r.Host + "/charts/app", TargetRevision: "1.0.0", Path: "nope"},
		} {
			_, _ = values(t, src, a)
		}
	}
}
