package forge

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/imgupd/imgupd/internal/netclass"
	"github.com/imgupd/imgupd/model/updater"
)

// gitlabScope is what a GitLab token needs for these reads.
const gitlabScope = "read_api (or api)"

// gitlabBranch is GET /projects/:id/repository/branches/:branch
// (docs.gitlab.com/api/branches#get-single-repository-branch).
type gitlabBranch struct {
	Name               string `json:"name"`
	Merged             bool   `json:"merged"`
	Protected          bool   `json:"protected"`
	Default            bool   `json:"default"`
	DevelopersCanPush  bool   `json:"developers_can_push"`
	DevelopersCanMerge bool   `json:"developers_can_merge"`
	// CanPush: whether the authenticated user can push to this branch.
	CanPush *bool  `json:"can_push"`
	WebURL  string `json:"web_url"`
}

// gitlabProtectedBranch is GET /projects/:id/protected_branches/:name
// (docs.gitlab.com/api/protected_branches#get-a-single-protected-branch-or-wildcard-protected-branch).
type gitlabProtectedBranch struct {
	Name             string              `json:"name"`
	PushAccessLevels []gitlabAccessLevel `json:"push_access_levels"`
	AllowForcePush   bool                `json:"allow_force_push"`
}

type gitlabAccessLevel struct {
	AccessLevel            int    `json:"access_level"`
	AccessLevelDescription string `json:"access_level_description"`
}

// gitlabSession is a session with GitLab's REST API authenticated by token
// (PRIVATE-TOKEN), for repoPath and branch (named in its calls and errors).
func (c *Client) gitlabSession(repo Repo, token updater.Secret, repoPath, branch string) (*session, error) {
	tok := token.Reveal()
	return c.newSession(GitLab, repo.APIURL, repoPath, branch, func(h http.Header) {
		h.Set("PRIVATE-TOKEN", tok)
	}, tok)
}

// gitlab asks GitLab with one hand-written GET (the official client,
// gitlab.com/gitlab-org/api/client-go, is far larger than one endpoint
// warrants): the branch's can_push answers for the token's user, with
// protection taken into account. For a protected branch it also reads the
// protected branch's push_access_levels as evidence, when the token may.
func (c *Client) gitlab(ctx context.Context, repo Repo, token updater.Secret, p *Protection) error {
	s, err := c.gitlabSession(repo, token, p.Repo, p.Branch)
	if err != nil {
		return &Error{Kind: Other, Forge: GitLab, Op: "check branch", Repo: p.Repo, Err: err, detail: "bad API URL"}
	}
	defer func() { p.Calls = s.Calls() }()

	// The project id is the URL-encoded full path (group%2Fsub%2Fproj), and
	// the branch is encoded the same way (release%2F1.0).
	project := repo.APIURL + "/projects/" + url.PathEscape(p.Repo)
	hdr := http.Header{"User-Agent": {userAgent}, "Accept": {"application/json"}}

	var b gitlabBranch
	if _, e := s.getJSON(ctx, "get branch", project+"/repository/branches/"+url.PathEscape(p.Branch), hdr, &b); e != nil {
		if e.Kind == NotFound {
			return s.refineNotFound(ctx, e, project, hdr)
		}
		return gitlabScoped(e)
	}
	if b.CanPush == nil {
		e := s.newError(BadResponse, "get branch", http.MethodGet, project+"/repository/branches/"+url.PathEscape(p.Branch))
		e.Status, e.detail = http.StatusOK, "the branch has no can_push field (GitLab older than 11?)"
		return s.fail(e)
	}
	p.CanPush = ptr(*b.CanPush)
	p.Protected = b.Protected

	var allowed string
	if b.Protected {
		p.Rules = append(p.Rules, fmt.Sprintf("protected branch: developers_can_push=%t, developers_can_merge=%t", b.DevelopersCanPush, b.DevelopersCanMerge))
		var pb gitlabProtectedBranch
		_, e := s.getJSON(ctx, "get protected branch", project+"/protected_branches/"+url.PathEscape(p.Branch), hdr, &pb)
		switch {
		case e == nil:
			allowed = gitlabLevels(pb.PushAccessLevels)
			p.Rules = append(p.Rules, "push_access_levels: "+allowed)
			if pb.AllowForcePush {
				p.Rules = append(p.Rules, "allow_force_push: true")
			}
		case e.Kind == netclass.Canceled || e.Kind == netclass.Timeout:
			return e
		case e.Kind == NotFound:
			// Protected through a wildcard rule ("release/*"), which this
			// endpoint finds only by the rule's own name.
			p.Rules = append(p.Rules, "push_access_levels not read: protected by a wildcard rule")
		default:
			// Reading protected branches needs the Maintainer role; can_push
			// already answered, so this is evidence only.
			p.Rules = append(p.Rules, fmt.Sprintf("push_access_levels not read: %s", phrase(e.Kind)))
		}
	}

	where := fmt.Sprintf("branch %s of %s", p.Branch, p.Repo)
	switch {
	case !*p.CanPush && b.Protected:
		p.Verdict = PushRejected
		who := ""
		if allowed != "" {
			who = " (push allowed for: " + allowed + ")"
		}
		p.Reason = fmt.Sprintf("GitLab protects %s and says the token's user cannot push to it (can_push is false)%s: Image Updater's push will be rejected; allow the user's role to push, or write back to another branch (gitConfig.branch base:target)", where, who)
	case !*p.CanPush:
		p.Verdict = PushRejected
		p.Reason = fmt.Sprintf("GitLab says the token's user cannot push to %s (can_push is false; %s is not protected): the user needs the Developer role or higher", where, p.Branch)
	case b.Protected:
		p.Verdict = PushAllowed
		p.Reason = fmt.Sprintf("GitLab protects %s but lets the token's user push to it (can_push is true); the token also needs the write_repository scope", where)
	default:
		p.Verdict = PushAllowed
		p.Reason = fmt.Sprintf("GitLab does not protect %s and the token's user can push (can_push is true); the token also needs the write_repository scope", where)
	}
	return nil
}

// gitlabLevels is "Maintainers, Developers + Maintainers", from each
// level's description, or its number's documented name.
func gitlabLevels(ls []gitlabAccessLevel) string {
	if len(ls) == 0 {
		return "none"
	}
	names := map[int]string{0: "No one", 30: "Developers + Maintainers", 40: "Maintainers", 60: "Admins"}
	var out []string
	for _, l := range ls {
		d := l.AccessLevelDescription
		if d == "" {
			d = names[l.AccessLevel]
		}
		if d == "" {
			d = fmt.Sprintf("access level %d", l.AccessLevel)
		}
		out = append(out, d)
	}
	return strings.Join(out, ", ")
}

func gitlabScoped(e *Error) *Error {
	if e.Kind == Forbidden {
		e.Scope = gitlabScope
	}
	return e
}

// refineNotFound tells a missing branch from a missing (or invisible)
// repository after a 404 on a branch endpoint, by asking for the
// repository itself (GitLab and Gitea answer 404 for both).
func (s *session) refineNotFound(ctx context.Context, branchErr *Error, repoURL string, hdr http.Header) *Error {
	_, e := s.getJSON(ctx, "get repository", repoURL, hdr, nil)
	switch {
	case e == nil:
		branchErr.Kind = BranchNotFound
		return branchErr
	case e.Kind == NotFound:
		return branchErr
	}
	if s.forge == GitLab {
		return gitlabScoped(e)
	}
	return giteaScoped(e)
}
