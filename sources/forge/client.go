package forge

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/imgupd/imgupd/internal/errtext"
	"github.com/imgupd/imgupd/internal/giturl"
	"github.com/imgupd/imgupd/model/updater"
)

// Defaults for New.
const (
	// DefaultRequestTimeout bounds each API request, body included.
	DefaultRequestTimeout = 10 * time.Second
	// DefaultMaxResponseBytes bounds each response body (1 MiB); a longer
	// answer fails with BadResponse.
	DefaultMaxResponseBytes = 1 << 20
)

// userAgent is sent on hand-written requests (GitHub's go-github client
// sends its own); some forges refuse requests without one.
const userAgent = "imgupd-forge-check"

// Client asks forges' REST APIs about branch protection. It only reads:
// every request is a GET, except GitHubAppToken's POST, which creates a
// short-lived installation token and changes nothing in any repository.
// A Client has no mutable state and is safe for concurrent use.
type Client struct {
	http      *http.Client
	endpoints []Endpoint
	timeout   time.Duration
	maxBody   int64
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client (its transport, proxy, TLS roots,
// redirect policy). The client is copied, never modified. Default: a
// client on http.DefaultTransport.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.http = hc
		}
	}
}

// WithEndpoints adds self-hosted forges (GitHub Enterprise Server,
// GitLab, Gitea, Forgejo). They are tried before the built-in table, so
// they also override it. New rejects entries that do not Validate.
func WithEndpoints(eps ...Endpoint) Option {
	return func(c *Client) { c.endpoints = append(c.endpoints, eps...) }
}

// WithRequestTimeout bounds each API request, from sending to the end of
// the body (default DefaultRequestTimeout; 0 or less leaves only the
// caller's context).
func WithRequestTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithMaxResponseBytes bounds each response body (default
// DefaultMaxResponseBytes; values below 1 KiB are raised to 1 KiB).
func WithMaxResponseBytes(n int64) Option { return func(c *Client) { c.maxBody = max(n, 1<<10) } }

// New returns a Client. It fails only for configured endpoints that do not
// Validate, so configuration mistakes surface at start-up.
func New(opts ...Option) (*Client, error) {
	c := &Client{http: &http.Client{}, timeout: DefaultRequestTimeout, maxBody: DefaultMaxResponseBytes}
	for _, o := range opts {
		o(c)
	}
	for _, ep := range c.endpoints {
		if _, err := ep.Validate(); err != nil {
			return nil, err
		}
	}
	c.endpoints = append([]Endpoint(nil), c.endpoints...)
	return c, nil
}

// Recognise is Recognise with the Client's configured endpoints.
func (c *Client) Recognise(repoURL string) (Repo, bool) { return Recognise(repoURL, c.endpoints) }

// Verdict is what the forge's answers mean for Image Updater's direct
// push of its write-back commit to the branch.
type Verdict int

const (
	// VerdictUnknown is the zero value; BranchProtection never returns it
	// without an error.
	VerdictUnknown Verdict = iota
	// PushAllowed: the branch does not block the push and the forge says
	// this token's user may push to it.
	PushAllowed
	// PushNotBlocked: nothing on the branch blocks a direct push, but the
	// forge gave no answer for this token's own push right (GitHub App
	// installation tokens, Bitbucket): the token still needs write access.
	PushNotBlocked
	// PushRejected: the forge says this token cannot push to the branch
	// (no write access, or protection that lets nobody / not this user
	// push). Image Updater's push will be rejected.
	PushRejected
	// PushRejectedUnlessExempt: the branch is protected against direct
	// pushes; the push is rejected unless the token's identity is exempt
	// (GitHub bypass actors and admins, Bitbucket's listed users and
	// groups), which the API does not report for this token.
	PushRejectedUnlessExempt
)

var verdictNames = [...]string{
	VerdictUnknown: "Unknown", PushAllowed: "PushAllowed", PushNotBlocked: "PushNotBlocked",
	PushRejected: "PushRejected", PushRejectedUnlessExempt: "PushRejectedUnlessExempt",
}

// String is the verdict's stable name, e.g. "PushRejected".
func (v Verdict) String() string {
	if v >= 0 && int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// MarshalText writes the verdict's name.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Blocked reports whether the verdict says the push is (or, short of an
// exemption, will be) rejected.
func (v Verdict) Blocked() bool { return v == PushRejected || v == PushRejectedUnlessExempt }

// Protection is the forge's answer for one branch and one token. It holds
// no credentials; every printed and JSON form is safe to show.
type Protection struct {
	Forge Forge `json:"forge"`
	// APIURL is the API base that was asked.
	APIURL string `json:"apiURL"`
	// Repo is "owner/name" (GitLab: the full project path).
	Repo   string `json:"repo"`
	Branch string `json:"branch"`
	// Protected: the forge protects the branch, or an active rule or
	// restriction on it blocks direct pushes.
	Protected bool `json:"protected"`
	// CanPush is the forge's own answer whether this token's user may push
	// to this branch (GitLab can_push, Gitea user_can_push) or to the
	// repository (GitHub permissions.push); nil when the forge gives none
	// (GitHub App tokens, Bitbucket). It is about the user or role: a
	// token scope limit (GitLab write_repository, GitHub fine-grained
	// Contents: write) is not part of it.
	CanPush *bool `json:"canPush,omitempty"`
	// Verdict is what this means for Image Updater's direct push.
	Verdict Verdict `json:"verdict"`
	// Rules are the protections found, one human line each, e.g.
	// "ruleset 42 (Repository acme/web): pull_request",
	// "push_access_levels: Maintainers". Rules that do not block the push
	// say so.
	Rules []string `json:"rules,omitempty"`
	// Calls are the API requests made, in order (method, URL, status).
	Calls []Call `json:"calls"`
	// Reason is one line for the on-call engineer.
	Reason string `json:"reason"`
}

// locate is the repository at repoURL on a built-in or configured forge,
// or, for a self-hosted forge nobody configured, on the API found on the
// repository's own host.
func (c *Client) locate(ctx context.Context, repoURL string) (Repo, bool) {
	if repo, ok := c.Recognise(repoURL); ok {
		return repo, true
	}
	if ep, found := c.Discover(ctx, repoURL); found {
		return Recognise(repoURL, []Endpoint{ep})
	}
	return Repo{}, false
}

// BranchProtection asks the forge serving repoURL whether branch is
// protected and whether the write-back credentials may push to it. Only
// creds.Password (the token or PAT) is used, except on Bitbucket, where a
// Username other than "" or "x-token-auth" selects Basic authentication
// (app passwords, API tokens) instead of Bearer (access tokens).
//
// It only reads. On success the Protection's Verdict is set; on failure
// the error is an *Error (classify it with errors.As and its Kind) and the
// Protection still carries the calls made. NotRecognised and
// NoCredentials errors come before any request.
func (c *Client) BranchProtection(ctx context.Context, repoURL, branch string, creds updater.Credentials) (Protection, error) {
	repo, ok := c.locate(ctx, repoURL)
	if !ok {
		return Protection{}, &Error{Kind: NotRecognised, Op: "recognise",
			detail: errtext.OneLine(redactRepoURL(repoURL) + " is not on a built-in or configured forge (and its host serves no GitHub, GitLab or Gitea API), or not a repository path there")}
	}
	p := Protection{Forge: repo.Forge, APIURL: repo.APIURL, Repo: repo.Path(), Branch: branch}
	if strings.TrimSpace(branch) == "" || strings.ContainsAny(branch, "\x00\n\r") {
		return p, &Error{Kind: Other, Forge: repo.Forge, Op: "check branch", Repo: p.Repo, detail: "no valid branch name given"}
	}
	if creds.Password.IsEmpty() {
		return p, &Error{Kind: NoCredentials, Forge: repo.Forge, Op: "check branch", Repo: p.Repo, Branch: branch,
			detail: "the write-back credentials have no password or token; SSH keys give no API access"}
	}
	var err error
	switch repo.Forge {
	case GitHub:
		err = c.github(ctx, repo, creds.Password, &p)
	case GitLab:
		err = c.gitlab(ctx, repo, creds.Password, &p)
	case Gitea, Forgejo:
		err = c.gitea(ctx, repo, creds.Password, &p)
	case Bitbucket:
		err = c.bitbucket(ctx, repo, creds, &p)
	default:
		err = &Error{Kind: NotRecognised, Forge: repo.Forge, Op: "recognise", Repo: p.Repo}
	}
	if err != nil {
		p.Verdict = VerdictUnknown
	}
	return p, err
}

// redactRepoURL removes userinfo (user names included: they may be
// tokens) from a repository URL, for error text.
func redactRepoURL(raw string) string { return giturl.Redact(raw) }

func ptr[T any](v T) *T { return &v }
