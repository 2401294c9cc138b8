package forge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v84/github"

	"github.com/imgupd/imgupd/internal/errtext"
	"github.com/imgupd/imgupd/model/updater"
)

// GitHub's REST API headers (docs.github.com/rest/overview/media-types,
// /rest/about-the-rest-api/api-versions).
const (
	githubAccept     = "application/vnd.github+json"
	githubAPIVersion = "2022-11-28"
)

// githubScope is what a GitHub token needs for these reads.
const githubScope = "Metadata: read and Contents: read (fine-grained token or GitHub App), or repo (classic token, private repositories)"

// githubSession is a session with GitHub's REST API authenticated by token
// (Bearer), for repoPath and branch (named in its calls and errors).
func (c *Client) githubSession(repo Repo, token updater.Secret, repoPath, branch string) (*session, error) {
	tok := token.Reveal()
	return c.newSession(GitHub, repo.APIURL, repoPath, branch, func(h http.Header) {
		h.Set("Authorization", "Bearer "+tok)
		h.Set("Accept", githubAccept)
		h.Set("X-GitHub-Api-Version", githubAPIVersion)
	}, tok)
}

// github asks GitHub (github.com or GHES) with go-github: GET
// /repos/{owner}/{repo} for permissions.push, GET .../branches/{branch}
// for classic protection, GET .../rules/branches/{branch} for the active
// ruleset rules. Bypass actors are not reported to non-admins, so a
// protected branch is PushRejectedUnlessExempt.
func (c *Client) github(ctx context.Context, repo Repo, token updater.Secret, p *Protection) error {
	s, err := c.githubSession(repo, token, p.Repo, p.Branch)
	if err != nil {
		return &Error{Kind: Other, Forge: GitHub, Op: "check branch", Repo: p.Repo, Err: err, detail: "bad API URL"}
	}
	defer func() { p.Calls = s.Calls() }()

	gh := github.NewClient(s.http)
	base, err := url.Parse(repo.APIURL + "/")
	if err != nil {
		return &Error{Kind: Other, Forge: GitHub, Op: "check branch", Repo: p.Repo, Err: err, detail: "bad API URL"}
	}
	// Set BaseURL directly rather than WithEnterpriseURLs, which would
	// append /api/v3/ to a configured base that does not end so.
	gh.BaseURL = base

	r, resp, err := gh.Repositories.Get(ctx, repo.Owner, repo.Name)
	if err != nil {
		return s.githubError("get repository", resp, err)
	}
	if r.Permissions != nil && r.Permissions.Push != nil {
		p.CanPush = ptr(*r.Permissions.Push)
	}

	b, resp, err := gh.Repositories.GetBranch(ctx, repo.Owner, repo.Name, p.Branch, 1)
	if err != nil {
		e := s.githubError("get branch", resp, err)
		if e.Kind == NotFound { // the repository answered above: the branch is missing
			e.Kind = BranchNotFound
		}
		return e
	}
	classic := b.GetProtected()
	if classic {
		line := "classic branch protection"
		if pr := b.GetProtection(); pr != nil && pr.RequiredStatusChecks != nil {
			var checks []string
			if cs := pr.RequiredStatusChecks.Contexts; cs != nil {
				checks = append(checks, *cs...)
			}
			if len(checks) == 0 && pr.RequiredStatusChecks.Checks != nil {
				for _, ch := range *pr.RequiredStatusChecks.Checks {
					checks = append(checks, ch.Context)
				}
			}
			if len(checks) > 0 {
				line += "; required status checks: " + strings.Join(checks, ", ")
			}
		}
		p.Rules = append(p.Rules, line+" (its other settings need admin to read)")
	}

	rules, resp, err := gh.Repositories.GetRulesForBranch(ctx, repo.Owner, repo.Name, escapeSegments(p.Branch), nil)
	var blocking []string
	switch {
	case err == nil:
		lines, blocks := githubRuleLines(rules)
		p.Rules = append(p.Rules, lines...)
		blocking = blocks
	case resp != nil && resp.StatusCode == http.StatusNotFound:
		// GHES before 3.11 has no rulesets endpoint; the branch exists.
		p.Rules = append(p.Rules, "rulesets not checked: the rules endpoint answered 404 (GitHub Enterprise Server without rulesets?)")
	default:
		return s.githubError("get rules", resp, err)
	}

	p.Protected = classic || len(blocking) > 0
	where := fmt.Sprintf("branch %s of %s", p.Branch, p.Repo)
	switch {
	case p.CanPush != nil && !*p.CanPush:
		p.Verdict = PushRejected
		p.Reason = fmt.Sprintf("GitHub says the token's user has no push access to %s (permissions.push is false): Image Updater's push will be rejected; give the identity write access", p.Repo)
	case p.Protected:
		p.Verdict = PushRejectedUnlessExempt
		var what []string
		if classic {
			what = append(what, "classic branch protection")
		}
		if len(blocking) > 0 {
			what = append(what, "ruleset rules "+strings.Join(blocking, ", "))
		}
		p.Reason = fmt.Sprintf("GitHub protects %s (%s): a direct push is rejected unless the token's identity may bypass, which the API does not report; write back to another branch (gitConfig.branch base:target) or add a bypass", where, strings.Join(what, "; "))
	case p.CanPush == nil:
		p.Verdict = PushNotBlocked
		p.Reason = fmt.Sprintf("GitHub does not protect %s and no active rule blocks a direct push; the API gave no push permission for this token (GitHub App installation token?): it needs Contents: write", where)
	default:
		p.Verdict = PushAllowed
		p.Reason = fmt.Sprintf("GitHub does not protect %s, no active rule blocks a direct push, and the token's user has push access", where)
	}
	return nil
}

// githubRuleLines describes each active rule and returns the types of
// those that block Image Updater's direct, non-force push of one
// non-merge commit to an existing branch.
func githubRuleLines(r *github.BranchRules) (lines, blocking []string) {
	if r == nil {
		return nil, nil
	}
	type meta = github.BranchRuleMetadata
	add := func(typ string, m meta, note string) {
		line := fmt.Sprintf("ruleset %d (%s %s): %s", m.RulesetID, m.RulesetSourceType, m.RulesetSource, typ)
		if note != "" {
			line += " (" + note + ")"
		} else if !contains(blocking, typ) {
			blocking = append(blocking, typ)
		}
		lines = append(lines, line)
	}
	each := func(typ, note string, ms []meta) {
		for _, m := range ms {
			add(typ, m, note)
		}
	}
	each("update", "", metas(r.Update, func(x *github.UpdateBranchRule) meta { return x.BranchRuleMetadata }))
	each("pull_request", "", metas(r.PullRequest, func(x *github.PullRequestBranchRule) meta { return x.BranchRuleMetadata }))
	each("required_status_checks", "", metas(r.RequiredStatusChecks, func(x *github.RequiredStatusChecksBranchRule) meta { return x.BranchRuleMetadata }))
	each("required_signatures", "", derefs(r.RequiredSignatures))
	each("required_deployments", "", metas(r.RequiredDeployments, func(x *github.RequiredDeploymentsBranchRule) meta { return x.BranchRuleMetadata }))
	each("merge_queue", "", metas(r.MergeQueue, func(x *github.MergeQueueBranchRule) meta { return x.BranchRuleMetadata }))
	each("workflows", "", metas(r.Workflows, func(x *github.WorkflowsBranchRule) meta { return x.BranchRuleMetadata }))
	each("code_scanning", "", metas(r.CodeScanning, func(x *github.CodeScanningBranchRule) meta { return x.BranchRuleMetadata }))
	// Rules that do not stop Image Updater's push as such:
	each("required_linear_history", "blocks merge commits only; Image Updater pushes one non-merge commit", derefs(r.RequiredLinearHistory))
	each("non_fast_forward", "blocks force pushes only", derefs(r.NonFastForward))
	each("deletion", "blocks deleting the branch only", derefs(r.Deletion))
	each("creation", "blocks creating the branch only", derefs(r.Creation))
	pattern := "rejects the push if Image Updater's commit does not match"
	each("commit_message_pattern", pattern, metas(r.CommitMessagePattern, func(x *github.PatternBranchRule) meta { return x.BranchRuleMetadata }))
	each("commit_author_email_pattern", pattern, metas(r.CommitAuthorEmailPattern, func(x *github.PatternBranchRule) meta { return x.BranchRuleMetadata }))
	each("committer_email_pattern", pattern, metas(r.CommitterEmailPattern, func(x *github.PatternBranchRule) meta { return x.BranchRuleMetadata }))
	files := "rejects the push if Image Updater's commit touches a restricted file"
	each("file_path_restriction", files, metas(r.FilePathRestriction, func(x *github.FilePathRestrictionBranchRule) meta { return x.BranchRuleMetadata }))
	each("file_extension_restriction", files, metas(r.FileExtensionRestriction, func(x *github.FileExtensionRestrictionBranchRule) meta { return x.BranchRuleMetadata }))
	return lines, blocking
}

func metas[T any](xs []*T, get func(*T) github.BranchRuleMetadata) []github.BranchRuleMetadata {
	out := make([]github.BranchRuleMetadata, 0, len(xs))
	for _, x := range xs {
		if x != nil {
			out = append(out, get(x))
		}
	}
	return out
}

func derefs(xs []*github.BranchRuleMetadata) []github.BranchRuleMetadata {
	return metas(xs, func(m *github.BranchRuleMetadata) github.BranchRuleMetadata { return *m })
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// escapeSegments path-escapes each "/"-separated part of a branch name,
// keeping the slashes, for endpoints (like rules/branches/{branch}) that
// go-github does not escape.
func escapeSegments(s string) string {
	parts := strings.Split(s, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

// githubError classifies a go-github failure from the HTTP status it
// carries (or the typed network error), never from its text.
func (s *session) githubError(op string, resp *github.Response, err error) *Error {
	method, u := http.MethodGet, ""
	if calls := s.Calls(); len(calls) > 0 {
		last := calls[len(calls)-1]
		method, u = last.Method, last.URL
	}
	e := s.newError(Other, op, method, u)
	var (
		rl    *github.RateLimitError
		abuse *github.AbuseRateLimitError
		er    *github.ErrorResponse
	)
	switch {
	case errors.As(err, &rl):
		e.Kind, e.Err, e.detail = RateLimited, err, errtext.OneLine(rl.Message)
		if rl.Response != nil {
			e.Status = rl.Response.StatusCode
		}
	case errors.As(err, &abuse):
		e.Kind, e.Err, e.detail = RateLimited, err, errtext.OneLine(abuse.Message)
		if abuse.Response != nil {
			e.Status = abuse.Response.StatusCode
		}
	case resp != nil && resp.Response != nil && (resp.StatusCode < 200 || resp.StatusCode > 299):
		e.Status = resp.StatusCode
		e.Kind, e.Err = statusKind(resp.StatusCode), err
		e.detail = http.StatusText(resp.StatusCode)
		if errors.As(err, &er) && er.Message != "" {
			e.detail = errtext.OneLine(er.Message)
		}
	default:
		classifyTransport(e, err)
		if e.Kind == Other && resp != nil && resp.Response != nil {
			// A 2xx whose body did not decode.
			e.Kind, e.Status = BadResponse, resp.StatusCode
		}
	}
	if e.Kind == Forbidden {
		e.Scope = githubScope
	}
	return s.fail(e)
}
