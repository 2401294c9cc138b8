package labforge

import (
	"crypto/rsa"
	"slices"
	"time"
)

// Config is what the fake forge serves. It is read-only once the server
// runs (Start copies nothing: do not change it afterwards); only the
// tokens minted by the GitHub App endpoint are added at run time.
type Config struct {
	// Only, when set, serves that dialect alone ("github", "gitlab",
	// "gitea", "bitbucket"): a real forge answers only its own API, which
	// discovery on a forge's host relies on.
	Only string
	// Repos are the repositories, served in every dialect.
	Repos []Repo
	// Tokens are the accepted API tokens. Any other token, or none, gets
	// 401.
	Tokens []Token
	// Apps are GitHub Apps whose JWTs the installation token endpoint
	// accepts.
	Apps []App
	// Delay holds every answer this long (or until the client gives up),
	// for timeout tests.
	Delay time.Duration
	// PageSize caps Bitbucket pages (default 10), so clients must follow
	// "next".
	PageSize int
}

// Repo is one repository.
type Repo struct {
	// Path is "owner/name" ("acme/web"), or a GitLab path with subgroups
	// ("group/sub/proj").
	Path string
	// DefaultBranch is the default branch; empty means the first branch.
	DefaultBranch string
	// Private repositories are invisible (404) to tokens that do not list
	// them; public ones too, as private is what tests need. The flag only
	// shows in the JSON.
	Private  bool
	Branches []Branch
	// Restrictions are Bitbucket Cloud branch restrictions.
	Restrictions []Restriction
	// PullRequests are the open pull requests (GitHub) or merge requests
	// (GitLab).
	PullRequests []PullRequest
	// BranchingModel is Bitbucket's effective branching model; nil gives
	// Bitbucket's default (development = the main branch; feature/,
	// bugfix/, release/, hotfix/ prefixes).
	BranchingModel *BranchingModel
}

// Branch is one branch and its protection.
type Branch struct {
	Name string
	// Protected is GitHub's classic branch protection, GitLab's protected
	// branch, Gitea's branch protection.
	Protected bool
	// PushTokens may push to the protected branch anyway (GitLab: a user
	// listed in push_access_levels; Gitea: the push allowlist).
	PushTokens []string
	// PushAccess is GitLab's push access level for a protected branch:
	// "maintainers" (default, 40), "developers" (30, i.e.
	// developers_can_push), "no one" (0), "admins" (60). Tokens with Push
	// may push at "developers", tokens with Admin (maintainers) at
	// "developers" and "maintainers".
	PushAccess string
	// DevelopersCanMerge is GitLab's developers_can_merge.
	DevelopersCanMerge bool
	// ProtectionName is the protection rule's name when it is not the
	// branch name (a GitLab wildcard "release/*", a Gitea rule name).
	ProtectionName string
	// StatusChecks are GitHub classic required status checks (shown in the
	// branch's protection summary) and Gitea's status_check_contexts.
	StatusChecks []string
	// RequiredApprovals is Gitea's required_approvals.
	RequiredApprovals int
	// Rules are GitHub ruleset rules active on this branch.
	Rules []Rule
}

// Rule is one active GitHub ruleset rule, as GET
// /repos/{o}/{r}/rules/branches/{b} lists it.
type Rule struct {
	// Type is the rule type: "update", "pull_request",
	// "required_status_checks", "non_fast_forward", ...
	Type string
	// RulesetID, Source ("acme/web") and SourceType ("Repository",
	// "Organization") describe the ruleset; defaults 1, the repository's
	// path, "Repository".
	RulesetID  int64
	Source     string
	SourceType string
	// Parameters replace the type's default parameters, when set.
	Parameters map[string]any
}

// Restriction is one Bitbucket Cloud branch restriction.
type Restriction struct {
	ID int
	// Kind is "push" (default), "force", "delete", "restrict_merges", ...
	Kind string
	// Pattern is the glob (branch_match_kind "glob"), unless BranchType is
	// set (branch_match_kind "branching_model": "development",
	// "production", "feature", "release", ...).
	Pattern    string
	BranchType string
	// Users (nicknames) and Groups (slugs) are exempt from the restriction.
	Users  []string
	Groups []string
}

// BranchingModel is Bitbucket's effective branching model.
type BranchingModel struct {
	Development string
	// Production is empty when the production branch is disabled.
	Production string
	// Prefixes map branch types to prefixes: {"feature": "feature/"}.
	Prefixes map[string]string
}

// Token is one accepted API token.
type Token struct {
	// Value is the token. The server never records or prints it.
	Value string
	// Username, when set, is the only user name Basic authentication
	// accepts with this token (Bitbucket app passwords, API tokens).
	Username string
	// Repos are the repository paths the token can see; "*" is all.
	Repos []string
	// Push: the token's user has write access (GitHub permissions.push,
	// GitLab Developer, Gitea write).
	Push bool
	// Admin: repository admin (GitHub permissions.admin, GitLab Maintainer,
	// Bitbucket repository:admin scope).
	Admin bool
	// MissingScope: every API call answers 403 as for a token lacking read
	// scope.
	MissingScope bool
	// NoPermissions: GitHub's repository answer has no "permissions", as
	// for GitHub App installation tokens.
	NoPermissions bool
	// Scopes are a classic token's scopes: GitHub sends them as
	// X-OAuth-Scopes (none sent when nil, as for fine-grained tokens),
	// GitLab answers them at GET /personal_access_tokens/self (nil: api).
	Scopes []string
}

// PullRequest is one open pull (merge) request.
type PullRequest struct {
	Number     int
	Head, Base string
	Title      string
	Created    time.Time
	// State is GitHub's mergeable_state: "clean" (default), "dirty" (a
	// conflict), "blocked" (reviews or required checks), "unknown" (not
	// computed yet); GitLab answers the matching detailed_merge_status
	// (mergeable, conflict, not_approved, checking) and has_conflicts.
	State string
}

func (t *Token) sees(path string) bool {
	return slices.Contains(t.Repos, "*") || slices.Contains(t.Repos, path)
}

// App is a GitHub App that may mint installation tokens.
type App struct {
	ID             int64
	InstallationID int64
	// PublicKey verifies the App's JWTs (RS256).
	PublicKey *rsa.PublicKey
	// Token is the template for minted tokens (Value is generated).
	Token Token
}

func (r *Repo) branch(name string) *Branch {
	for i := range r.Branches {
		if r.Branches[i].Name == name {
			return &r.Branches[i]
		}
	}
	return nil
}

func (r *Repo) defaultBranch() string {
	if r.DefaultBranch != "" || len(r.Branches) == 0 {
		return r.DefaultBranch
	}
	return r.Branches[0].Name
}

// gitlabLevel is the access level and its description for PushAccess.
func (b *Branch) gitlabLevel() (int, string) {
	switch b.PushAccess {
	case "developers":
		return 30, "Developers + Maintainers"
	case "no one":
		return 0, "No one"
	case "admins":
		return 60, "Admins"
	}
	return 40, "Maintainers"
}

// canPush is the forge's can_push / user_can_push for token t.
func (b *Branch) canPush(t *Token, gitlab bool) bool {
	if !t.Push && !t.Admin {
		return false
	}
	if !b.Protected || slices.Contains(b.PushTokens, t.Value) {
		return true
	}
	if !gitlab {
		return false
	}
	switch lvl, _ := b.gitlabLevel(); lvl {
	case 30:
		return true
	case 40:
		return t.Admin
	}
	return false
}
