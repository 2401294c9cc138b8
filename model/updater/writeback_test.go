package updater

import (
	"errors"
	"strings"
	"testing"
)

func TestParseWriteBackMethod(t *testing.T) {
	tests := []struct {
		in       string
		want     WriteBackMethod
		wantPart string
	}{
		{in: "argocd", want: WriteBackMethod{Method: "argocd"}},
		{in: " argocd ", want: WriteBackMethod{Method: "argocd"}},
		{in: "git", want: WriteBackMethod{Method: "git", Creds: "repocreds"}},
		{in: "git:repocreds", want: WriteBackMethod{Method: "git", Creds: "repocreds"}},
		{in: "git:secret:argocd/git-creds", want: WriteBackMethod{Method: "git", Creds: "secret", SecretNamespace: "argocd", SecretName: "git-creds", SecretRef: "argocd/git-creds"}},
		{in: "git:secret:git-creds", want: WriteBackMethod{Method: "git", Creds: "secret", SecretName: "git-creds", SecretRef: "git-creds"}},
		{in: "git:secret:", want: WriteBackMethod{Method: "git", Creds: "secret"}},
		{in: "", wantPart: "method"},
		{in: "kustomize", wantPart: "method"},
		{in: "argocd:x", wantPart: "method"},
		{in: ":git", wantPart: "method"},
		{in: "GIT", wantPart: "method"},
		{in: "git:", wantPart: "credentials"},
		{in: "git:ssh", wantPart: "credentials"},
		{in: "git:pullsecret:a/b", wantPart: "credentials"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseWriteBackMethod(tc.in)
			if tc.wantPart != "" {
				var we *WriteBackError
				if !errors.As(err, &we) || we.Part != tc.wantPart {
					t.Fatalf("want *WriteBackError part %s, got %v", tc.wantPart, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v", got, err)
			}
		})
	}
}

func TestCheckWriteBackMethodPattern(t *testing.T) {
	for in, ok := range map[string]bool{"argocd": true, "git": true, "git:secret:ns/name": true, "git:repocreds": true, " git": false, "git:": false, "git:-x": false, "Argocd": false} {
		if got := CheckWriteBackMethodPattern(in) == nil; got != ok {
			t.Errorf("%q: ok=%v, want %v", in, got, ok)
		}
	}
}

func TestParseGitBranch(t *testing.T) {
	tests := []struct {
		in, base, target string
		wantErr          bool
	}{
		{in: "main", base: "main"},
		{in: " main ", base: "main"},
		{in: "main:image-updater-{{.SHA256}}", base: "main", target: "image-updater-{{.SHA256}}"},
		{in: ":updates", target: "updates"},
		{in: "main:", base: "main"},
		{in: "", base: ""},
		{in: "a:b:c", wantErr: true},
		{in: "::", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			b, tg, err := ParseGitBranch(tc.in)
			if tc.wantErr {
				var we *WriteBackError
				if !errors.As(err, &we) || we.Part != "branch" {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil || b != tc.base || tg != tc.target {
				t.Fatalf("got %q %q %v", b, tg, err)
			}
		})
	}
}

func TestParseWriteBackTarget(t *testing.T) {
	tests := []struct {
		in        string
		kind      string
		path      string
		wantNotes bool
	}{
		{"kustomization", TargetKustomization, "apps/web", false},
		{"kustomization:overlays/prod", TargetKustomization, "apps/web/overlays/prod", false},
		{"kustomization:/overlays/prod", TargetKustomization, "overlays/prod", false},
		{"kustomization:../base", TargetKustomization, "apps/base", false},
		{"kustomization.yaml", TargetKustomization, "apps/web/yaml", true},
		{"helmvalues", TargetHelmValues, "apps/web/values.yaml", false},
		{"helmvalues:values-prod.yaml", TargetHelmValues, "apps/web/values-prod.yaml", false},
		{"helmvalues:/charts/values.yaml", TargetHelmValues, "charts/values.yaml", false},
		{"overrides/images.yaml", TargetPath, "overrides/images.yaml", false},
		{"", TargetPath, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, notes := ParseWriteBackTarget(tc.in, "apps/web")
			if got.Kind != tc.kind || got.Path != tc.path || got.Raw != tc.in || (len(notes) > 0) != tc.wantNotes {
				t.Fatalf("got %+v notes %q", got, notes)
			}
		})
	}
}

func TestDefaultWriteBackFile(t *testing.T) {
	app := Application{Name: "web", Namespace: "team-a", SourceType: AppSourceHelm, Sources: []AppSource{{RepoURL: "https://g/r.git", Path: "charts/web"}}}
	tests := []struct {
		name, ctrlNS, appNS, want string
	}{
		{"same namespace", "argocd", "argocd", "charts/web/.argocd-source-web.yaml"},
		{"other namespace", "argocd", "team-a", "charts/web/.argocd-source-team-a_web.yaml"},
		{"controller in default", "default", "team-a", "charts/web/.argocd-source-web.yaml"},
		{"app without namespace", "argocd", "", "charts/web/.argocd-source-web.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := app
			a.Namespace = tc.appNS
			if got := DefaultWriteBackFile(a, tc.ctrlNS); got != tc.want {
				t.Fatalf("got %q", got)
			}
		})
	}
	t.Run("multi-source picks the helm source", func(t *testing.T) {
		a := Application{Name: "web", Namespace: "argocd", MultiSource: true, SourceTypes: []string{"Directory", "Helm"},
			Sources: []AppSource{{RepoURL: "https://g/values.git", Path: "vals"}, {RepoURL: "https://charts", Chart: "web", HasHelm: true, Path: "chart"}}}
		if got := DefaultWriteBackFile(a, "argocd"); got != "chart/.argocd-source-web.yaml" {
			t.Fatalf("got %q", got)
		}
	})
}

func TestBuildWriteBack(t *testing.T) {
	app := Application{Name: "web", Namespace: "team-a", SourceType: AppSourceKustomize,
		Sources: []AppSource{{RepoURL: "https://git.example.com/org/repo.git", Path: "apps/web", TargetRevision: "main", HasKustomize: true}}}
	wbc := func(method string, opts ...func(*GitConfig)) *WriteBackConfig {
		w := &WriteBackConfig{Method: &method, GitConfig: &GitConfig{}}
		for _, o := range opts {
			o(w.GitConfig)
		}
		return w
	}
	branch := func(b string) func(*GitConfig) { return func(g *GitConfig) { g.Branch = &b } }
	target := func(s string) func(*GitConfig) { return func(g *GitConfig) { g.WriteBackTarget = &s } }
	repo := func(s string) func(*GitConfig) { return func(g *GitConfig) { g.Repository = &s } }
	pr := func(p *PullRequestConfig) func(*GitConfig) { return func(g *GitConfig) { g.PullRequest = p } }

	tests := []struct {
		name         string
		app          *Application
		cfg          *WriteBackConfig
		v            Version
		wantErrPart  string
		wantDeferred string
		check        func(t *testing.T, wb WriteBack)
	}{
		{name: "nil is argocd with default target", cfg: nil, v: V1_3, check: func(t *testing.T, wb WriteBack) {
			if wb.Method != WriteBackArgoCD || wb.Target.Kind != TargetDefault || wb.Target.Path != "apps/web/.argocd-source-team-a_web.yaml" {
				t.Fatalf("%+v", wb)
			}
		}},
		{name: "no source at all", app: &Application{Name: "x", Namespace: "argocd"}, v: V1_3, wantErrPart: "source"},
		{name: "hydrated app without spec.source on v1.2", app: &Application{Name: "x", Namespace: "argocd", Hydrator: &DrySource{RepoURL: "https://g/dry.git", Path: "dry"}}, v: V1_2, wantErrPart: "source"},
		{name: "hydrated app uses the drySource on v1.3", app: &Application{Name: "x", Namespace: "argocd", Hydrator: &DrySource{RepoURL: "https://g/dry.git", Path: "dry", HasHelm: true}},
			cfg: wbc("git"), v: V1_3, check: func(t *testing.T, wb WriteBack) {
				if wb.Repository != "https://g/dry.git" || wb.Target.Path != "dry/.argocd-source-x.yaml" {
					t.Fatalf("%+v", wb)
				}
			}},
		{name: "git repocreds defaults", cfg: wbc("git"), v: V1_2, check: func(t *testing.T, wb WriteBack) {
			if wb.Method != WriteBackGit || wb.Creds != GitCredsRepoCreds || wb.Repository != app.Sources[0].RepoURL || !wb.RepositoryFromApp || wb.BaseBranch != "" {
				t.Fatalf("%+v", wb)
			}
		}},
		{name: "branch with two colons", cfg: wbc("git", branch("a:b:c")), v: V1_3, wantErrPart: "branch"},
		{name: "invalid mechanism", cfg: wbc("kustomize"), v: V1_3, wantErrPart: "method"},
		{name: "empty method in a CR", cfg: wbc(""), v: V1_3, wantErrPart: "method"},
		{name: "base:target", cfg: wbc("git", branch("main:upd/{{.SHA256}}"), repo("git@github.com:org/repo.git")), v: V1_3, check: func(t *testing.T, wb WriteBack) {
			if wb.BaseBranch != "main" || wb.TargetBranchTemplate != "upd/{{.SHA256}}" || wb.Repository != "git@github.com:org/repo.git" || wb.RepositoryFromApp {
				t.Fatalf("%+v", wb)
			}
		}},
		{name: "secret name only before v1.3 fails at commit", cfg: wbc("git:secret:creds"), v: V1_2, wantDeferred: "namespace/name"},
		{name: "secret name only on v1.3 uses app namespace", cfg: wbc("git:secret:creds"), v: V1_3, check: func(t *testing.T, wb WriteBack) {
			if wb.SecretNamespace != "team-a" || wb.SecretName != "creds" || len(wb.Deferred) != 0 {
				t.Fatalf("%+v", wb)
			}
		}},
		{name: "foreign secret namespace on v1.3", cfg: wbc("git:secret:argocd/creds"), v: V1_3, wantDeferred: "differs from app namespace"},
		{name: "foreign secret namespace on v1.2 is fine", cfg: wbc("git:secret:argocd/creds"), v: V1_2, check: func(t *testing.T, wb WriteBack) {
			if len(wb.Deferred) != 0 || wb.SecretNamespace != "argocd" {
				t.Fatalf("%+v", wb)
			}
		}},
		{name: "secret creds with http repo", cfg: wbc("git:secret:team-a/creds", repo("http://git.local/r.git")), v: V1_3, wantDeferred: "unknown repository type"},
		{name: "bare kustomization path on v1.3", cfg: wbc("git", target("apps/web/kustomization.yaml")), v: V1_3, wantDeferred: "PR #1766"},
		{name: "bare kustomization path before v1.3 is a data-loss note", cfg: wbc("git", target("apps/web/kustomization.yaml")), v: V1_2, check: func(t *testing.T, wb WriteBack) {
			if len(wb.Deferred) != 0 || len(wb.Notes) == 0 || wb.Target.Kind != TargetPath {
				t.Fatalf("%+v", wb)
			}
		}},
		{name: "empty target from a CR", cfg: wbc("git", target("")), v: V1_3, wantDeferred: "empty write-back target"},
		{name: "pull request with colon branch", cfg: wbc("git", branch("main:x"), pr(&PullRequestConfig{GitHub: &PRProviderConfig{}})), v: V1_3, wantErrPart: "branch"},
		{name: "pull request with two providers", cfg: wbc("git", pr(&PullRequestConfig{GitHub: &PRProviderConfig{}, GitLab: &PRProviderConfig{}})), v: V1_3, wantErrPart: "pullRequest"},
		{name: "pull request github", cfg: wbc("git", pr(&PullRequestConfig{GitHub: &PRProviderConfig{}})), v: V1_2, check: func(t *testing.T, wb WriteBack) {
			if wb.PullRequest == nil || wb.PullRequest.Provider != "github" {
				t.Fatalf("%+v", wb)
			}
		}},
		{name: "pull request ignored before v1.2", cfg: wbc("git", pr(&PullRequestConfig{GitHub: &PRProviderConfig{}, GitLab: &PRProviderConfig{}})), v: V1_1, check: func(t *testing.T, wb WriteBack) {
			if wb.PullRequest != nil {
				t.Fatalf("%+v", wb)
			}
		}},
		{name: "argocd method ignores gitConfig with a note", cfg: wbc("argocd", branch("a:b:c")), v: V1_3, check: func(t *testing.T, wb WriteBack) {
			if wb.Method != WriteBackArgoCD || len(wb.Notes) != 1 {
				t.Fatalf("%+v", wb)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := app
			if tc.app != nil {
				a = *tc.app
			}
			wb, err := BuildWriteBack(a, tc.cfg, WriteBackOptions{Version: tc.v, ControllerNamespace: "argocd"})
			if tc.wantErrPart != "" {
				var we *WriteBackError
				if !errors.As(err, &we) || we.Part != tc.wantErrPart {
					t.Fatalf("want part %s, got %v", tc.wantErrPart, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if tc.wantDeferred != "" {
				found := false
				for _, d := range wb.Deferred {
					found = found || strings.Contains(d.Error(), tc.wantDeferred)
				}
				if !found {
					t.Fatalf("want deferred %q, got %v", tc.wantDeferred, wb.Deferred)
				}
			}
			if tc.check != nil {
				tc.check(t, wb)
			}
		})
	}
}

func FuzzParseWriteBackMethod(f *testing.F) {
	for _, s := range []string{"", "argocd", "git", "git:", "git:repocreds", "git:secret:", "git:secret:a/b/c", ":", "::git", "git:secret:ns/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseWriteBackMethod(s)
		if err == nil && m.Method != WriteBackArgoCD && m.Method != WriteBackGit {
			t.Fatalf("accepted method %q", m.Method)
		}
		// The CRD pattern admits any "git:<x>", which the controller may
		// still reject, but only for its credentials part.
		var we *WriteBackError
		if CheckWriteBackMethodPattern(s) == nil && err != nil && (!errors.As(err, &we) || we.Part != "credentials") {
			t.Fatalf("CRD pattern accepts %q but the parser rejects its method: %v", s, err)
		}
		app := Application{Name: "a", Namespace: "n", SourceType: AppSourceHelm, Sources: []AppSource{{RepoURL: s, Path: s}}}
		cfg := &WriteBackConfig{Method: &s, GitConfig: &GitConfig{WriteBackTarget: &s, Branch: &s, Repository: &s}}
		for _, v := range KnownVersions() {
			_, _ = BuildWriteBack(app, cfg, WriteBackOptions{Version: v, ControllerNamespace: "argocd"})
		}
	})
}

func FuzzGitBranch(f *testing.F) {
	for _, s := range []string{"", "main", ":x", "a:b", "a:b:c", " : ", "{{.SHA256}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, tg, err := ParseGitBranch(s)
		if strings.Count(strings.TrimSpace(s), ":") > 1 {
			if err == nil {
				t.Fatalf("%q accepted", s)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q rejected: %v", s, err)
		}
		if strings.Contains(b, ":") || strings.Contains(tg, ":") {
			t.Fatalf("split %q into %q %q", s, b, tg)
		}
		_, _ = ParseWriteBackTarget(s, s)
	})
}
