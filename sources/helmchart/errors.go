package helmchart

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/imgupd/imgupd/internal/errtext"
	"github.com/imgupd/imgupd/internal/netclass"
)

// ErrorKind is what went wrong reading a chart, as a stable name that is
// safe to alert on. (It is not called Kind: that is the function that
// classifies sources.)
// It is a network kind (netclass.DNS, Connect, TLS, Timeout, Proxy,
// Canceled), shared with the other sources, or one of the chart reader's
// own below. Its value is that name, as JSON and log lines carry it.
type ErrorKind = netclass.Kind

const (
	// Other: none of the kinds below.
	Other ErrorKind = "Other"
	// ChartNotFound: the repository has no such chart (not in index.yaml,
	// no such OCI repository), or index.yaml lists an archive the server
	// does not have.
	ChartNotFound ErrorKind = "ChartNotFound"
	// VersionNotFound: the chart exists but no version matches
	// targetRevision; Error.Versions lists those that exist.
	VersionNotFound ErrorKind = "VersionNotFound"
	// Unauthorized: HTTP 401, credentials missing or wrong.
	Unauthorized ErrorKind = "Unauthorized"
	// Forbidden: HTTP 403, credentials lack read access.
	Forbidden ErrorKind = "Forbidden"
	// NotAHelmRepo: <repoURL>/index.yaml is missing or is not a Helm
	// repository index.
	NotAHelmRepo ErrorKind = "NotAHelmRepo"
	// BadChart: the archive is not a readable chart (not gzip/tar, no
	// values.yaml, wrong layout, unexpected OCI layers).
	BadChart ErrorKind = "BadChart"
	// TooLarge: a document exceeded the client's WithMaxBytes limit
	// (imgupd's bound, not Argo CD's).
	TooLarge ErrorKind = "TooLarge"
	// InvalidSource: the Source or Auth cannot be used as given (no
	// chart source, unparsable URL, unusable CA or client certificate).
	InvalidSource ErrorKind = "InvalidSource"
)

// ErrorKinds is every ErrorKind: this package's own, in the order above,
// then the network kinds (netclass.Kinds).
func ErrorKinds() []ErrorKind {
	return append([]ErrorKind{
		Other, ChartNotFound, VersionNotFound, Unauthorized, Forbidden, NotAHelmRepo, BadChart, TooLarge,
		InvalidSource,
	}, netclass.Kinds()...)
}

var kindPhrases = map[ErrorKind]string{
	Other: "failed", ChartNotFound: "chart not found", VersionNotFound: "no matching chart version",
	Unauthorized: "unauthorized", Forbidden: "access denied", NotAHelmRepo: "not a Helm chart repository",
	BadChart: "unreadable chart", TooLarge: "too large", InvalidSource: "invalid source",
}

func phrase(k ErrorKind) string { return k.Phrase(kindPhrases) }

// maxListedVersions is how many existing versions a VersionNotFound error
// lists.
const maxListedVersions = 10

// Error is one classified failure. Its message is one line and never
// contains a password, token, key or URL userinfo/query; the same holds
// for its JSON and its %v, %+v and %#v forms.
type Error struct {
	Kind ErrorKind `json:"kind"`
	// Op is what was being done: "source", "tls", "index", "download",
	// "tags", "manifest", "layer", "extract".
	Op string `json:"op"`
	// Source is the source kind (KindHelmRepo, KindOCIHelm,
	// KindOCIArtifact).
	Source string `json:"source,omitempty"`
	// URL is what was being read, without userinfo or query:
	// "https://charts.example.com/index.yaml",
	// "oci://ghcr.io/org/charts/app:1.2.3".
	URL string `json:"url,omitempty"`
	// Host is the host (and port) of URL: what argocd-tls-certs-cm and
	// credentials are matched against.
	Host string `json:"host,omitempty"`
	// Chart is the chart name; Version is the targetRevision asked for,
	// or the version it resolved to once known.
	Chart   string `json:"chart,omitempty"`
	Version string `json:"version,omitempty"`
	// Status is the HTTP status, 0 when no HTTP answer was received.
	Status int `json:"status,omitempty"`
	// Versions are the chart's versions, newest first, at most 10
	// (VersionNotFound); MoreVersions counts those left out.
	Versions     []string `json:"versions,omitempty"`
	MoreVersions int      `json:"moreVersions,omitempty"`
	// CredentialsSent reports whether the failed request carried
	// credentials.
	CredentialsSent bool `json:"credentialsSent"`
	// CrossHost reports that the chart archive is on another scheme/host
	// than the repository, where Argo CD sends credentials only with
	// spec.source.helm.passCredentials.
	CrossHost bool `json:"crossHost,omitempty"`
	// Limit is the byte limit a TooLarge document exceeded.
	Limit int64 `json:"limit,omitempty"`
	// Err is the underlying error, for errors.Is/As. Print Error(), never
	// Err: its text was not scrubbed.
	Err error `json:"-"`

	detail string
	auth   authSummary
}

// authSummary is the Auth in use, as far as Facts reports it.
type authSummary struct {
	creds, ca, insecure, plainHTTP, clientCert, passCreds bool
}

// Error is "<op> <url>: <what> (HTTP <status>): <detail>", on one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.URL != "" {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(e.URL)
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
	if e.Kind == VersionNotFound {
		if len(e.Versions) == 0 {
			b.WriteString("; the chart has no versions")
		} else {
			b.WriteString("; versions: " + strings.Join(e.Versions, ", "))
			if e.MoreVersions > 0 {
				fmt.Fprintf(&b, " (and %d more)", e.MoreVersions)
			}
		}
	}
	return b.String()
}

// GoString keeps %#v to the scrubbed fields: Err may hold requests and
// server answers that were never scrubbed.
func (e *Error) GoString() string {
	return fmt.Sprintf("&helmchart.Error{Kind:%s, Op:%q, URL:%q, Status:%d, Message:%q}", e.Kind, e.Op, e.URL, e.Status, e.Error())
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, &Error{Kind: k}) match any *Error of kind k.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Op == "" && t.URL == "" && t.Err == nil && t.Kind == e.Kind
}

// scrub removes each secret (3 characters or more) from the detail text,
// in case a server or proxy echoed one back.
func (e *Error) scrub(secrets []string) { e.detail = errtext.Scrub(e.detail, secrets...) }

// statusError is a non-2xx answer of a classic repository.
type statusError struct {
	status int
	body   string
}

func (e *statusError) Error() string {
	if e.body != "" {
		return fmt.Sprintf("HTTP %d: %s", e.status, e.body)
	}
	return fmt.Sprintf("HTTP %d %s", e.status, http.StatusText(e.status))
}

// tooLargeError is a read that passed its byte limit.
type tooLargeError struct {
	what  string
	limit int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than the %d-byte limit", e.what, e.limit)
}

// classify fills e's Kind, Status and detail from err, using typed errors
// only (errors.As / errors.Is), never the message text: network classes
// from netclass, then our own statusError and tooLargeError, then
// go-containerregistry's transport.Error. notFound is the kind a 404
// means where e was made.
func classify(e *Error, err error, notFound ErrorKind) *Error {
	e.Err = err
	if e.Kind == "" {
		e.Kind = Other // what no case below matches
	}
	var (
		se  *statusError
		tl  *tooLargeError
		te  *transport.Error
		our *Error
	)
	detail := err
	switch c, d := netclass.Classify(err); {
	case errors.As(err, &our):
		// Already classified below us (e.g. by extraction): keep it.
		e.Kind, e.detail, e.Status = our.Kind, our.detail, our.Status
		if our.Op != "" {
			e.Op = our.Op
		}
		if our.Limit != 0 {
			e.Limit = our.Limit
		}
		return e
	case c != netclass.None:
		e.Kind, detail = c, d
	case netclass.RemoteTLSAlert(err) != nil:
		e.Kind, detail = netclass.TLS, netclass.RemoteTLSAlert(err)
	case errors.As(err, &tl):
		e.Kind, e.Limit = TooLarge, tl.limit
		detail = tl
	case errors.As(err, &se):
		e.Status = se.status
		e.Kind = statusKind(se.status, notFound)
		e.detail = se.body
		if e.detail == "" {
			e.detail = http.StatusText(se.status)
		}
		return e
	case errors.As(err, &te):
		e.Status = te.StatusCode
		e.Kind = statusKind(te.StatusCode, notFound)
		var msgs []string
		for _, d := range te.Errors {
			msg := string(d.Code)
			if d.Message != "" {
				msg += ": " + d.Message
			}
			msgs = append(msgs, msg)
			if e.Kind == Other {
				switch d.Code {
				case transport.UnauthorizedErrorCode:
					e.Kind = Unauthorized
				case transport.DeniedErrorCode:
					e.Kind = Forbidden
				case transport.NameUnknownErrorCode, transport.ManifestUnknownErrorCode:
					e.Kind = notFound
				}
			}
		}
		e.detail = errtext.OneLine(strings.Join(msgs, "; "))
		if e.detail == "" {
			e.detail = http.StatusText(te.StatusCode)
		}
		return e
	}
	e.detail = errtext.OneLine(detail.Error())
	return e
}

func statusKind(status int, notFound ErrorKind) ErrorKind {
	switch status {
	case http.StatusUnauthorized:
		return Unauthorized
	case http.StatusForbidden:
		return Forbidden
	case http.StatusNotFound:
		return notFound
	}
	return Other
}
