package giturl

import "testing"

// Argo CD's TestIsSSHURL (util/git/git_test.go).
func TestIsSSHArgoCD(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]bool{
		"git://github.com/argoproj/test.git":     false,
		"git@GITHUB.com:argoproj/test.git":       true,
		"git@github.com:test":                    true,
		"git@github.com:test.git":                true,
		"https://github.com/argoproj/test":       false,
		"https://github.com/argoproj/test.git":   false,
		"ssh://git@GITHUB.com:argoproj/test":     true,
		"ssh://git@GITHUB.com:argoproj/test.git": true,
		"ssh://git@github.com:test.git":          true,
	} {
		if _, got := IsSSH(raw); got != want {
			t.Errorf("IsSSH(%q) = %v, want %v", raw, got, want)
		}
	}
}

// Argo CD's TestIsSSHURLUserName.
func TestIsSSHUserArgoCD(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"ssh://john@john-server.org:29418/project":         "john",
		"john@john-server.org:29418/project":               "john",
		"john@doe.org@john-server.org:29418/project":       "john@doe.org",
		"ssh://john@doe.org@john-server.org:29418/project": "john@doe.org",
		"john@doe.org@john-server.org:project":             "john@doe.org",
	} {
		if user, ok := IsSSH(raw); !ok || user != want {
			t.Errorf("IsSSH(%q) = %q, %v, want %q, true", raw, user, ok, want)
		}
	}
}

// Argo CD's regex is case-sensitive: where imgupd's two copies disagreed
// (one lower-cased first), Argo CD's IsSSHURL is followed.
func TestIsSSHCase(t *testing.T) {
	t.Parallel()
	if _, ok := IsSSH("SSH://git@host/repo"); ok {
		t.Error(`IsSSH("SSH://git@host/repo") = true; Argo CD's IsSSHURL says false`)
	}
	if _, ok := IsSSH("ssh://host/repo"); ok {
		t.Error(`IsSSH("ssh://host/repo") = true; Argo CD needs a user`)
	}
	if ArgoNormalize("SSH://git@Host/Repo.git") != "git@host/repo" {
		t.Errorf("ArgoNormalize lower-cases before it asks IsSSH: got %q", ArgoNormalize("SSH://git@Host/Repo.git"))
	}
}

// Argo CD's TestSameURL.
func TestSameURLArgoCD(t *testing.T) {
	t.Parallel()
	for a, b := range map[string]string{
		"git@GITHUB.com:argoproj/test":                     "git@github.com:argoproj/test.git",
		"git@GITHUB.com:argoproj/test.git":                 "git@github.com:argoproj/test.git",
		"git@GITHUB.com:test":                              "git@github.com:test.git",
		"git@GITHUB.com:test.git":                          "git@github.com:test.git",
		"https://GITHUB.com/argoproj/test":                 "https://github.com/argoproj/test.git",
		"https://GITHUB.com/argoproj/test.git":             "https://github.com/argoproj/test.git",
		"https://github.com/FOO":                           "https://github.com/foo",
		"https://github.com/TEST":                          "https://github.com/TEST.git",
		"https://github.com/TEST.git":                      "https://github.com/TEST.git",
		"https://github.com:4443/TEST":                     "https://github.com:4443/TEST.git",
		"https://github.com:4443/TEST.git":                 "https://github.com:4443/TEST",
		"ssh://git@GITHUB.com/argoproj/test":               "git@github.com:argoproj/test.git",
		"ssh://git@GITHUB.com/argoproj/test.git":           "git@github.com:argoproj/test.git",
		"ssh://git@GITHUB.com/test.git":                    "git@github.com:test.git",
		"ssh://git@github.com/test":                        "git@github.com:test.git",
		" https://github.com/argoproj/test ":               "https://github.com/argoproj/test.git",
		"\thttps://github.com/argoproj/test\n":             "https://github.com/argoproj/test.git",
		"https://1234.visualstudio.com/myproj/_git/myrepo": "https://1234.visualstudio.com/myproj/_git/myrepo",
		"https://dev.azure.com/1234/myproj/_git/myrepo":    "https://dev.azure.com/1234/myproj/_git/myrepo",
	} {
		if !ArgoSameURL(a, b) {
			t.Errorf("ArgoSameURL(%q, %q) = false (%q, %q)", a, b, ArgoNormalize(a), ArgoNormalize(b))
		}
	}
}

// Argo CD's NormalizeGitURL, by value: what repository Secrets are matched
// against.
func TestArgoNormalize(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"git@GITHUB.com:argoproj/test.git":     "git@github.com/argoproj/test",
		"ssh://git@github.com/argoproj/test":   "git@github.com/argoproj/test",
		"ssh://git@github.com:22/org/repo.git": "git@github.com:22/org/repo",
		"https://GitHub.com/Org/Repo.git/":     "https://github.com/org/repo.git/",
		"https://user:pw@github.com/org/repo":  "https://user:pw@github.com/org/repo",
		"ssh://git@GITHUB.com:argoproj/test":   "",
		"":                                     "",
		"oci://ghcr.io/org/chart":              "oci://ghcr.io/org/chart",
		"ghcr.io/org/chart":                    "ghcr.io/org/chart",
	} {
		if got := ArgoNormalize(raw); got != want {
			t.Errorf("ArgoNormalize(%q) = %q, want %q", raw, got, want)
		}
	}
	if ArgoSameURL("https://github.com/a/b", "https://github.com/a/c") || ArgoSameURL("", "") {
		t.Error("ArgoSameURL: different or empty URLs are not the same")
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw                        string
		scp                        bool
		user, host, hostname, path string
	}{
		{" git@GitHub.com:org/repo.git ", true, "git", "GitHub.com", "GitHub.com", "org/repo.git"},
		{"git@host:", true, "git", "host", "host", ""},
		{"https://u:p@Git.Corp:8443/a/b%20c", false, "", "Git.Corp:8443", "Git.Corp", "/a/b%20c"},
		{"ssh://git@[::1]:2222/x", false, "", "[::1]:2222", "::1", "/x"},
		{"/srv/repo", false, "", "", "", "/srv/repo"},
	} {
		u, ok := Parse(tc.raw)
		if !ok || u.SCP != tc.scp || u.User != tc.user || u.Host != tc.host || u.Hostname() != tc.hostname || u.Path != tc.path {
			t.Errorf("Parse(%q) = %+v, %v (hostname %q)", tc.raw, u, ok, u.Hostname())
		}
	}
	if _, ok := Parse("https://host:port/x"); ok {
		t.Error("Parse accepted a port that is not a number")
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"git@github.com:org/repo":                   "github.com:org/repo",
		"https://x-access-token:tok@github.com/o/r": "https://github.com/o/r",
		"https://tok@host:bad/o/r":                  "https://host:bad/o/r",
		"tok@ho%zz/x":                               "ho%zz/x",
		"https://github.com/o/r":                    "https://github.com/o/r",
	} {
		if got := Redact(raw); got != want {
			t.Errorf("Redact(%q) = %q, want %q", raw, got, want)
		}
	}
}
