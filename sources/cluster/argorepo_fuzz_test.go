package cluster

import (
	"strings"
	"testing"
)

// FuzzResolveRepository: any repository URL and any Secret URLs resolve
// without panicking, normalising twice changes nothing more, the repository
// found is one of the Secrets given, and its secret values never appear in
// Why or Err. A template is marked as another host's exactly when its
// origin is not the repository's, and without its credentials the
// repository has none.
func FuzzResolveRepository(f *testing.F) {
	for _, s := range []string{"https://github.com/Org/Repo.git", "git@github.com:org/repo.git", "ssh://git@h:22/x", "10.0.0.1:5000/charts",
		"ssh://git@host:org/repo", "", "https://user:pw@h/x/", "oci://ghcr.io/a/b"} {
		f.Add(s, "https://github.com/org", "repo")
	}
	f.Add("https://github.com.evil.example/org/x.git", "https://github.com", "")
	f.Add("https://github.com:4430/org/x", "https://github.com:443", "")
	f.Fuzz(func(t *testing.T, repoURL, secretURL, project string) {
		_ = ArgoNormalizeURL(repoURL)
		_ = HostOf(repoURL)
		_ = IsArgoSSHURL(repoURL)
		const canary = "CANARY-fuzz-secret-7f3a"
		creds := []RepoCred{
			{SecretName: "r", Type: SecretTypeRepository, URL: secretURL, Project: project, Data: map[string][]byte{"url": []byte(secretURL), "password": []byte(canary)}},
			{SecretName: "t", Type: SecretTypeRepoCreds, URL: secretURL, Data: map[string][]byte{"url": []byte(secretURL), "password": []byte(canary), "insecure": []byte(project)}},
		}
		got := ResolveRepository(creds, repoURL, project)
		if got.Secret != "" && got.Secret != "r" || got.Template != "" && got.Template != "t" {
			t.Fatalf("matched %q/%q, not a given Secret", got.Secret, got.Template)
		}
		if strings.Contains(got.Why, canary) || got.Err != nil && strings.Contains(got.Err.Error(), canary) {
			t.Fatalf("secret value in %q / %v", got.Why, got.Err)
		}
		// A template whose url names no host ("https://", "@") is for every host under its prefix:
		// it crosses no host boundary.
		if th := OriginOf(secretURL); got.Template == "t" && (got.TemplateOtherHost != "") != (th != "" && th != OriginOf(repoURL)) {
			t.Fatalf("template %q for repository %q: marked other host %q, origins %q and %q", secretURL, repoURL, got.TemplateOtherHost, OriginOf(secretURL), OriginOf(repoURL))
		}
		if got.Template == "" && got.TemplateOtherHost != "" {
			t.Fatal("marked another host's template without a template")
		}
		if got.WithoutCredentials().HasCredentials() {
			t.Fatal("WithoutCredentials kept a credential")
		}
	})
}
