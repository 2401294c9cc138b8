package forge

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/imgupd/imgupd/model/updater"
)

// giteaScope is what a Gitea or Forgejo token needs for these reads.
const giteaScope = "read:repository"

// giteaBranch is GET /repos/{owner}/{repo}/branches/{branch} (Gitea's and
// Forgejo's API v1 Branch).
type giteaBranch struct {
	Name                          string   `json:"name"`
	Protected                     bool     `json:"protected"`
	RequiredApprovals             int64    `json:"required_approvals"`
	EnableStatusCheck             bool     `json:"enable_status_check"`
	StatusCheckContexts           []string `json:"status_check_contexts"`
	UserCanPush                   *bool    `json:"user_can_push"`
	UserCanMerge                  bool     `json:"user_can_merge"`
	EffectiveBranchProtectionName string   `json:"effective_branch_protection_name"`
}

// gitea asks Gitea or Forgejo with one hand-written GET. code.gitea.io/sdk
// could make it (with SetGiteaVersion("") it skips its /version
// handshake), but it holds the context as client state instead of per
// call, returns untyped errors built from the body text, appends /api/v1
// itself to a base that already has it, and brings four modules (HTTP
// signatures, an SSH agent) for one GET of nine fields.
func (c *Client) gitea(ctx context.Context, repo Repo, token updater.Secret, p *Protection) error {
	tok := token.Reveal()
	s, err := c.newSession(repo.Forge, repo.APIURL, p.Repo, p.Branch, func(h http.Header) {
		h.Set("Authorization", "token "+tok)
	}, tok)
	if err != nil {
		return &Error{Kind: Other, Forge: repo.Forge, Op: "check branch", Repo: p.Repo, Err: err, detail: "bad API URL"}
	}
	defer func() { p.Calls = s.Calls() }()

	repoURL := repo.APIURL + "/repos/" + url.PathEscape(repo.Owner) + "/" + url.PathEscape(repo.Name)
	hdr := http.Header{"User-Agent": {userAgent}, "Accept": {"application/json"}}
	var b giteaBranch
	// Gitea routes the branch as a path wildcard: slashes stay slashes.
	if _, e := s.getJSON(ctx, "get branch", repoURL+"/branches/"+escapeSegments(p.Branch), hdr, &b); e != nil {
		if e.Kind == NotFound {
			return s.refineNotFound(ctx, e, repoURL, hdr)
		}
		return giteaScoped(e)
	}
	if b.UserCanPush == nil {
		e := s.newError(BadResponse, "get branch", http.MethodGet, repoURL+"/branches/"+escapeSegments(p.Branch))
		e.Status, e.detail = http.StatusOK, "the branch has no user_can_push field (Gitea older than 1.13?)"
		return s.fail(e)
	}
	p.CanPush = ptr(*b.UserCanPush)
	p.Protected = b.Protected
	if b.Protected {
		line := "branch protection"
		if b.EffectiveBranchProtectionName != "" {
			line += fmt.Sprintf(" '%s'", b.EffectiveBranchProtectionName)
		}
		var parts []string
		if b.RequiredApprovals > 0 {
			parts = append(parts, fmt.Sprintf("required_approvals=%d", b.RequiredApprovals))
		}
		if b.EnableStatusCheck {
			parts = append(parts, "status checks: "+strings.Join(b.StatusCheckContexts, ", "))
		}
		if len(parts) > 0 {
			line += ": " + strings.Join(parts, "; ")
		}
		p.Rules = append(p.Rules, line)
	}

	name := repo.Forge.String()
	where := fmt.Sprintf("branch %s of %s", p.Branch, p.Repo)
	switch {
	case !*p.CanPush && b.Protected:
		p.Verdict = PushRejected
		p.Reason = fmt.Sprintf("%s protects %s and says the token's user cannot push to it (user_can_push is false): Image Updater's push will be rejected; add the user to the protection's push allowlist or write back to another branch (gitConfig.branch base:target)", name, where)
	case !*p.CanPush:
		p.Verdict = PushRejected
		p.Reason = fmt.Sprintf("%s says the token's user cannot push to %s (user_can_push is false; the branch is not protected): the user needs write access", name, where)
	case b.Protected:
		p.Verdict = PushAllowed
		p.Reason = fmt.Sprintf("%s protects %s but lets the token's user push to it (user_can_push is true); the token also needs the write:repository scope", name, where)
	default:
		p.Verdict = PushAllowed
		p.Reason = fmt.Sprintf("%s does not protect %s and the token's user can push (user_can_push is true); the token also needs the write:repository scope", name, where)
	}
	return nil
}

func giteaScoped(e *Error) *Error {
	if e.Kind == Forbidden {
		e.Scope = giteaScope
	}
	return e
}
