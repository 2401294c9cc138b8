package forge

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/imgupd/imgupd/model/updater"
)

// bitbucketScope is what reading branch restrictions needs: Bitbucket
// documents the endpoint with repository:admin, so the write-only tokens
// git write-back uses get 403.
const bitbucketScope = "repository:admin"

// maxPages bounds pagination through branch restrictions.
const maxPages = 20

// bitbucketRestrictions is one page of GET
// /2.0/repositories/{workspace}/{repo_slug}/branch-restrictions.
type bitbucketRestrictions struct {
	Values []bitbucketRestriction `json:"values"`
	Next   string                 `json:"next"`
}

type bitbucketRestriction struct {
	ID              int64  `json:"id"`
	Kind            string `json:"kind"`
	BranchMatchKind string `json:"branch_match_kind"`
	Pattern         string `json:"pattern"`
	BranchType      string `json:"branch_type"`
	Users           []struct {
		DisplayName string `json:"display_name"`
		Nickname    string `json:"nickname"`
		UUID        string `json:"uuid"`
	} `json:"users"`
	Groups []struct {
		Name string `json:"name"`
		Slug string `json:"slug"`
	} `json:"groups"`
}

// bitbucketBranchingModel is GET .../effective-branching-model, needed to
// resolve restrictions matched by branch type rather than by glob.
type bitbucketBranchingModel struct {
	Development *bitbucketModelBranch `json:"development"`
	Production  *bitbucketModelBranch `json:"production"`
	BranchTypes []struct {
		Kind   string `json:"kind"`
		Prefix string `json:"prefix"`
	} `json:"branch_types"`
}

type bitbucketModelBranch struct {
	Name   string `json:"name"`
	Branch *struct {
		Name string `json:"name"`
	} `json:"branch"`
}

func (b *bitbucketModelBranch) branchName() string {
	if b == nil {
		return ""
	}
	if b.Branch != nil && b.Branch.Name != "" {
		return b.Branch.Name
	}
	return b.Name
}

// bitbucket asks Bitbucket Cloud, hand-written (there is no well-kept Go
// client): it lists the repository's push restrictions and matches each
// one against the branch itself, by glob or by branching-model type.
// Bitbucket does not report whether this token's user is among a
// restriction's exempt users and groups.
func (c *Client) bitbucket(ctx context.Context, repo Repo, creds updater.Credentials, p *Protection) error {
	tok := creds.Password.Reveal()
	authz := "Bearer " + tok
	if u := creds.Username; u != "" && u != "x-token-auth" {
		authz = "Basic " + base64.StdEncoding.EncodeToString([]byte(u+":"+tok))
	}
	s, err := c.newSession(Bitbucket, repo.APIURL, p.Repo, p.Branch, func(h http.Header) {
		h.Set("Authorization", authz)
	}, tok, authz)
	if err != nil {
		return &Error{Kind: Other, Forge: Bitbucket, Op: "check branch", Repo: p.Repo, Err: err, detail: "bad API URL"}
	}
	defer func() { p.Calls = s.Calls() }()

	repoURL := repo.APIURL + "/repositories/" + url.PathEscape(repo.Owner) + "/" + url.PathEscape(repo.Name)
	hdr := http.Header{"User-Agent": {userAgent}, "Accept": {"application/json"}}
	next := repoURL + "/branch-restrictions?kind=push&pagelen=100"
	var all []bitbucketRestriction
	for page := 0; next != ""; page++ {
		if page == maxPages {
			e := s.newError(BadResponse, "list branch restrictions", http.MethodGet, next)
			e.detail = fmt.Sprintf("more than %d pages of branch restrictions", maxPages)
			return s.fail(e)
		}
		var pg bitbucketRestrictions
		if _, e := s.getJSON(ctx, "list branch restrictions", next, hdr, &pg); e != nil {
			if e.Kind == Forbidden {
				e.Scope = bitbucketScope
			}
			return e
		}
		all = append(all, pg.Values...)
		next = pg.Next
		if next != "" {
			// Follow only links on the API's own origin: the token goes
			// with them.
			if u, err := url.Parse(next); err != nil || !sameOrigin(u, s.api) {
				e := s.newError(BadResponse, "list branch restrictions", http.MethodGet, "")
				e.detail = "pagination link leaves the API host; not followed"
				return s.fail(e)
			}
		}
	}

	var model *bitbucketBranchingModel
	var matched []bitbucketRestriction
	for _, r := range all {
		if r.Kind != "push" { // the kind=push filter should make this moot
			continue
		}
		switch r.BranchMatchKind {
		case "branching_model":
			if model == nil {
				model = &bitbucketBranchingModel{}
				if _, e := s.getJSON(ctx, "get branching model", repoURL+"/effective-branching-model", hdr, model); e != nil {
					return e
				}
			}
			if model.matches(r.BranchType, p.Branch) {
				matched = append(matched, r)
			}
		default: // "glob"
			if globMatch(r.Pattern, p.Branch) {
				matched = append(matched, r)
			}
		}
	}

	where := fmt.Sprintf("branch %s of %s", p.Branch, p.Repo)
	if len(matched) == 0 {
		p.Verdict = PushNotBlocked
		p.Reason = fmt.Sprintf("Bitbucket has no push restriction on %s; the token still needs write access (Bitbucket does not report it)", where)
		return nil
	}
	p.Protected = true
	var exempt []string
	for _, r := range matched {
		what := "pattern '" + r.Pattern + "'"
		if r.BranchMatchKind == "branching_model" {
			what = "branch type " + r.BranchType
		}
		var who []string
		for _, u := range r.Users {
			n := u.DisplayName
			if u.Nickname != "" {
				n = u.Nickname
			}
			who = append(who, "user "+n)
		}
		for _, g := range r.Groups {
			n := g.Slug
			if n == "" {
				n = g.Name
			}
			who = append(who, "group "+n)
		}
		line := fmt.Sprintf("push restriction %d (%s): ", r.ID, what)
		if len(who) == 0 {
			line += "nobody may push"
		} else {
			line += "only " + strings.Join(who, ", ") + " may push"
		}
		p.Rules = append(p.Rules, line)
		exempt = append(exempt, who...)
	}
	// Several matching restrictions add up: whoever any of them lists may
	// push, so only when none lists anyone is nobody allowed.
	if len(exempt) == 0 {
		p.Verdict = PushRejected
		p.Reason = fmt.Sprintf("Bitbucket restricts pushes to %s to nobody: Image Updater's push will be rejected; write back to another branch (gitConfig.branch base:target) or add the token's user to the restriction", where)
		return nil
	}
	p.Verdict = PushRejectedUnlessExempt
	p.Reason = fmt.Sprintf("Bitbucket restricts pushes to %s: a direct push is rejected unless the token's user is one of %s (Bitbucket does not say whether it is)", where, strings.Join(exempt, ", "))
	return nil
}

// matches reports whether branch is of the branching model's type kind
// ("development", "production", or a prefix type such as "feature").
func (m *bitbucketBranchingModel) matches(kind, branch string) bool {
	switch kind {
	case "development":
		return m.Development.branchName() == branch && branch != ""
	case "production":
		return m.Production.branchName() == branch && branch != ""
	}
	for _, t := range m.BranchTypes {
		if t.Kind == kind && t.Prefix != "" && strings.HasPrefix(branch, t.Prefix) {
			return true
		}
	}
	return false
}

// globMatch matches a Bitbucket Cloud branch pattern: "*" matches any run
// of characters, "/" included ("release*" matches "release/1.0"), "?"
// one character, and everything else itself.
func globMatch(pattern, name string) bool {
	p, n := []rune(pattern), []rune(name)
	// Iterative wildcard matching with one backtrack point: linear in
	// practice and never exponential.
	pi, ni, star, mark := 0, 0, -1, 0
	for ni < len(n) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == n[ni]):
			pi++
			ni++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ni
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			ni = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
