package forge_test

import (
	"strings"
	"testing"

	"github.com/imgupd/imgupd/sources/forge"
)

func TestRecognise(t *testing.T) {
	t.Parallel()
	configured := []forge.Endpoint{
		{Host: "ghe.corp", Kind: forge.GitHub},                                                // default /api/v3
		{Host: "GitLab.Corp", Kind: forge.GitLab, APIURL: "https://gitlab.corp/api/v4/"},      // case, trailing /
		{Host: "gitea.corp:3000", Kind: forge.Gitea, APIURL: "http://gitea.corp:3000/api/v1"}, // port-specific
		{Host: "gitea.corp", Kind: forge.Gitea, APIURL: "https://gitea.corp/api/v1"},
		{Host: "github.com", Kind: forge.GitHub, APIURL: "https://proxy.corp/github"}, // overrides built-in
		{Host: "bad.corp", Kind: forge.Unknown},                                       // skipped: invalid
	}
	type want struct {
		forge       forge.Forge
		host, owner string
		name, api   string
	}
	for _, tc := range []struct {
		url        string
		configured []forge.Endpoint
		want       *want
	}{
		// Built-in hosts, every URL form.
		{"https://github.com/acme/web.git", nil, &want{forge.GitHub, "github.com", "acme", "web", "https://api.github.com"}},
		{"https://github.com/acme/web", nil, &want{forge.GitHub, "github.com", "acme", "web", "https://api.github.com"}},
		{"https://github.com/acme/web/", nil, &want{forge.GitHub, "github.com", "acme", "web", "https://api.github.com"}},
		{"https://GitHub.com/acme/web.git/", nil, &want{forge.GitHub, "github.com", "acme", "web", "https://api.github.com"}},
		{"http://github.com/acme/web", nil, &want{forge.GitHub, "github.com", "acme", "web", "https://api.github.com"}},
		{"https://x-access-token:ghs_secret@github.com/acme/web.git", nil, &want{forge.GitHub, "github.com", "acme", "web", "https://api.github.com"}},
		{"https://github.com:443/acme/web", nil, &want{forge.GitHub, "github.com", "acme", "web", "https://api.github.com"}},
		{"ssh://git@github.com/acme/web.git", nil, &want{forge.GitHub, "github.com", "acme", "web", "https://api.github.com"}},
		{"ssh://git@github.com:22/acme/web.git", nil, &want{forge.GitHub, "github.com", "acme", "web", "https://api.github.com"}},
		{"git@github.com:acme/web.git", nil, &want{forge.GitHub, "github.com", "acme", "web", "https://api.github.com"}},
		{"git@github.com:/acme/web.git", nil, &want{forge.GitHub, "github.com", "acme", "web", "https://api.github.com"}},
		{"  git@github.com:acme/web  ", nil, &want{forge.GitHub, "github.com", "acme", "web", "https://api.github.com"}},
		{"https://gitlab.com/group/sub/proj.git", nil, &want{forge.GitLab, "gitlab.com", "group/sub", "proj", "https://gitlab.com/api/v4"}},
		{"git@gitlab.com:group/a/b/proj.git", nil, &want{forge.GitLab, "gitlab.com", "group/a/b", "proj", "https://gitlab.com/api/v4"}},
		{"https://bitbucket.org/ws/repo.git", nil, &want{forge.Bitbucket, "bitbucket.org", "ws", "repo", "https://api.bitbucket.org/2.0"}},
		{"https://user@bitbucket.org/ws/repo.git", nil, &want{forge.Bitbucket, "bitbucket.org", "ws", "repo", "https://api.bitbucket.org/2.0"}},
		{"git@bitbucket.org:ws/repo.git", nil, &want{forge.Bitbucket, "bitbucket.org", "ws", "repo", "https://api.bitbucket.org/2.0"}},
		{"https://codeberg.org/forgejo/forgejo", nil, &want{forge.Forgejo, "codeberg.org", "forgejo", "forgejo", "https://codeberg.org/api/v1"}},

		// Configured hosts.
		{"https://ghe.corp/acme/web.git", configured, &want{forge.GitHub, "ghe.corp", "acme", "web", "https://ghe.corp/api/v3"}},
		{"git@ghe.corp:acme/web.git", configured, &want{forge.GitHub, "ghe.corp", "acme", "web", "https://ghe.corp/api/v3"}},
		{"https://ghe.corp:8443/acme/web.git", configured, &want{forge.GitHub, "ghe.corp:8443", "acme", "web", "https://ghe.corp/api/v3"}},
		{"https://gitlab.corp/g/s/p", configured, &want{forge.GitLab, "gitlab.corp", "g/s", "p", "https://gitlab.corp/api/v4"}},
		{"ssh://git@gitlab.corp:2222/g/p.git", configured, &want{forge.GitLab, "gitlab.corp", "g", "p", "https://gitlab.corp/api/v4"}},
		{"http://gitea.corp:3000/o/r.git", configured, &want{forge.Gitea, "gitea.corp:3000", "o", "r", "http://gitea.corp:3000/api/v1"}},
		{"https://gitea.corp/o/r.git", configured, &want{forge.Gitea, "gitea.corp", "o", "r", "https://gitea.corp/api/v1"}},
		{"https://github.com/acme/web", configured, &want{forge.GitHub, "github.com", "acme", "web", "https://proxy.corp/github"}},
		{"https://gitlab.com/g/p", configured, &want{forge.GitLab, "gitlab.com", "g", "p", "https://gitlab.com/api/v4"}},
		{"git@gitea.corp:o/r.git", []forge.Endpoint{{Host: "gitea.corp:3000", Kind: forge.Gitea}},
			&want{forge.Gitea, "gitea.corp", "o", "r", "https://gitea.corp:3000/api/v1"}}, // SSH: any configured port
		{"https://gitea.corp/o/r.git", []forge.Endpoint{{Host: "gitea.corp:3000", Kind: forge.Gitea}}, nil}, // https: port must match

		// Not recognised.
		{"https://bad.corp/acme/web", configured, nil},
		{"https://git.example.com/acme/web.git", nil, nil},
		{"https://ghe.corp/acme/web.git", nil, nil},             // self-hosted, not configured
		{"https://github.com/acme", nil, nil},                   // no repository
		{"https://github.com/acme/web/tree/main", nil, nil},     // not a repository URL
		{"https://github.com/", nil, nil},                       //
		{"https://github.com//web", nil, nil},                   // empty owner
		{"https://github.com/acme/.git", nil, nil},              // empty name
		{"https://github.com/acme/../web", nil, nil},            // relative segment
		{"https://github.com/acme/web?ref=main", nil, nil},      // query
		{"https://github.com/acme/web%2Fx", nil, nil},           // encoded slash
		{"https://gitlab.com/group/proj/-/tree/main", nil, nil}, // GitLab UI route
		{"https://gitlab.com/proj", nil, nil},                   // no namespace
		{"file:///srv/git/acme/web.git", nil, nil},              // local
		{"/srv/git/acme/web.git", nil, nil},                     //
		{"github.com/acme/web", nil, nil},                       // no scheme
		{"ftp://github.com/acme/web", nil, nil},                 //
		{"", nil, nil},                                          //
		{"git@github.com:acme/web/extra.git", nil, nil},         // too deep for GitHub
		{"https://github.com/acme/we b", nil, nil},              // space
		{"https://github.com:notaport/acme/web", nil, nil},      // unparsable
		{"https://github.com.evil.example/acme/web", nil, nil},  // suffix trick
		{"https://evil.example/github.com/acme/web", nil, nil},  // path trick
		{"https://api.github.com/repos/acme/web", nil, nil},     // the API, not a repository
	} {
		t.Run(tc.url, func(t *testing.T) {
			r, ok := forge.Recognise(tc.url, tc.configured)
			if tc.want == nil {
				if ok {
					t.Fatalf("recognised %+v, want not recognised", r)
				}
				return
			}
			if !ok {
				t.Fatalf("not recognised, want %+v", *tc.want)
			}
			got := want{r.Forge, r.Host, r.Owner, r.Name, r.APIURL}
			if got != *tc.want {
				t.Fatalf("got %+v, want %+v", got, *tc.want)
			}
			if r.Path() != r.Owner+"/"+r.Name || strings.Contains(r.APIURL, "ghs_secret") {
				t.Fatalf("path %q api %q", r.Path(), r.APIURL)
			}
		})
	}
}

func TestParseForge(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]forge.Forge{"github": forge.GitHub, "GHES": forge.GitHub, "GitLab": forge.GitLab,
		"gitea": forge.Gitea, "forgejo": forge.Forgejo, "bitbucket": forge.Bitbucket, " Bitbucket-Cloud ": forge.Bitbucket} {
		if got, err := forge.ParseForge(in); err != nil || got != want {
			t.Errorf("ParseForge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := forge.ParseForge("bitbucket-server"); err == nil {
		t.Error("bitbucket-server accepted")
	}
	var f forge.Forge
	if err := f.UnmarshalText([]byte("gitlab")); err != nil || f != forge.GitLab {
		t.Errorf("UnmarshalText = %v, %v", f, err)
	}
	if b, _ := forge.GitLab.MarshalText(); string(b) != "GitLab" {
		t.Errorf("MarshalText = %s", b)
	}
}
