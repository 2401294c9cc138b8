package forge_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	labforge "github.com/imgupd/imgupd/lab/forge"
	"github.com/imgupd/imgupd/model/advice"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/sources/forge"
)

// checkCase is one BranchProtection call and what it must answer.
type checkCase struct {
	name   string
	url    string
	branch string
	user   string
	token  string

	wantErr   forge.Kind // Other with wantOK: no error
	wantOK    bool
	verdict   forge.Verdict
	protected bool
	canPush   *bool // compared when checkPush
	checkPush bool
	rules     []string // substrings, each in some rule line
	noRules   []string // substrings in no rule line
	scope     string   // substring of Error.Scope
	paths     []string // escaped paths the lab must have seen
	auth      string   // auth scheme every request must have used
	calls     int      // exact number of calls, when > 0
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

func protectionCases() []checkCase {
	ghes := "https://" + ghesHost + "/" + ghRepo + ".git"
	gl := "https://" + gitlabHost + "/" + glRepo + ".git"
	gt := "https://" + giteaHost + "/" + ghRepo + ".git"
	bb := "https://bitbucket.org/" + bbRepo + ".git"
	return []checkCase{
		// GitHub (GHES-style configured API base /api/v3).
		{name: "github/protected", url: ghes, branch: "main", token: tokWriter, wantOK: true,
			verdict: forge.PushRejectedUnlessExempt, protected: true, canPush: yes(), checkPush: true,
			rules: []string{"classic branch protection; required status checks: ci/build", "ruleset 42 (Repository acme/web): pull_request",
				"non_fast_forward (blocks force pushes only)"},
			paths: []string{"/api/v3/repos/acme/web", "/api/v3/repos/acme/web/branches/main", "/api/v3/repos/acme/web/rules/branches/main"},
			auth:  "Bearer", calls: 3},
		{name: "github/unprotected", url: ghes, branch: "dev", token: tokWriter, wantOK: true,
			verdict: forge.PushAllowed, canPush: yes(), checkPush: true,
			rules: []string{"ruleset 7 (Organization acme): non_fast_forward (blocks force pushes only)", "required_linear_history (blocks merge commits only"}},
		{name: "github/ruleset only", url: ghes, branch: "rules-only", token: tokWriter, wantOK: true,
			verdict: forge.PushRejectedUnlessExempt, protected: true, rules: []string{"ruleset 7 (Organization acme): update"},
			noRules: []string{"classic"}},
		{name: "github/branch with slash", url: ghes, branch: "feature/x", token: tokWriter, wantOK: true, verdict: forge.PushAllowed,
			paths: []string{"/api/v3/repos/acme/web/branches/feature%2Fx", "/api/v3/repos/acme/web/rules/branches/feature/x"}},
		{name: "github/no push", url: ghes, branch: "dev", token: tokReader, wantOK: true,
			verdict: forge.PushRejected, canPush: no(), checkPush: true},
		{name: "github/app token without permissions", url: ghes, branch: "dev", token: tokApp, wantOK: true,
			verdict: forge.PushNotBlocked, canPush: nil, checkPush: true},
		{name: "github/401", url: ghes, branch: "main", token: tokUnknown, wantErr: forge.Unauthorized, calls: 1},
		{name: "github/403", url: ghes, branch: "main", token: tokNoScope, wantErr: forge.Forbidden, scope: "Metadata: read"},
		{name: "github/404 repo", url: ghes, branch: "main", token: tokBlind, wantErr: forge.NotFound},
		{name: "github/404 branch", url: ghes, branch: "gone", token: tokWriter, wantErr: forge.BranchNotFound},
		{name: "github.com root layout", url: "git@github.com:acme/web.git", branch: "main", token: tokWriter, wantOK: true,
			verdict: forge.PushRejectedUnlessExempt, protected: true, paths: []string{"/repos/acme/web", "/repos/acme/web/rules/branches/main"}},

		// GitLab, with a subgroup path.
		{name: "gitlab/protected, developer", url: gl, branch: "main", token: tokWriter, wantOK: true,
			verdict: forge.PushRejected, protected: true, canPush: no(), checkPush: true,
			rules: []string{"protected branch: developers_can_push=false", "push_access_levels not read: access denied"},
			paths: []string{"/api/v4/projects/group%2Fsub%2Fproj/repository/branches/main", "/api/v4/projects/group%2Fsub%2Fproj/protected_branches/main"},
			auth:  "PRIVATE-TOKEN"},
		{name: "gitlab/protected, maintainer", url: gl, branch: "main", token: tokAdmin, wantOK: true,
			verdict: forge.PushAllowed, protected: true, canPush: yes(), checkPush: true, rules: []string{"push_access_levels: Maintainers"}},
		{name: "gitlab/wildcard protection", url: gl, branch: "release/1.0", token: tokAdmin, wantOK: true,
			verdict: forge.PushAllowed, protected: true, rules: []string{"protected by a wildcard rule"},
			paths: []string{"/api/v4/projects/group%2Fsub%2Fproj/repository/branches/release%2F1.0"}},
		{name: "gitlab/unprotected", url: gl, branch: "dev", token: tokWriter, wantOK: true,
			verdict: forge.PushAllowed, canPush: yes(), checkPush: true, calls: 1},
		{name: "gitlab/branch encoding", url: "ssh://git@" + gitlabHost + ":2222/" + glRepo + ".git", branch: "feature/x", token: tokWriter,
			wantOK: true, verdict: forge.PushAllowed,
			paths: []string{"/api/v4/projects/group%2Fsub%2Fproj/repository/branches/feature%2Fx"}},
		{name: "gitlab/no push", url: gl, branch: "dev", token: tokReader, wantOK: true, verdict: forge.PushRejected, canPush: no(), checkPush: true},
		{name: "gitlab/401", url: gl, branch: "main", token: tokUnknown, wantErr: forge.Unauthorized},
		{name: "gitlab/403", url: gl, branch: "main", token: tokNoScope, wantErr: forge.Forbidden, scope: "read_api"},
		{name: "gitlab/404 repo", url: gl, branch: "main", token: tokBlind, wantErr: forge.NotFound, calls: 2},
		{name: "gitlab/404 branch", url: gl, branch: "gone", token: tokWriter, wantErr: forge.BranchNotFound, calls: 2},

		// Gitea, and Forgejo through codeberg.org overridden by configuration.
		{name: "gitea/protected", url: gt, branch: "main", token: tokWriter, wantOK: true,
			verdict: forge.PushRejected, protected: true, canPush: no(), checkPush: true, rules: []string{"branch protection 'main'"},
			paths: []string{"/api/v1/repos/acme/web/branches/main"}, auth: "token", calls: 1},
		{name: "gitea/protected, allowlisted", url: gt, branch: "main", token: tokPusher, wantOK: true,
			verdict: forge.PushAllowed, protected: true, canPush: yes(), checkPush: true},
		{name: "gitea/unprotected", url: gt, branch: "dev", token: tokWriter, wantOK: true, verdict: forge.PushAllowed, canPush: yes(), checkPush: true},
		{name: "gitea/branch with slash", url: gt, branch: "feature/x", token: tokWriter, wantOK: true, verdict: forge.PushAllowed,
			paths: []string{"/api/v1/repos/acme/web/branches/feature/x"}},
		{name: "gitea/no push", url: gt, branch: "dev", token: tokReader, wantOK: true, verdict: forge.PushRejected, canPush: no(), checkPush: true},
		{name: "gitea/401", url: gt, branch: "main", token: tokUnknown, wantErr: forge.Unauthorized},
		{name: "gitea/403", url: gt, branch: "main", token: tokNoScope, wantErr: forge.Forbidden, scope: "read:repository"},
		{name: "gitea/404 repo", url: gt, branch: "main", token: tokBlind, wantErr: forge.NotFound},
		{name: "gitea/404 branch", url: gt, branch: "gone", token: tokWriter, wantErr: forge.BranchNotFound,
			paths: []string{"/api/v1/repos/acme/web/branches/gone", "/api/v1/repos/acme/web"}},
		{name: "forgejo/protected", url: "https://codeberg.org/" + ghRepo, branch: "main", token: tokWriter, wantOK: true,
			verdict: forge.PushRejected, protected: true},

		// Bitbucket Cloud (bitbucket.org overridden by configuration).
		{name: "bitbucket/403 needs admin", url: bb, branch: "main", token: tokWriter, wantErr: forge.Forbidden, scope: "repository:admin",
			auth: "Bearer"},
		{name: "bitbucket/nobody may push", url: bb, branch: "main", token: tokAdmin, wantOK: true,
			verdict: forge.PushRejected, protected: true, rules: []string{"push restriction 1 (pattern 'main'): nobody may push"},
			noRules: []string{"restriction 2"}},
		{name: "bitbucket/glob with exempt user", url: bb, branch: "release/2.0", token: tokAdmin, wantOK: true,
			verdict: forge.PushRejectedUnlessExempt, protected: true,
			rules: []string{"push restriction 3 (pattern 'release*'): only user deploy-bot may push"}},
		{name: "bitbucket/branching model", url: bb, branch: "prod", token: tokAdmin, wantOK: true,
			verdict: forge.PushRejectedUnlessExempt, protected: true,
			rules: []string{"push restriction 4 (branch type production): only group release-managers may push"},
			paths: []string{"/2.0/repositories/acme/bb/effective-branching-model"}},
		{name: "bitbucket/unrestricted", url: bb, branch: "develop", token: tokAdmin, wantOK: true, verdict: forge.PushNotBlocked,
			calls: 4}, // three push restrictions, one per page, then the branching model
		{name: "bitbucket/basic auth", url: "https://" + basicUser + "@bitbucket.org/" + bbRepo, branch: "main", user: basicUser,
			token: tokBasic, wantOK: true, verdict: forge.PushRejected, protected: true, auth: "Basic"},
		{name: "bitbucket/basic auth wrong user", url: bb, branch: "main", user: "someone", token: tokBasic, wantErr: forge.Unauthorized},
		{name: "bitbucket/401", url: bb, branch: "main", token: tokUnknown, wantErr: forge.Unauthorized},
		{name: "bitbucket/404 repo", url: bb, branch: "main", token: tokBlind, wantErr: forge.NotFound},

		// Before any request.
		{name: "not recognised", url: "https://git.unknown.example/acme/web.git", branch: "main", token: tokWriter, wantErr: forge.NotRecognised},
		{name: "no token", url: ghes, branch: "main", wantErr: forge.NoCredentials},
	}
}

func TestBranchProtection(t *testing.T) {
	t.Parallel()
	for _, tc := range protectionCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lab, c := startLab(t, labConfig())
			p, err := c.BranchProtection(context.Background(), tc.url, tc.branch,
				updater.Credentials{Username: tc.user, Password: updater.Secret(tc.token)})
			if !tc.wantOK {
				var fe *forge.Error
				if !errors.As(err, &fe) {
					t.Fatalf("error = %v (%T), want *forge.Error of kind %s", err, err, tc.wantErr)
				}
				if fe.Kind != tc.wantErr {
					t.Fatalf("kind = %s, want %s (%v)", fe.Kind, tc.wantErr, err)
				}
				if !strings.Contains(fe.Scope, tc.scope) {
					t.Errorf("scope = %q, want %q", fe.Scope, tc.scope)
				}
				if advice.ForForge(fe.Facts()) == "" {
					t.Error("empty hint")
				}
				if fe.Kind != forge.NotRecognised && fe.Kind != forge.NoCredentials && (fe.Method == "" || fe.URL == "") {
					t.Errorf("error without request: %+v", fe)
				}
			} else {
				if err != nil {
					t.Fatalf("BranchProtection: %v", err)
				}
				if p.Verdict != tc.verdict || p.Protected != tc.protected {
					t.Errorf("verdict %s protected %t, want %s %t; reason: %s; rules %q", p.Verdict, p.Protected, tc.verdict, tc.protected, p.Reason, p.Rules)
				}
				if tc.checkPush && !samePtr(p.CanPush, tc.canPush) {
					t.Errorf("CanPush = %v, want %v", show(p.CanPush), show(tc.canPush))
				}
				if p.Reason == "" || strings.Contains(p.Reason, "\n") {
					t.Errorf("reason %q: want one line", p.Reason)
				}
			}
			for _, want := range tc.rules {
				if !slices.ContainsFunc(p.Rules, func(r string) bool { return strings.Contains(r, want) }) {
					t.Errorf("no rule line contains %q: %q", want, p.Rules)
				}
			}
			for _, bad := range tc.noRules {
				if slices.ContainsFunc(p.Rules, func(r string) bool { return strings.Contains(r, bad) }) {
					t.Errorf("a rule line contains %q: %q", bad, p.Rules)
				}
			}
			reqs := lab.Requests()
			if tc.calls > 0 && (len(reqs) != tc.calls || len(p.Calls) != tc.calls) {
				t.Errorf("%d requests, %d calls recorded, want %d: %+v", len(reqs), len(p.Calls), tc.calls, reqs)
			}
			if len(p.Calls) != len(reqs) {
				t.Errorf("Protection.Calls has %d calls, the lab saw %d", len(p.Calls), len(reqs))
			}
			for _, path := range tc.paths {
				if !slices.ContainsFunc(reqs, func(r labforge.Request) bool { return r.Path == path }) {
					t.Errorf("no request for %s; saw %+v", path, reqs)
				}
			}
			for _, r := range reqs {
				if r.Method != "GET" {
					t.Errorf("%s %s: a check must only read", r.Method, r.Path)
				}
				if tc.auth != "" && r.Auth != tc.auth {
					t.Errorf("%s used auth %q, want %q", r.Path, r.Auth, tc.auth)
				}
				if r.Dialect == "github" && (r.Accept != "application/vnd.github+json" || r.APIVersion != "2022-11-28") {
					t.Errorf("%s: Accept %q, API version %q", r.Path, r.Accept, r.APIVersion)
				}
			}
		})
	}
}

func samePtr(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func show(b *bool) string {
	if b == nil {
		return "nil"
	}
	if *b {
		return "true"
	}
	return "false"
}
