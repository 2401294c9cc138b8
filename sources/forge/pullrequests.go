package forge

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/imgupd/imgupd/internal/errtext"
	"github.com/imgupd/imgupd/model/updater"
)

// PullRequest is one open pull request (GitHub) or merge request (GitLab)
// as the forge lists it. Its text fields are the forge's (written by
// whoever opened it): show them as text only.
type PullRequest struct {
	// Number is the pull request's number (GitLab: the merge request's iid).
	Number int `json:"number"`
	// URL is its web page.
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
	// Head and Base are the source and target branches.
	Head    string    `json:"head"`
	Base    string    `json:"base"`
	Created time.Time `json:"created"`
	// Mergeable is the forge's answer: "yes", "no" or "unknown" (GitHub
	// computes it in the background: null until it has).
	Mergeable string `json:"mergeable"`
	// Why says what stops the merge, one item each: "conflicts with main",
	// "required checks have not passed", "a review is required"; or what
	// the forge's state is when it merges ("clean", "mergeable").
	Why []string `json:"why,omitempty"`
	// State is the forge's own word (GitHub mergeable_state, GitLab
	// detailed_merge_status).
	State string `json:"state,omitempty"`
}

// PullRequests is the forge's answer about the pull requests into one base
// branch whose head branch starts with a prefix, and what the forge says
// about the token's right to open them. It holds no credentials.
type PullRequests struct {
	Forge  Forge  `json:"forge"`
	APIURL string `json:"apiURL"`
	Repo   string `json:"repo"`
	Base   string `json:"base"`
	// Open are the open ones, newest first.
	Open []PullRequest `json:"open,omitempty"`
	// MayOpen is the forge's answer whether the token may open pull
	// requests: nil when it does not say (GitHub fine-grained and App
	// tokens list no scopes; a GitLab token that may not read itself).
	MayOpen *bool `json:"mayOpen,omitempty"`
	// Permission says what the answer rests on ("classic token scopes:
	// repo, workflow"), or why there is none.
	Permission string `json:"permission"`
	Calls      []Call `json:"calls"`
}

// OpenPullRequests lists the open pull (merge) requests into base whose
// head branch starts with headPrefix, newest first, with whether each can be
// merged, on the forge serving repoURL (GitHub and GitHub Enterprise Server,
// GitLab). It only reads. Only creds.Password (the token) is used.
//
// Image Updater (v1.2+, pkg/argocd/pr_service.go) pushes each update to
// image-updater-<targetKey>-<sha256> and opens one request into the
// branch it checked out (pr_github.go GithubPRService.create, mr_gitlab.go
// GitLabMRService.create), skipping the update while one is open
// (skipIfPRExists).
func (c *Client) OpenPullRequests(ctx context.Context, repoURL, base, headPrefix string, creds updater.Credentials) (PullRequests, error) {
	repo, ok := c.locate(ctx, repoURL)
	if !ok {
		return PullRequests{}, &Error{Kind: NotRecognised, Op: "recognise",
			detail: errtext.OneLine(redactRepoURL(repoURL) + " is not on a built-in or configured forge (and its host serves no GitHub or GitLab API)")}
	}
	out := PullRequests{Forge: repo.Forge, APIURL: repo.APIURL, Repo: repo.Path(), Base: base}
	if strings.TrimSpace(base) == "" || strings.ContainsAny(base, "\x00\n\r") {
		return out, &Error{Kind: Other, Forge: repo.Forge, Op: "list pull requests", Repo: out.Repo, detail: "no valid base branch given"}
	}
	if creds.Password.IsEmpty() {
		return out, &Error{Kind: NoCredentials, Forge: repo.Forge, Op: "list pull requests", Repo: out.Repo, Branch: base,
			detail: "the write-back credentials have no password or token; SSH keys give no API access"}
	}
	var err error
	switch repo.Forge {
	case GitHub:
		err = c.githubPulls(ctx, repo, creds.Password, headPrefix, &out)
	case GitLab:
		err = c.gitlabMergeRequests(ctx, repo, creds.Password, headPrefix, &out)
	default:
		err = &Error{Kind: NotRecognised, Forge: repo.Forge, Op: "list pull requests", Repo: out.Repo, detail: "Image Updater opens pull requests on GitHub and GitLab only"}
	}
	return out, err
}

// getJSONHeader is getJSON that also returns the answer's headers.
func (s *session) getJSONHeader(ctx context.Context, op, rawURL string, header http.Header, out any) (http.Header, *Error) {
	var got http.Header
	hc := *s.http
	base := hc.Transport
	hc.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := base.RoundTrip(r)
		if resp != nil {
			got = resp.Header.Clone()
		}
		return resp, err
	})
	saved := s.http
	s.http = &hc
	_, e := s.getJSON(ctx, op, rawURL, header, out)
	s.http = saved
	return got, e
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// githubPull is the part of GitHub's pull request JSON read here.
type githubPull struct {
	Number  int    `json:"number"`
	HTMLURL string `json:"html_url"`
	Title   string `json:"title"`
	Draft   bool   `json:"draft"`
	Head    struct {
		Ref string `json:"ref"`
	} `json:"head"`
	Base struct {
		Ref string `json:"ref"`
	} `json:"base"`
	CreatedAt      time.Time `json:"created_at"`
	Mergeable      *bool     `json:"mergeable"`
	MergeableState string    `json:"mergeable_state"`
}

// githubPulls: GET /repos/{o}/{r} (its X-OAuth-Scopes header lists a
// classic token's scopes: repo, or public_repo for a public repository,
// lets it open pull requests; fine-grained and App tokens send none), GET
// .../pulls?state=open&base=BASE, and GET .../pulls/{n} for each match
// (mergeable and mergeable_state are only in the single answer:
// docs.github.com/rest/pulls/pulls#get-a-pull-request).
func (c *Client) githubPulls(ctx context.Context, repo Repo, token updater.Secret, prefix string, out *PullRequests) error {
	s, err := c.githubSession(repo, token, out.Repo, out.Base)
	if err != nil {
		return &Error{Kind: Other, Forge: GitHub, Op: "list pull requests", Repo: out.Repo, Err: err, detail: "bad API URL"}
	}
	defer func() { out.Calls = s.Calls() }()
	hdr := http.Header{"User-Agent": {userAgent}}
	api := repo.APIURL + "/repos/" + url.PathEscape(repo.Owner) + "/" + url.PathEscape(repo.Name)
	var meta struct {
		Private bool `json:"private"`
	}
	h, e := s.getJSONHeader(ctx, "get repository", api, hdr, &meta)
	if e != nil {
		if e.Kind == Forbidden {
			e.Scope = githubScope
		}
		return e
	}
	if scopes, ok := h["X-Oauth-Scopes"]; ok {
		list := splitScopes(strings.Join(scopes, ","))
		may := contains(list, "repo") || (!meta.Private && contains(list, "public_repo"))
		out.MayOpen = &may
		out.Permission = "classic token scopes: " + orNone(strings.Join(list, ", ")) + " (opening a pull request needs repo" + map[bool]string{true: "", false: " or public_repo"}[meta.Private] + ")"
	} else {
		out.Permission = "GitHub lists no scopes for this token (a fine-grained or GitHub App token): whether it has Pull requests: Read and write is not visible without writing"
	}
	var list []githubPull
	q := url.Values{"state": {"open"}, "base": {out.Base}, "per_page": {"100"}, "sort": {"created"}, "direction": {"desc"}}
	if _, e := s.getJSON(ctx, "list pull requests", api+"/pulls?"+q.Encode(), hdr, &list); e != nil {
		return e
	}
	for _, p := range list {
		if !strings.HasPrefix(p.Head.Ref, prefix) || p.Base.Ref != out.Base {
			continue
		}
		if len(out.Open) == 3 { // enough to answer; the rest are older
			break
		}
		var one githubPull
		if _, e := s.getJSON(ctx, "get pull request", api+"/pulls/"+strconv.Itoa(p.Number), hdr, &one); e != nil {
			return e
		}
		out.Open = append(out.Open, githubPullRequest(one))
	}
	return nil
}

// githubPullRequest reads mergeable and mergeable_state (GitHub's
// undocumented-but-stable values: clean, unstable and has_hooks merge;
// dirty is a conflict; blocked waits for required reviews or checks;
// behind needs the base merged in; draft is a draft; unknown is not
// computed yet).
func githubPullRequest(p githubPull) PullRequest {
	pr := PullRequest{Number: p.Number, URL: p.HTMLURL, Title: p.Title, Head: p.Head.Ref, Base: p.Base.Ref, Created: p.CreatedAt, State: p.MergeableState, Mergeable: "unknown"}
	switch p.MergeableState {
	case "clean", "unstable", "has_hooks":
		pr.Mergeable = "yes"
		if p.MergeableState == "unstable" {
			pr.Why = append(pr.Why, "checks that are not required fail")
		}
	case "dirty":
		pr.Mergeable, pr.Why = "no", append(pr.Why, "it conflicts with "+p.Base.Ref)
	case "blocked":
		pr.Mergeable, pr.Why = "no", append(pr.Why, "required reviews or required checks have not passed")
	case "behind":
		pr.Mergeable, pr.Why = "no", append(pr.Why, "it is behind "+p.Base.Ref+" and the branch protection requires it up to date")
	case "draft":
		pr.Mergeable, pr.Why = "no", append(pr.Why, "it is a draft")
	}
	if p.Mergeable != nil && !*p.Mergeable && pr.Mergeable != "no" {
		pr.Mergeable, pr.Why = "no", append(pr.Why, "GitHub says it cannot be merged")
	}
	return pr
}

// gitlabMR is the part of GitLab's merge request JSON read here.
type gitlabMR struct {
	IID                   int       `json:"iid"`
	WebURL                string    `json:"web_url"`
	Title                 string    `json:"title"`
	SourceBranch          string    `json:"source_branch"`
	TargetBranch          string    `json:"target_branch"`
	CreatedAt             time.Time `json:"created_at"`
	HasConflicts          bool      `json:"has_conflicts"`
	DetailedMergeStatus   string    `json:"detailed_merge_status"`
	Draft                 bool      `json:"draft"`
	BlockingDiscussionsOK *bool     `json:"blocking_discussions_resolved"`
}

// gitlabMergeRequests: GET /projects/{id}/merge_requests?state=opened&
// target_branch=BASE (has_conflicts and detailed_merge_status are in the
// list: docs.gitlab.com/api/merge_requests), and GET
// /personal_access_tokens/self for the token's scopes (api lets it open
// merge requests; the Developer role is also needed, which the project's
// permissions say).
func (c *Client) gitlabMergeRequests(ctx context.Context, repo Repo, token updater.Secret, prefix string, out *PullRequests) error {
	s, err := c.gitlabSession(repo, token, out.Repo, out.Base)
	if err != nil {
		return &Error{Kind: Other, Forge: GitLab, Op: "list merge requests", Repo: out.Repo, Err: err, detail: "bad API URL"}
	}
	defer func() { out.Calls = s.Calls() }()
	hdr := http.Header{"User-Agent": {userAgent}, "Accept": {"application/json"}}
	project := repo.APIURL + "/projects/" + url.PathEscape(out.Repo)
	var list []gitlabMR
	q := url.Values{"state": {"opened"}, "target_branch": {out.Base}, "per_page": {"100"}, "order_by": {"created_at"}, "sort": {"desc"}}
	if _, e := s.getJSON(ctx, "list merge requests", project+"/merge_requests?"+q.Encode(), hdr, &list); e != nil {
		return gitlabScoped(e)
	}
	for _, m := range list {
		if !strings.HasPrefix(m.SourceBranch, prefix) || m.TargetBranch != out.Base || len(out.Open) == 3 {
			continue
		}
		out.Open = append(out.Open, gitlabMergeRequest(m))
	}
	var self struct {
		Scopes []string `json:"scopes"`
	}
	if _, e := s.getJSON(ctx, "get token", repo.APIURL+"/personal_access_tokens/self", hdr, &self); e == nil {
		may := contains(self.Scopes, "api")
		out.MayOpen = &may
		out.Permission = "token scopes: " + orNone(strings.Join(self.Scopes, ", ")) + " (opening a merge request needs api, and the Developer role)"
	} else {
		out.Permission = "GitLab did not say which scopes this token has (" + e.Error() + ")"
	}
	return nil
}

// gitlabMergeRequest reads has_conflicts and detailed_merge_status
// (mergeable; conflict, ci_must_pass, ci_still_running, not_approved,
// discussions_not_resolved, draft_status, need_rebase, blocked_status,
// checking, unchecked...).
func gitlabMergeRequest(m gitlabMR) PullRequest {
	pr := PullRequest{Number: m.IID, URL: m.WebURL, Title: m.Title, Head: m.SourceBranch, Base: m.TargetBranch, Created: m.CreatedAt, State: m.DetailedMergeStatus, Mergeable: "unknown"}
	switch m.DetailedMergeStatus {
	case "mergeable":
		pr.Mergeable = "yes"
	case "checking", "unchecked", "preparing", "":
	case "conflict":
		pr.Mergeable, pr.Why = "no", append(pr.Why, "it conflicts with "+m.TargetBranch)
	case "ci_must_pass", "ci_still_running":
		pr.Mergeable, pr.Why = "no", append(pr.Why, "the pipeline must pass")
	case "not_approved":
		pr.Mergeable, pr.Why = "no", append(pr.Why, "an approval is required")
	case "discussions_not_resolved":
		pr.Mergeable, pr.Why = "no", append(pr.Why, "discussions are not resolved")
	case "need_rebase":
		pr.Mergeable, pr.Why = "no", append(pr.Why, "it needs a rebase onto "+m.TargetBranch)
	default:
		pr.Mergeable, pr.Why = "no", append(pr.Why, "GitLab says "+m.DetailedMergeStatus)
	}
	if m.HasConflicts && pr.Mergeable != "no" {
		pr.Mergeable, pr.Why = "no", append(pr.Why, "it conflicts with "+m.TargetBranch)
	}
	return pr
}

func splitScopes(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// String is "#12" (GitHub) or "!12" (GitLab) and the URL.
func (p PullRequest) String() string { return fmt.Sprintf("#%d %s", p.Number, p.URL) }
