package forge_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/imgupd/imgupd/sources/forge"
)

// FuzzRecognise checks that Recognise never panics and that whatever it
// recognises is a usable repository: non-empty owner and name without
// empty, relative or control-character segments, no userinfo anywhere,
// a known forge and an absolute API URL; and that the repository's own
// https URL is recognised as the same repository.
func FuzzRecognise(f *testing.F) {
	for _, s := range []string{
		"https://github.com/acme/web.git", "git@github.com:acme/web.git", "ssh://git@gitlab.com:22/g/s/p.git",
		"https://user:pw@bitbucket.org/ws/r", "http://gitea.corp:3000/o/r.git", "https://codeberg.org/a/b/",
		"https://gitlab.com/g/p/-/tree/main", "git@gitea.corp:o/r", "https://[::1]:8443/o/r", "https://github.com/a%2Fb/c",
		"ssh://git@github.com/acme/web.git.git", "https://github.com/acme/web?x#y", "",
	} {
		f.Add(s)
	}
	configured := []forge.Endpoint{
		{Host: "gitea.corp:3000", Kind: forge.Gitea, APIURL: "http://gitea.corp:3000/api/v1"},
		{Host: "gitea.corp", Kind: forge.Gitea},
		{Host: "::1", Kind: forge.GitLab, APIURL: "https://[::1]/api/v4"},
		{Host: "[::1]:8443", Kind: forge.GitHub, APIURL: "https://[::1]:8443/api/v3"},
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r, ok := forge.Recognise(raw, configured)
		if !ok {
			if r != (forge.Repo{}) {
				t.Fatalf("not ok but %+v", r)
			}
			return
		}
		if r.Forge == forge.Unknown || r.Host == "" || r.Owner == "" || r.Name == "" {
			t.Fatalf("incomplete %+v from %q", r, raw)
		}
		if !strings.HasPrefix(r.APIURL, "https://") && !strings.HasPrefix(r.APIURL, "http://") || strings.HasSuffix(r.APIURL, "/") {
			t.Fatalf("API URL %q from %q", r.APIURL, raw)
		}
		if strings.Contains(r.Name, "/") || strings.HasSuffix(r.Name, ".git") && r.Name != ".git" {
			t.Fatalf("name %q from %q", r.Name, raw)
		}
		for _, seg := range strings.Split(r.Path(), "/") {
			if seg == "" || seg == "." || seg == ".." || strings.ContainsFunc(seg, func(c rune) bool {
				return unicode.IsControl(c) || c == ' ' || c == '@' || c == '?' || c == '#' || c == '%'
			}) {
				t.Fatalf("bad segment %q in %q from %q", seg, r.Path(), raw)
			}
		}
		if strings.Contains(r.Host, "@") || strings.ContainsAny(r.Host, "/ ") {
			t.Fatalf("host %q from %q", r.Host, raw)
		}
		if r.Forge != forge.GitLab && strings.Contains(r.Owner, "/") {
			t.Fatalf("%s owner %q has subgroups", r.Forge, r.Owner)
		}
		again, ok := forge.Recognise("https://"+r.Host+"/"+r.Path(), configured)
		if !ok || again.Owner != r.Owner || again.Name != r.Name {
			t.Fatalf("https form of %+v (from %q) gives %+v, %t", r, raw, again, ok)
		}
	})
}
