package cluster

import (
	"context"
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

func TestMatchRepoCredential(t *testing.T) {
	creds := repoFixture(t)
	tests := []struct {
		url, want, why string
	}{
		{"https://github.com/acme/web", "repo-web", "repository secret repo-web has URL https://GitHub.com/acme/web.git"},
		{"https://github.com/acme/web.git/", "repo-web", "repository secret repo-web has URL https://GitHub.com/acme/web.git"},
		{"https://github.com/acme/api.git", "creds-acme", "no repository secret for https://github.com/acme/api.git; repo-creds creds-acme has the longest matching URL prefix https://github.com/acme"},
		{"https://github.com/other/x", "creds-github", "no repository secret for https://github.com/other/x; repo-creds creds-github has the longest matching URL prefix https://github.com"},
		{"https://github.com/acme/public.git", "creds-acme", "repository secret repo-public matches https://github.com/acme/public.git but holds no credentials; they come from repo-creds creds-acme (URL prefix https://github.com/acme)"},
		{"ssh://git@gitlab.com/acme/app.git", "creds-ssh", "no repository secret for ssh://git@gitlab.com/acme/app.git; repo-creds creds-ssh has the longest matching URL prefix git@gitlab.com:acme"},
		{"git@gitlab.com:acme/app.git", "creds-ssh", "no repository secret for git@gitlab.com:acme/app.git; repo-creds creds-ssh has the longest matching URL prefix git@gitlab.com:acme"},
		{"https://gitlab.com/acme/app.git", "", "no repository secret has URL https://gitlab.com/acme/app.git and no repo-creds URL is a prefix of it (6 repository secrets read)"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			got, why := MatchRepoCredential(creds, tt.url)
			name := ""
			if got != nil {
				name = got.SecretName
			}
			if name != tt.want || why != tt.why {
				t.Errorf("got %q (%s)\nwant %q (%s)", name, why, tt.want, tt.why)
			}
		})
	}
	only := []RepoCred{{SecretName: "pub", Type: SecretTypeRepository, URL: "https://example.com/r"}}
	if got, why := MatchRepoCredential(only, "https://example.com/r.git"); got == nil || got.SecretName != "pub" ||
		why != "repository secret pub matches https://example.com/r.git but holds no credentials and no repo-creds URL is a prefix of it (anonymous access)" {
		t.Errorf("anonymous: %v %s", got, why)
	}
}

func TestNormalizeRepoURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://GitHub.com/Acme/Web.git/": "https://github.com/Acme/Web",
		"git@github.com:acme/web.git":      "ssh://git@github.com/acme/web",
		"ssh://git@github.com/acme/web":    "ssh://git@github.com/acme/web",
		" https://h/x.git.git ":            "https://h/x",
		"":                                 "",
	} {
		if got := NormalizeRepoURL(in); got != want {
			t.Errorf("NormalizeRepoURL(%q) = %q, want %q", in, got, want)
		}
	}
}
