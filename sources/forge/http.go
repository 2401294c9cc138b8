package forge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/imgupd/imgupd/internal/bounded"
	"github.com/imgupd/imgupd/internal/errtext"
)

// Call is one API request made during a check: what was asked and what
// the forge answered. It holds no credentials (they travel in headers).
type Call struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	// Status is the HTTP status, 0 when no answer was received.
	Status int `json:"status"`
}

// String is "GET https://api.github.com/repos/acme/web → 200" (or
// "→ no answer").
func (c Call) String() string {
	if c.Status == 0 {
		return c.Method + " " + c.URL + " → no answer"
	}
	return fmt.Sprintf("%s %s → %d", c.Method, c.URL, c.Status)
}

// session is one check: an HTTP client that authenticates only to the
// API's own origin, the calls it made, and the secrets to scrub from
// error text. It lives for one BranchProtection or GitHubAppToken call.
type session struct {
	forge        Forge
	repo, branch string
	api          *url.URL
	secrets      []string
	http         *http.Client

	mu    sync.Mutex
	calls []Call
}

// newSession builds the session's client from the Client's: same
// redirect policy, jar and overall timeout, with a transport that sets
// auth (only for the API's scheme and host, so a redirect or a pagination
// link elsewhere never receives the token), applies the per-request
// timeout, bounds the body and records the call.
func (c *Client) newSession(f Forge, apiBase, repo, branch string, auth func(http.Header), secrets ...string) (*session, error) {
	api, err := url.Parse(apiBase)
	if err != nil {
		return nil, fmt.Errorf("API base: %w", err)
	}
	s := &session{forge: f, repo: repo, branch: branch, api: api, secrets: secrets}
	base := c.http.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc := *c.http
	hc.Transport = &sessionTransport{s: s, base: base, auth: auth, timeout: c.timeout, max: c.maxBody}
	s.http = &hc
	return s, nil
}

// Calls returns a copy of the calls made so far.
func (s *session) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

func (s *session) record(c Call) {
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}

type sessionTransport struct {
	s       *session
	base    http.RoundTripper
	auth    func(http.Header)
	timeout time.Duration
	max     int64
}

func (t *sessionTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var (
		ctx    context.Context
		cancel context.CancelFunc
	)
	if t.timeout > 0 {
		ctx, cancel = context.WithTimeout(req.Context(), t.timeout)
	} else {
		ctx, cancel = context.WithCancel(req.Context())
	}
	r := req.Clone(ctx)
	if t.auth != nil && sameOrigin(r.URL, t.s.api) {
		t.auth(r.Header)
	} else {
		r.Header.Del("Authorization")
	}
	call := Call{Method: r.Method, URL: redact(r.URL)}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		cancel()
		t.s.record(call)
		return nil, err
	}
	call.Status = resp.StatusCode
	t.s.record(call)
	resp.Body = bounded.ReadCloser(resp.Body, t.max, errTooLarge, cancel)
	return resp, nil
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host)
}

// redact is the URL without userinfo, for calls and errors.
func redact(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// newError is an *Error for this session's forge, repository and branch.
func (s *session) newError(kind Kind, op, method, u string) *Error {
	return &Error{Kind: kind, Forge: s.forge, Op: op, Method: method, URL: u, Repo: s.repo, Branch: s.branch}
}

// fail finishes an error: scrubbed detail, scrubbed URL.
func (s *session) fail(e *Error) *Error {
	e.scrub(s.secrets)
	for _, sec := range s.secrets {
		if len(sec) >= 3 {
			e.URL = strings.ReplaceAll(e.URL, sec, "[redacted]")
		}
	}
	return e
}

// getJSON GETs rawURL on the API with the given extra headers and decodes
// a 2xx JSON answer into out. It returns the HTTP status (0 without an
// answer) and, for anything but a decoded 2xx, an *Error whose Kind comes
// from the status (404 is NotFound; callers refine it) or the transport.
func (s *session) getJSON(ctx context.Context, op, rawURL string, header http.Header, out any) (int, *Error) {
	return s.doJSON(ctx, op, http.MethodGet, rawURL, header, nil, out)
}

func (s *session) doJSON(ctx context.Context, op, method, rawURL string, header http.Header, body io.Reader, out any) (int, *Error) {
	req, err := http.NewRequestWithContext(ctx, method, rawURL, body)
	if err != nil {
		e := s.newError(Other, op, method, "")
		e.Err, e.detail = err, "cannot build request"
		return 0, s.fail(e)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := s.http.Do(req)
	if err != nil {
		e := s.newError(Other, op, method, redact(req.URL))
		classifyTransport(e, err)
		return 0, s.fail(e)
	}
	defer resp.Body.Close()
	// The final URL, after redirects, is the one that answered.
	u := redact(resp.Request.URL)
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e := s.newError(Other, op, method, u)
		e.Status = resp.StatusCode
		classifyTransport(e, err)
		return resp.StatusCode, s.fail(e)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := s.newError(statusKind(resp.StatusCode), op, method, u)
		e.Status = resp.StatusCode
		e.detail = errtext.OneLine(errorMessage(data, resp.StatusCode))
		return resp.StatusCode, s.fail(e)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			e := s.newError(BadResponse, op, method, u)
			e.Status = resp.StatusCode
			e.Err = fmt.Errorf("%w: %w", errUndocumented, err)
			e.detail = errtext.OneLine(e.Err.Error())
			return resp.StatusCode, s.fail(e)
		}
	}
	return resp.StatusCode, nil
}

// errorMessage is the forge's own text from an error body: "message"
// (GitHub, GitLab, Gitea), "error_description" (GitLab OAuth scope
// errors), "error.message" (Bitbucket), a string "error"; else the
// status text.
func errorMessage(body []byte, status int) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) == nil {
		for _, k := range []string{"error_description", "message", "error"} {
			raw, ok := m[k]
			if !ok {
				continue
			}
			var s string
			if json.Unmarshal(raw, &s) == nil && s != "" {
				return s
			}
			var nested struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(raw, &nested) == nil && nested.Message != "" {
				return nested.Message
			}
			if k == "message" { // GitLab validation errors: {"message": {"field": ["..."]}}
				return string(raw)
			}
		}
	}
	return http.StatusText(status)
}
