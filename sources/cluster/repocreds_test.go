package cluster

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func repoSecret(name, typ string, data map[string]string) *corev1.Secret {
	d := map[string][]byte{}
	for k, v := range data {
		d[k] = []byte(v)
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "argocd", Name: name, Labels: map[string]string{LabelSecretType: typ}},
		Data:       d,
	}
}

func inNamespace(ns string, s *corev1.Secret) *corev1.Secret {
	s.Namespace = ns
	return s
}

func repoFixture(t *testing.T) []RepoCred {
	t.Helper()
	r := newTestReader(t, []runtime.Object{
		repoSecret("repo-web", "repository", map[string]string{"url": "https://GitHub.com/acme/web.git", "username": "bot", "password": "p"}),
		repoSecret("repo-public", "repository", map[string]string{"url": "https://github.com/acme/public", "type": "git"}),
		repoSecret("creds-acme", "repo-creds", map[string]string{"url": "https://github.com/acme", "githubAppID": "1", "githubAppPrivateKey": "k"}),
		repoSecret("creds-github", "repo-creds", map[string]string{"url": "https://github.com", "username": "x", "password": "y"}),
		repoSecret("creds-ssh", "repo-creds", map[string]string{"url": "git@gitlab.com:acme", "sshPrivateKey": "KEY"}),
		repoSecret("creds-helm", "repo-creds", map[string]string{"url": "https://charts.acme.io", "type": "helm", "project": "shop"}),
		// Not repository secrets.
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "argocd", Name: "argocd-secret"}},
		repoSecret("cluster-prod", "cluster", map[string]string{"server": "https://prod"}),
		inNamespace("team", repoSecret("other-ns", "repository", map[string]string{"url": "https://github.com/acme/web"})),
	})
	creds, err := r.RepoCredentials(context.Background(), "argocd")
	if err != nil {
		t.Fatal(err)
	}
	return creds
}

func TestRepoCredentials(t *testing.T) {
	creds := repoFixture(t)
	var names []string
	for _, c := range creds {
		names = append(names, c.Type+":"+c.SecretName)
	}
	want := []string{"repository:repo-public", "repository:repo-web", "repo-creds:creds-acme", "repo-creds:creds-github", "repo-creds:creds-helm", "repo-creds:creds-ssh"}
	if len(names) != len(want) {
		t.Fatalf("creds %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("creds %v, want %v", names, want)
		}
	}
	web := creds[1]
	if web.Username != "bot" || !web.HasPassword || web.HasSSHKey || string(web.Data["password"]) != "p" {
		t.Errorf("repo-web: %+v", web)
	}
	if !creds[2].HasGitHubApp || !creds[5].HasSSHKey || creds[4].RepoType != "helm" || creds[4].Project != "shop" {
		t.Errorf("flags: %v", creds)
	}
}

// TestArgoNormalizeURL: the table of argocd-repositories.md §1.3, checked
// there against Argo CD's own NormalizeGitURL.
func TestArgoNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/Org/Repo.git":    "https://github.com/org/repo",
		"https://github.com/org/repo/":       "https://github.com/org/repo/",
		"https://github.com/org/repo.git/":   "https://github.com/org/repo.git/",
		"git@github.com:org/repo.git":        "git@github.com/org/repo",
		"ssh://git@github.com/org/repo.git":  "git@github.com/org/repo",
		"ssh://git@github.com:22/org/repo":   "git@github.com:22/org/repo",
		"https://user@github.com/org/repo":   "https://user@github.com/org/repo",
		"https://github.com:443/org/repo":    "https://github.com:443/org/repo",
		"registry-1.docker.io/bitnamicharts": "registry-1.docker.io/bitnamicharts",
		"10.0.0.1:5000/charts":               "",
		"ssh://git@host:org/repo":            "",
		"":                                   "",
	} {
		if got := ArgoNormalizeURL(in); got != want {
			t.Errorf("ArgoNormalizeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestResolveRepository: project scoping, templates only for a Secret
// without credentials, fill versus overwrite, no path boundary, unparsable
// booleans.
func TestResolveRepository(t *testing.T) {
	sec := func(name, typ, url, project string, kv ...string) RepoCred {
		d := map[string][]byte{"url": []byte(url)}
		for i := 0; i+1 < len(kv); i += 2 {
			d[kv[i]] = []byte(kv[i+1])
		}
		c := RepoCred{SecretName: name, Type: typ, URL: url, Project: project, Data: d}
		return c
	}
	creds := []RepoCred{
		sec("web-shop", SecretTypeRepository, "https://git.example/acme/web.git", "shop", "username", "shop-bot", "password", "s1"),
		sec("web-any", SecretTypeRepository, "https://git.example/acme/web", "", "username", "any-bot", "password", "s2"),
		sec("web-other", SecretTypeRepository, "https://git.example/acme/web", "other", "username", "other-bot", "password", "s3"),
		sec("pub", SecretTypeRepository, "https://git.example/acme/pub", "", "insecure", "true", "enableOCI", "true"),
		sec("tpl-acme", SecretTypeRepoCreds, "https://git.example/acme", "", "username", "tpl", "password", "t1", "insecure", "true", "enableOCI", "false", "proxy", "http://proxy:3128"),
		sec("tpl-short", SecretTypeRepoCreds, "https://git.example", "", "username", "short", "password", "t2"),
		sec("bad", SecretTypeRepository, "https://git.example/acme/bad", "", "insecure", "yes-please"),
	}
	got := ResolveRepository(creds, "https://git.example/ACME/web", "shop")
	if got.Secret != "web-shop" || got.Get("username") != "shop-bot" || got.Template != "" {
		t.Errorf("project-scoped secret first: %v (%s)", got, got.Why)
	}
	if got := ResolveRepository(creds, "https://git.example/acme/web", "payments"); got.Secret != "web-any" {
		t.Errorf("unscoped secret for another project: %v (%s)", got, got.Why)
	}
	got = ResolveRepository(creds, "https://git.example/acme/pub.git", "")
	if got.Secret != "pub" || got.Template != "tpl-acme" || got.Get("username") != "tpl" || got.Get("proxy") != "http://proxy:3128" {
		t.Errorf("template fills a Secret without credentials: %v (%s)", got, got.Why)
	}
	if !got.Insecure() || got.Bool("enableOCI") {
		t.Errorf("the Secret's insecure stays, the template overwrites enableOCI: insecure %v enableOCI %v", got.Insecure(), got.Bool("enableOCI"))
	}
	if got := ResolveRepository(creds, "https://git.example/acme-labs/x", ""); got.Template != "tpl-acme" || got.Insecure() {
		t.Errorf("plain string prefix, no path boundary, a template's insecure is ignored: %v (%s)", got, got.Why)
	}
	if got := ResolveRepository(creds, "https://other.example/x", ""); got.Secret != "" || got.Template != "" || got.HasCredentials() {
		t.Errorf("nothing matches: %v (%s)", got, got.Why)
	}
	if got := ResolveRepository(creds, "https://git.example/acme/bad", ""); got.Err == nil || !strings.Contains(got.Err.Error(), "insecure") {
		t.Errorf("a malformed boolean fails the repository: %v", got.Err)
	}
	if s := fmt.Sprintf("%v %+v %#v", got, got, got); strings.Contains(s, "yes-please") || strings.Contains(s, "t1") {
		t.Errorf("secret data printed: %s", s)
	}
}

func TestHostOf(t *testing.T) {
	for in, want := range map[string]string{
		"https://Git.Example:8443/a/b": "Git.Example", "git@github.com:org/r.git": "github.com",
		"ssh://git@host:2222/x": "host", "registry-1.docker.io/charts": "registry-1.docker.io", "oci://ghcr.io/acme/c": "ghcr.io",
	} {
		if got := HostOf(in); got != want {
			t.Errorf("HostOf(%q) = %q, want %q", in, got, want)
		}
	}
}
