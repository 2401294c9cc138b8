package forge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/imgupd/imgupd/internal/errtext"
	"github.com/imgupd/imgupd/internal/netclass"
)

// Kind is what went wrong asking a forge's API, as a stable name that is
// safe to alert on. Every Kind means the push check was not made; none of
// them says the branch is protected or not.
// It is a network kind (netclass.DNS, Connect, TLS, Timeout, Proxy,
// Canceled), shared with the other sources, or one of the forge's own
// below. Its value is that name, as JSON and log lines carry it.
type Kind = netclass.Kind

const (
	// Other: none of the kinds below.
	Other Kind = "Other"
	// NotRecognised: the repository URL is not on a forge this package
	// knows (not built in, not configured), or its path is not a
	// repository path of that forge. Nothing was asked.
	NotRecognised Kind = "NotRecognised"
	// NoCredentials: no token was given, so the API cannot say what this
	// token may do (SSH keys give no API access). Nothing was asked.
	NoCredentials Kind = "NoCredentials"
	// Unauthorized: HTTP 401, the API refused the token (wrong, expired,
	// revoked, or a git password that is not an API token).
	Unauthorized Kind = "Unauthorized"
	// Forbidden: HTTP 403, the token is valid but lacks the scope or
	// permission to read what the check needs (Error.Scope names it). On
	// Bitbucket this is the usual answer for a write-only token.
	Forbidden Kind = "Forbidden"
	// NotFound: HTTP 404 for the repository: it does not exist or the
	// token cannot see it (GitHub and others answer 404, not 403, for
	// private repositories a token has no access to).
	NotFound Kind = "NotFound"
	// BranchNotFound: the token sees the repository but it has no such
	// branch.
	BranchNotFound Kind = "BranchNotFound"
	// RateLimited: HTTP 429, or GitHub's 403 with its rate limit spent.
	RateLimited Kind = "RateLimited"
	// BadResponse: the API answered, but not as documented: an unexpected
	// status (5xx...), a body that is not the documented JSON, or one
	// larger than the client's limit.
	BadResponse Kind = "BadResponse"
	// InvalidKey: a GitHub App private key that does not parse as an RSA
	// PEM key.
	InvalidKey Kind = "InvalidKey"
)

// Kinds is every Kind: this package's own, in the order above, then the
// network kinds (netclass.Kinds).
func Kinds() []Kind {
	return append([]Kind{
		Other, NotRecognised, NoCredentials, Unauthorized, Forbidden, NotFound, BranchNotFound, RateLimited,
		BadResponse, InvalidKey,
	}, netclass.Kinds()...)
}

var kindPhrases = map[Kind]string{
	Other: "failed", NotRecognised: "not a recognised forge repository", NoCredentials: "no API token",
	Unauthorized: "credentials refused", Forbidden: "access denied", NotFound: "repository not found or not visible",
	BranchNotFound: "branch not found", RateLimited: "rate limited", BadResponse: "unexpected answer",
	InvalidKey: "invalid private key",
}

func phrase(k Kind) string { return k.Phrase(kindPhrases) }

// Error is one classified failure asking a forge. Its message is one line
// and never contains a token, key or Authorization header: URL carries no
// credentials (they travel in headers) and the detail text is scrubbed of
// the secrets in use.
type Error struct {
	Kind  Kind  `json:"kind"`
	Forge Forge `json:"forge"`
	// Op is what was being done: "get repository", "get branch", "get
	// rules", "list branch restrictions", "create installation token".
	Op string `json:"op"`
	// Method and URL are the failing request's ("GET",
	// "https://api.github.com/repos/acme/web"); empty when no request was
	// made (NotRecognised, NoCredentials, InvalidKey).
	Method string `json:"method,omitempty"`
	URL    string `json:"url,omitempty"`
	// Repo is "owner/name" and Branch the branch, when known.
	Repo   string `json:"repo,omitempty"`
	Branch string `json:"branch,omitempty"`
	// Status is the HTTP status, 0 when no HTTP answer was received.
	Status int `json:"status,omitempty"`
	// Scope is, for Forbidden, the token scope or permission the check
	// needs on this forge (e.g. "read_api").
	Scope string `json:"scope,omitempty"`
	// Err is the underlying error, for errors.Is/As. It may hold the failed
	// *http.Request, Authorization header included: print Error(), never
	// dump Err.
	Err error `json:"-"`

	// detail is the single-line, scrubbed text shown after the summary
	// (the forge's own message, or the typed network error's).
	detail string
}

// Error is "<forge> <op> <method> <url>: <what> (HTTP <status>): <detail>",
// on one line.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Forge != Unknown {
		b.WriteString(e.Forge.String())
	}
	for _, s := range []string{e.Op, e.Method, e.URL} {
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	if e.URL == "" && e.Repo != "" {
		b.WriteString(" " + e.Repo)
	}
	if e.Branch != "" && e.Kind == BranchNotFound {
		b.WriteString(" branch " + e.Branch)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(phrase(e.Kind))
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.detail != "" {
		b.WriteString(": " + e.detail)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// GoString prints like Error, so %#v cannot reach Err's unscrubbed text.
// It has a value receiver so that an Error value, not only a pointer,
// prints safely.
func (e Error) GoString() string { return "forge.Error{" + e.Error() + "}" }

// Format prints Error() for every verb (%#v: GoString), so %v, %+v and
// %#v of an Error or *Error, or of a struct holding one, never walk into
// Err.
func (e Error) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'q':
		fmt.Fprintf(f, "%q", e.Error())
	case verb == 'v' && f.Flag('#'):
		_, _ = io.WriteString(f, e.GoString())
	default:
		_, _ = io.WriteString(f, e.Error())
	}
}

// MarshalJSON writes the exported fields plus "message" (Error()); Err is
// left out. The advice for it is the engine's (package advice), not part of
// the failure.
func (e Error) MarshalJSON() ([]byte, error) {
	type plain Error
	return json.Marshal(struct {
		plain
		Message string `json:"message"`
	}{plain(e), e.Error()})
}

// errTooLarge is returned by a response body past the client's limit.
var errTooLarge = errors.New("answer larger than the response limit")

// errUndocumented marks a 2xx answer whose body is not the documented JSON.
var errUndocumented = errors.New("answer is not the documented JSON")

// classifyTransport classifies an error returned before any HTTP status
// (network, TLS, context, body limit), using typed errors only.
func classifyTransport(e *Error, err error) {
	e.Err = err
	var detail error = err
	if c, d := netclass.Classify(err); c != netclass.None {
		e.Kind, detail = c, d
	} else if errors.Is(err, errTooLarge) {
		e.Kind, detail = BadResponse, errTooLarge
	} else if errors.Is(err, errUndocumented) {
		e.Kind = BadResponse
	}
	e.detail = errtext.OneLine(detail.Error())
}

// statusKind is the kind an HTTP status stands for. 404 is NotFound here;
// callers that know the repository is visible turn it into BranchNotFound.
func statusKind(status int) Kind {
	switch {
	case status == http.StatusUnauthorized:
		return Unauthorized
	case status == http.StatusForbidden:
		return Forbidden
	case status == http.StatusNotFound:
		return NotFound
	case status == http.StatusTooManyRequests:
		return RateLimited
	}
	return BadResponse
}

// scrub removes each secret (3 characters or more) from the detail text,
// in case a server or proxy echoed one back.
func (e *Error) scrub(secrets []string) { e.detail = errtext.Scrub(e.detail, secrets...) }
