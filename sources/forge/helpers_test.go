package forge_test

import (
	"testing"

	labforge "github.com/imgupd/imgupd/lab/forge"
	"github.com/imgupd/imgupd/sources/forge"
)

// Distinctive token values: the canary test asserts none of them is ever
// printed.
const (
	tokWriter   = "CANARY-writer-5f1c9a"
	tokReader   = "CANARY-reader-88d2e0"
	tokAdmin    = "CANARY-admin-3b7a41"
	tokPusher   = "CANARY-pusher-c0ffee"
	tokNoScope  = "CANARY-noscope-91a2b3"
	tokBlind    = "CANARY-blind-4d5e6f"
	tokApp      = "CANARY-apptoken-77aa11"
	tokBasic    = "CANARY-basic-2e2e2e"
	tokUnknown  = "CANARY-unknown-000111"
	basicUser   = "bb-user"
	ghesHost    = "ghe.example"
	gitlabHost  = "gitlab.example"
	giteaHost   = "gitea.example"
	ghRepo      = "acme/web"
	glRepo      = "group/sub/proj"
	bbRepo      = "acme/bb"
	ruleSetOrg  = 7
	ruleSetRepo = 42
)

var canaries = []string{tokWriter, tokReader, tokAdmin, tokPusher, tokNoScope, tokBlind, tokApp, tokBasic, tokUnknown}

// labConfig is one forge world served in every dialect.
func labConfig() labforge.Config {
	all := []string{"*"}
	return labforge.Config{
		PageSize: 1, // Bitbucket clients must follow "next"
		Repos: []labforge.Repo{
			{Path: ghRepo, Private: true, Branches: []labforge.Branch{
				{Name: "main", Protected: true, StatusChecks: []string{"ci/build"}, PushTokens: []string{tokPusher},
					Rules: []labforge.Rule{{Type: "pull_request", RulesetID: ruleSetRepo}, {Type: "non_fast_forward", RulesetID: ruleSetRepo}}},
				{Name: "dev", Rules: []labforge.Rule{{Type: "non_fast_forward", RulesetID: ruleSetOrg, Source: "acme", SourceType: "Organization"},
					{Type: "required_linear_history", RulesetID: ruleSetOrg, Source: "acme", SourceType: "Organization"}}},
				{Name: "rules-only", Rules: []labforge.Rule{{Type: "update", RulesetID: ruleSetOrg, Source: "acme", SourceType: "Organization"}}},
				{Name: "feature/x"},
			}},
			{Path: glRepo, Private: true, Branches: []labforge.Branch{
				{Name: "main", Protected: true},
				{Name: "dev"},
				{Name: "feature/x"},
				{Name: "release/1.0", Protected: true, ProtectionName: "release/*", PushAccess: "developers"},
			}},
			{Path: bbRepo, Private: true, Branches: []labforge.Branch{{Name: "main"}, {Name: "develop"}},
				BranchingModel: &labforge.BranchingModel{Development: "develop", Production: "prod"},
				Restrictions: []labforge.Restriction{
					{ID: 1, Pattern: "main"},
					{ID: 2, Kind: "force", Pattern: "*"},
					{ID: 3, Pattern: "release*", Users: []string{"deploy-bot"}},
					{ID: 4, BranchType: "production", Groups: []string{"release-managers"}},
				}},
		},
		Tokens: []labforge.Token{
			{Value: tokWriter, Repos: all, Push: true},
			{Value: tokReader, Repos: all},
			{Value: tokAdmin, Repos: all, Push: true, Admin: true},
			{Value: tokPusher, Repos: all, Push: true},
			{Value: tokNoScope, Repos: all, Push: true, MissingScope: true},
			{Value: tokBlind, Push: true},
			{Value: tokApp, Repos: all, Push: true, NoPermissions: true},
			{Value: tokBasic, Username: basicUser, Repos: all, Push: true, Admin: true},
		},
	}
}

// startLab runs the fake forge and a client whose endpoints point at it:
// self-hosted hosts, and the built-in github.com, codeberg.org and
// bitbucket.org overridden by configuration.
func startLab(t *testing.T, cfg labforge.Config, opts ...forge.Option) (*labforge.Server, *forge.Client) {
	t.Helper()
	lab := labforge.Start(cfg)
	t.Cleanup(lab.Close)
	eps := []forge.Endpoint{
		{Host: ghesHost, Kind: forge.GitHub, APIURL: lab.GitHubAPI()},
		{Host: gitlabHost, Kind: forge.GitLab, APIURL: lab.GitLabAPI()},
		{Host: giteaHost, Kind: forge.Gitea, APIURL: lab.GiteaAPI()},
		{Host: "codeberg.org", Kind: forge.Forgejo, APIURL: lab.GiteaAPI()},
		{Host: "bitbucket.org", Kind: forge.Bitbucket, APIURL: lab.BitbucketAPI()},
		{Host: "github.com", Kind: forge.GitHub, APIURL: lab.URL}, // api.github.com's root layout
	}
	c, err := forge.New(append([]forge.Option{forge.WithEndpoints(eps...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return lab, c
}
