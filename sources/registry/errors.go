package registry

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/imgupd/imgupd/internal/errtext"
	"github.com/imgupd/imgupd/internal/netclass"
)

// Kind is what went wrong talking to a registry, from the typed error, as
// a stable name that is safe to alert on: a network kind (netclass.DNS,
// Connect, TLS, Timeout, Proxy, Canceled), shared with the other sources,
// or one of the registry's own below. Its value is that name, as JSON and
// log lines carry it (a typed string, as go-containerregistry's
// transport.ErrorCode).
type Kind = netclass.Kind

const (
	// Other is a failure none of the kinds below describe.
	Other Kind = "Other"
	// Unauthorized: HTTP 401 / UNAUTHORIZED, credentials missing or wrong.
	Unauthorized Kind = "Unauthorized"
	// Forbidden: HTTP 403 / DENIED, credentials lack pull permission.
	Forbidden Kind = "Forbidden"
	// NotFound: HTTP 404 / NAME_UNKNOWN, MANIFEST_UNKNOWN, BLOB_UNKNOWN.
	NotFound Kind = "NotFound"
	// RateLimited: HTTP 429 / TOOMANYREQUESTS.
	RateLimited Kind = "RateLimited"
	// NotRegistry: GET /v2/ answered neither 200 nor 401.
	NotRegistry Kind = "NotRegistry"
	// TooLarge: an answer passed the Client's bounds: a tag list
	// (WithTagListLimits: tags, bytes or pages; Error.List says which and
	// what was read, and ListTags returns the tags read before the bound
	// with it), or an image config larger than imgupd reads (BlobLimit).
	TooLarge Kind = "TooLarge"
)

// Kinds is every Kind: this package's own, in the order above, then the
// network kinds (netclass.Kinds).
func Kinds() []Kind {
	return append([]Kind{
		Other, Unauthorized, Forbidden, NotFound, RateLimited, NotRegistry, TooLarge,
	}, netclass.Kinds()...)
}

var kindPhrases = map[Kind]string{
	Other: "failed", netclass.DNS: "registry host not found (DNS)",
	Unauthorized: "unauthorized", Forbidden: "access denied", NotFound: "not found",
	RateLimited: "rate limited", NotRegistry: "not a Docker registry v2 API",
	TooLarge: "past imgupd's read bound",
}

// Error is one classified registry failure. Its message is one line and
// never contains credentials or Authorization headers.
type Error struct {
	Kind Kind
	// Op is what was being done: "ping", "list tags", "manifest", "config".
	Op string
	// Registry is the registry host ("ghcr.io", "127.0.0.1:5000").
	Registry string
	// Repository is the path inside the registry ("team/app").
	Repository string
	// Status is the HTTP status, 0 when no HTTP answer was received.
	Status int
	// Codes are the registry's error codes (UNAUTHORIZED, DENIED, ...).
	Codes []string
	// RetryAfter is the 429 answer's Retry-After, 0 if none was given.
	RetryAfter time.Duration
	// List, for TooLarge, is the bound the tag list reached and what was
	// read before it.
	List *ListLimit `json:",omitempty"`
	// Err is the underlying error. It may hold the failed *http.Request,
	// Authorization header included: print Error(), never dump Err.
	Err error `json:"-"`

	// detail is the single-line, scrubbed text shown after the summary.
	detail string
}

// Error is "<op> <registry>/<repository>: <what> (HTTP <status>, <codes>,
// retry after <d>): <detail>", on one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if where := e.where(); where != "" {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(where)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(phrase(e.Kind))
	var extra []string
	if e.Status != 0 {
		extra = append(extra, fmt.Sprintf("HTTP %d", e.Status))
	}
	extra = append(extra, e.Codes...)
	if e.RetryAfter > 0 {
		extra = append(extra, "retry after "+e.RetryAfter.String())
	}
	if len(extra) > 0 {
		b.WriteString(" (" + strings.Join(extra, ", ") + ")")
	}
	d := e.detail
	if d == "" && e.Err != nil {
		d = errtext.OneLine(e.Err.Error())
	}
	if d != "" {
		b.WriteString(": " + d)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) where() string {
	switch {
	case e.Registry != "" && e.Repository != "":
		return e.Registry + "/" + e.Repository
	case e.Registry != "":
		return e.Registry
	}
	return e.Repository
}

func phrase(k Kind) string { return k.Phrase(kindPhrases) }

// Classify turns an error from go-containerregistry or net/http into an
// *Error of the right Kind, using only typed errors (errors.As / errors.Is),
// never the message text. It returns nil for nil, and err itself when err
// already is an *Error (Op is filled in if empty).
//
// One exception has no typed error in Go: a proxy answering CONNECT with a
// non-200 status (e.g. 407) surfaces as a plain error string from
// net/http, and is classified Other.
func Classify(op string, err error) *Error {
	if err == nil {
		return nil
	}
	var already *Error
	if errors.As(err, &already) {
		c := *already
		if c.Op == "" {
			c.Op = op
		}
		return &c
	}
	e := &Error{Kind: Other, Op: op, Err: err}
	// detail is the message of the typed error that decided the kind:
	// it says what failed without the URL noise of the wrappers above it.
	var detail error = err
	var tErr *transport.Error
	var limit *ListLimit
	var blob *BlobLimit
	if errors.As(err, &limit) {
		e.Kind, e.List, detail = TooLarge, limit, limit
	} else if errors.As(err, &blob) {
		e.Kind, detail = TooLarge, blob
	} else if c, d := netclass.Classify(err); c != netclass.None {
		e.Kind, detail = c, d
	} else if errors.As(err, &tErr) {
		classifyHTTP(e, tErr)
		return e
	}
	e.detail = errtext.OneLine(detail.Error())
	return e
}

// classifyHTTP sets the kind from the status, then from the registry's
// codes when the status alone says nothing (some registries answer 400 or
// 500 with DENIED or TOOMANYREQUESTS).
func classifyHTTP(e *Error, te *transport.Error) {
	e.Status = te.StatusCode
	var msgs []string
	for _, d := range te.Errors {
		e.Codes = append(e.Codes, string(d.Code))
		if d.Message != "" {
			msgs = append(msgs, d.Message)
		}
	}
	e.detail = errtext.OneLine(strings.Join(msgs, "; "))
	if e.detail == "" {
		e.detail = http.StatusText(te.StatusCode)
	}
	switch te.StatusCode {
	case http.StatusUnauthorized:
		e.Kind = Unauthorized
		return
	case http.StatusForbidden:
		e.Kind = Forbidden
		return
	case http.StatusNotFound:
		e.Kind = NotFound
		return
	case http.StatusTooManyRequests:
		e.Kind = RateLimited
		return
	}
	for _, d := range te.Errors {
		switch d.Code {
		case transport.UnauthorizedErrorCode:
			e.Kind = Unauthorized
		case transport.DeniedErrorCode:
			e.Kind = Forbidden
		case transport.NameUnknownErrorCode, transport.ManifestUnknownErrorCode, transport.BlobUnknownErrorCode:
			e.Kind = NotFound
		case transport.TooManyRequestsErrorCode:
			e.Kind = RateLimited
		default:
			continue
		}
		return
	}
}

// scrub removes each secret (3 characters or more) from the detail text,
// in case a server or proxy echoed one back.
func (e *Error) scrub(secrets ...string) { e.detail = errtext.Scrub(e.detail, secrets...) }
