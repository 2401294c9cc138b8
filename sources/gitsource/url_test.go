package gitsource

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestNormalizeURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"https://GitHub.com/Org/Repo.git", "https://github.com/Org/Repo"},
		{"https://user:tok@github.com/org/repo/", "https://github.com/org/repo"},
		{"HTTPS://github.com/org/repo.git/", "https://github.com/org/repo"},
		{"http://127.0.0.1:8080/team/app.git", "http://127.0.0.1:8080/team/app"},
		{"git@GitHub.com:org/repo.git", "ssh://github.com/org/repo"},
		{"ssh://git@github.com/org/repo.git", "ssh://github.com/org/repo"},
		{"ssh://git@github.com:2222/org/repo", "ssh://github.com:2222/org/repo"},
		{"  https://h/r.git  ", "https://h/r"},
		{"/srv/git/repo.git", "/srv/git/repo"},
	}
	for _, tc := range tests {
		if got := NormalizeURL(tc.in); got != tc.want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSameRepo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{"https://github.com/org/repo.git", "https://GITHUB.com/org/repo/", true},
		{"https://bot:x@github.com/org/repo", "https://github.com/org/repo.git", true},
		{"git@github.com:org/repo.git", "ssh://git@github.com/org/repo", true},
		{"https://github.com/org/repo", "git@github.com:org/repo.git", false},
		{"https://github.com/org/repo", "https://github.com/org/other", false},
		{"https://github.com/org/Repo", "https://github.com/org/repo", false},
	}
	for _, tc := range tests {
		if got := SameRepo(tc.a, tc.b); got != tc.want {
			t.Errorf("SameRepo(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestRequiresSecureURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		want bool
	}{
		{"https://github.com/org/repo.git", false},
		{"git@github.com:org/repo.git", false},
		{"ssh://git@github.com/org/repo.git", false},
		{"http://gitea.local/org/repo.git", true},
		{"HTTPS://github.com/org/repo.git", true}, // Argo CD's test is case-sensitive
		{"ssh://github.com/org/repo.git", true},   // no user: not SSH to Argo CD
		{"git://github.com/org/repo.git", true},
		{"file:///srv/repo.git", true},
	}
	for _, tc := range tests {
		if got := RequiresSecureURL(tc.url); got != tc.want {
			t.Errorf("RequiresSecureURL(%q) = %v, want %v", tc.url, got, tc.want)
		}
		if ssh := strings.Contains(tc.url, "@"); IsSSHURL(tc.url) != ssh {
			t.Errorf("IsSSHURL(%q) = %v", tc.url, !ssh)
		}
		err := CheckSecretURL(tc.url)
		if (err != nil) != tc.want {
			t.Errorf("CheckSecretURL(%q) = %v", tc.url, err)
		}
		var e *Error
		if err != nil && (!errors.As(err, &e) || e.Kind != UnsupportedURL || !errors.Is(err, errNeedsSecureURL)) {
			t.Errorf("CheckSecretURL(%q) = %#v", tc.url, err)
		}
	}
}

func TestKindNames(t *testing.T) {
	t.Parallel()
	for _, k := range Kinds() {
		if k == "" || (phrase(k) == "failed" && k != Other) {
			t.Errorf("Kind %q has no name or phrase", k)
		}
		e := &Error{Kind: k, Op: "ls-remote", URL: "https://h/r"}
		if adviceFor(e) == "" || e.Error() == "" {
			t.Errorf("%s: empty hint or message", k)
		}
	}
	if b, _ := json.Marshal(AuthFailed); string(b) != `"AuthFailed"` {
		t.Errorf("JSON = %s", b)
	}
}
