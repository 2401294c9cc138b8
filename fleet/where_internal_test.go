package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

// TestRepoKey: the repository Image Updater asks tags of, whatever way the
// image is written: Docker Hub's spellings and library/, a registries.conf
// entry's defaultns.
func TestRepoKey(t *testing.T) {
	conf := updater.RegistriesConf{Registries: []updater.RegistryConfig{{Name: "corp", APIURL: "https://registry.corp.example", Prefix: "registry.corp.example", DefaultNS: "platform"}}}
	for _, c := range []struct{ image, want string }{
		{"nginx", "docker.io/library/nginx"},
		{"nginx:1.27", "docker.io/library/nginx"},
		{"docker.io/nginx", "docker.io/library/nginx"},
		{"docker.io/library/nginx", "docker.io/library/nginx"},
		{"library/nginx", "docker.io/library/nginx"},
		{"index.docker.io/library/nginx", "docker.io/library/nginx"},
		{"bitnami/redis", "docker.io/bitnami/redis"},
		{"ghcr.io/acme/web:1.4.2", "ghcr.io/acme/web"},
		{"ghcr.io/acme/web@sha256:" + sixtyFour, "ghcr.io/acme/web"},
		{"registry.corp.example/web", "registry.corp.example/platform/web"},
		{"registry.corp.example/team/web", "registry.corp.example/team/web"},
		{"localhost:5000/web", "localhost:5000/web"},
	} {
		q, err := ParseImageQuery(c.image)
		if err != nil {
			t.Errorf("%s: %v", c.image, err)
			continue
		}
		if got := repoKey(q.ref, conf); got != c.want {
			t.Errorf("%s: %s, want %s", c.image, got, c.want)
		}
	}
}

// whereScopes are the scopes TestWhereNarrowAnswersAsWhereAll asks in:
// none; a Visible filter that hides namespace team (the lab fleet
// where-web's second namespace) and one that hides nothing; projects; and
// names that leave out apps a CR names exactly (web, api); namespaces; a
// label selector, which a "where" checks only once it has read the apps a
// CR names.
var whereScopes = []struct {
	name string
	q    Query
}{
	{"everyone", Query{}},
	{"visible outside team", Query{Visible: func(ns, _ string) bool { return ns != "team" }}},
	{"visible all, in argocd and team", Query{Visible: func(string, string) bool { return true }, VisibleNamespaces: []string{"argocd", "team"}}},
	{"project default", Query{Scope: report.Scope{Projects: []string{"default"}}}},
	{"names web-*", Query{Scope: report.Scope{Names: []string{"web-*"}}}},
	{"namespace team, visible in argocd and team", Query{Scope: report.Scope{Namespaces: []string{"team"}}, VisibleNamespaces: []string{"argocd", "team"}}},
	{"selector tier=web", Query{Scope: report.Scope{Selector: "tier=web"}}},
}

const sixtyFour = "6c02ad6d1cb125ce5cc63f1ffb0fb1dd1f12fe28c6bf3a9899f8a77cf97b0095"

func TestParseImageQueryRefuses(t *testing.T) {
	for _, s := range []string{"", "  ", "web=ghcr.io/acme/web", "ghcr.io/acme/web:~1.2", "ghcr.io/acme web", "ghcr.io/acme/web:>=1", "UPPER/Case", "a//b"} {
		if _, err := ParseImageQuery(s); !errors.Is(err, ErrBadImage) {
			t.Errorf("%q: %v, want ErrBadImage", s, err)
		}
	}
	q, err := ParseImageQuery(" ghcr.io/acme/web:1.4.2 ")
	if err != nil || q.Tag() != "1.4.2" || q.Digest() != "" || q.Asked != "ghcr.io/acme/web:1.4.2" {
		t.Errorf("%+v %v", q, err)
	}
	q, err = ParseImageQuery("ghcr.io/acme/web@sha256:" + sixtyFour)
	if err != nil || q.Digest() != "sha256:"+sixtyFour || q.Tag() != "" {
		t.Errorf("%+v %v", q, err)
	}
}

// FuzzParseImageQuery: any input is refused with ErrBadImage or gives a
// query with a repository name; never a panic.
func FuzzParseImageQuery(f *testing.F) {
	for _, s := range []string{"nginx", "ghcr.io/acme/web:1.4.2", "a@sha256:" + sixtyFour, "web=x", "", "localhost:5000/x:y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseImageQuery(s)
		if err != nil {
			if !errors.Is(err, ErrBadImage) {
				t.Fatalf("%q: %v is not ErrBadImage", s, err)
			}
			return
		}
		if q.ref.Name == "" {
			t.Fatalf("%q: accepted without a name", s)
		}
		_ = repoKey(q.ref, updater.RegistriesConf{})
	})
}

// TestWhereNarrowAnswersAsWhereAll: the "where" that reads only the apps
// that may use the repository (and diagnoses those its CRs name before the
// Applications are listed) gives the answer of the one that reads and
// selects every app, over every lab scenario and fleet, for the first two
// images their objects name and for one none uses (Duration and Stats
// apart: what it cost), in the scopes of whereScopes (none, Visible
// filters, projects, names: for every fleet and a quarter of the
// scenarios; with -short, the fleets only).
func TestWhereNarrowAnswersAsWhereAll(t *testing.T) {
	scs, err := lab.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	fleets, err := lab.Fleets()
	if err != nil {
		t.Fatal(err)
	}
	imageRe := regexp.MustCompile(`\$\{REGISTRY\}/[A-Za-z0-9._/-]+(:[A-Za-z0-9._-]+)?|(imageName|image-list)"?:\s*"?[^"\n]+`)
	var compared atomic.Int64
	t.Cleanup(func() {
		if n := compared.Load(); n < 200 && !testing.Short() || n < 60 {
			t.Errorf("%d answers compared", n)
		}
	})
	for i, sc := range append(scs, fleets...) {
		if testing.Short() && i%4 != 0 && i < len(scs) {
			continue // -short: a quarter of the scenarios, every fleet
		}
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			var images []string
			seen := map[string]bool{}
			for _, m := range imageRe.FindAllString(sc.Objects, -1) {
				if _, v, ok := strings.Cut(m, ":"); ok && !strings.HasPrefix(m, "${") {
					m = v
				}
				for _, it := range strings.Split(m, ",") {
					it = strings.Trim(strings.TrimSpace(it), `"'`)
					if _, r, ok := strings.Cut(it, "="); ok {
						it = r
					}
					if it != "" && !seen[it] && len(images) < 2 {
						seen[it] = true
						images = append(images, it)
					}
				}
			}
			images = append(images, "${REGISTRY}/no/such-repository")
			env, err := lab.Start(context.Background(), sc)
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
			for _, image := range images {
				q, err := ParseImageQuery(strings.ReplaceAll(image, "${REGISTRY}", env.Vars["REGISTRY"]))
				if err != nil {
					continue
				}
				s := &Scanner{Engine: env.Engine(), Now: func() time.Time { return now }}
				scopes := whereScopes
				if i < len(scs) && i%4 != 1 {
					scopes = scopes[:1] // the other scopes in a quarter of the scenarios, and every fleet
				}
				for _, sp := range scopes {
					all, errAll := s.whereAll(context.Background(), sp.q, q)
					narrow, errNarrow := s.whereNarrow(context.Background(), sp.q, q)
					if (errAll == nil) != (errNarrow == nil) {
						t.Fatalf("%s, %s: whereAll error %v, whereNarrow %v", image, sp.name, errAll, errNarrow)
					}
					if errAll != nil {
						continue
					}
					all.Duration, all.Stats, narrow.Duration, narrow.Stats = 0, report.ScanStats{}, 0, report.ScanStats{}
					a, _ := json.Marshal(all)
					b, _ := json.Marshal(narrow)
					if string(a) != string(b) {
						t.Errorf("%s, %s:\nwhereAll    %s\nwhereNarrow %s", image, sp.name, a, b)
					}
					compared.Add(1)
				}
			}
		})
	}
}
