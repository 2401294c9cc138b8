package registry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/imgupd/imgupd/internal/errtext"
	"github.com/imgupd/imgupd/internal/netclass"
	labregistry "github.com/imgupd/imgupd/lab/registry"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	urlErr := func(err error) error { return &url.Error{Op: "Get", URL: "https://r.example/v2/", Err: err} }
	httpErr := func(status int, codes ...transport.ErrorCode) error {
		te := &transport.Error{StatusCode: status}
		for _, c := range codes {
			te.Errors = append(te.Errors, transport.Diagnostic{Code: c, Message: "msg " + string(c)})
		}
		return fmt.Errorf("wrapped: %w", te)
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	for _, tc := range []struct {
		name string
		err  error
		want Kind
	}{
		{"dns", urlErr(&net.DNSError{Err: "no such host", Name: "registry.invalid", IsNotFound: true}), netclass.DNS},
		{"refused", urlErr(refused), netclass.Connect},
		{"unreachable", urlErr(&net.OpError{Op: "dial", Err: syscall.EHOSTUNREACH}), netclass.Connect},
		{"proxy refused", urlErr(&net.OpError{Op: "proxyconnect", Net: "tcp", Err: refused}), netclass.Proxy},
		{"proxy dns", urlErr(&net.OpError{Op: "proxyconnect", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "proxy"}}), netclass.Proxy},
		{"unknown CA", urlErr(&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), netclass.TLS},
		{"bare unknown CA", urlErr(x509.UnknownAuthorityError{}), netclass.TLS},
		{"hostname", urlErr(x509.HostnameError{Host: "r.example", Certificate: &x509.Certificate{}}), netclass.TLS},
		{"record header", urlErr(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), netclass.TLS},
		{"scheme mismatch", urlErr(http.ErrSchemeMismatch), netclass.TLS},
		{"caller deadline", urlErr(context.DeadlineExceeded), netclass.Timeout},
		{"net timeout", urlErr(&net.OpError{Op: "dial", Err: os.ErrDeadlineExceeded}), netclass.Timeout},
		{"canceled", urlErr(context.Canceled), netclass.Canceled},
		{"401", httpErr(401, transport.UnauthorizedErrorCode), Unauthorized},
		{"403", httpErr(403, transport.DeniedErrorCode), Forbidden},
		{"404", httpErr(404, transport.NameUnknownErrorCode), NotFound},
		{"429", httpErr(429), RateLimited},
		{"400 DENIED", httpErr(400, transport.DeniedErrorCode), Forbidden},
		{"500 TOOMANYREQUESTS", httpErr(500, transport.UnknownErrorCode, transport.TooManyRequestsErrorCode), RateLimited},
		{"502", httpErr(502), Other},
		{"plain", errors.New("something"), Other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := Classify("list tags", tc.err)
			if e.Kind != tc.want {
				t.Fatalf("Classify(%v) = %s, want %s", tc.err, e.Kind, tc.want)
			}
			if !errors.Is(e, tc.err) {
				t.Error("Unwrap does not reach the cause")
			}
			if msg := e.Error(); msg == "" || strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "list tags: ") {
				t.Errorf("Error() = %q", msg)
			}
			if adviceFor(e) == "" {
				t.Error("no hint")
			}
		})
	}
	if Classify("x", nil) != nil {
		t.Error("Classify(nil) != nil")
	}
	inner := &Error{Kind: Forbidden, Registry: "ghcr.io"}
	if got := Classify("manifest", fmt.Errorf("ctx: %w", inner)); got.Kind != Forbidden || got.Op != "manifest" || got.Registry != "ghcr.io" {
		t.Errorf("re-classify = %+v", got)
	}
}

func TestKindString(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, k := range Kinds() {
		s := string(k)
		if s == "" || seen[s] || (phrase(k) == "failed" && k != Other) {
			t.Errorf("Kind %q: empty, repeated or without a phrase", s)
		}
		seen[s] = true
	}
	if got := phrase(Kind("Unheard")); got != "failed" {
		t.Errorf("unknown kind's phrase = %q", got)
	}
}

func TestErrorText(t *testing.T) {
	t.Parallel()
	e := &Error{Kind: RateLimited, Op: "manifest", Registry: "registry-1.docker.io", Repository: "library/nginx",
		Status: 429, Codes: []string{"TOOMANYREQUESTS"}, RetryAfter: 6 * time.Hour, detail: "You have reached your pull rate limit."}
	want := "manifest registry-1.docker.io/library/nginx: rate limited (HTTP 429, TOOMANYREQUESTS, retry after 6h0m0s): You have reached your pull rate limit."
	if got := e.Error(); got != want {
		t.Errorf("Error() = %q\nwant %q", got, want)
	}
	if h := adviceFor(e); !strings.Contains(h, "Retry-After 6h0m0s") || !strings.Contains(h, "limit:") {
		t.Errorf("Hint() = %q", h)
	}
	gh := &Error{Kind: Forbidden, Registry: "ghcr.io", Repository: "org/app"}
	if !strings.Contains(adviceFor(gh), "read:packages") {
		t.Errorf("GHCR hint = %q", adviceFor(gh))
	}
	if got := errtext.OneLine("a\nb\r\n\tc  d\x00e"); got != "a b c d e" {
		t.Errorf("oneLine = %q", got)
	}
	if got := []rune(errtext.OneLine(strings.Repeat("x", 1000))); len(got) != errtext.MaxDetail+1 {
		t.Errorf("oneLine did not truncate: %d runes", len(got))
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":                              0,
		"30":                            30 * time.Second,
		" 5 ":                           5 * time.Second,
		"-1":                            0,
		"soon":                          0,
		"Thu, 01 Jan 2026 00:01:00 GMT": time.Minute,
		"Wed, 31 Dec 2025 23:00:00 GMT": 0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestSecretsNeverLeak runs failures with canary credentials and checks
// that no message, hint or stats output repeats them.
func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	const user, pass = "CANARY-user-7f3a", "CANARY-pass-9c1e"
	wrong := startLab(t, labregistry.WithBasicAuth("someone", "else"))
	wrongToken := startLab(t, labregistry.WithTokenAuth("someone", "else"))
	denied := startLab(t, labregistry.WithBasicAuth(user, pass),
		labregistry.WithRepoBehaviour("app", labregistry.Behaviour{Status: http.StatusForbidden}))
	limited := startLab(t, labregistry.WithTokenAuth(user, pass),
		labregistry.WithRepoBehaviour("app", labregistry.Behaviour{Status: http.StatusTooManyRequests, RetryAfter: time.Minute}))
	tlsLab := startLab(t, labregistry.WithTLS(), labregistry.WithBasicAuth(user, pass))
	for _, s := range []*labregistry.Server{wrong, wrongToken, denied, limited, tlsLab} {
		push(t, s, "app", labregistry.Image{Tag: "1"})
	}
	creds := func(api string) Target { return Target{APIURL: api, Repository: "app", Username: user, Password: pass} }

	for _, tc := range []struct {
		name   string
		target Target
		want   Kind
	}{
		{"401 basic", creds(wrong.URL), Unauthorized},
		{"401 token", creds(wrongToken.URL), Unauthorized},
		{"403", creds(denied.URL), Forbidden},
		{"429", creds(limited.URL), RateLimited},
		{"tls", creds(tlsLab.URL), netclass.TLS},
		{"dns", creds("https://registry.invalid"), netclass.DNS},
		{"userinfo in api url", creds("https://" + user + ":" + pass + "@registry.invalid"), netclass.DNS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := New()
			ctx := testCtx(t)
			var texts []string
			check := func(err error) {
				e := wantKind(t, err, tc.want)
				texts = append(texts, e.Error(), adviceFor(e), fmt.Sprint(err), fmt.Sprintf("%+v", err))
			}
			if tc.want == netclass.TLS || tc.want == netclass.DNS { // /v2/ itself answers the others fine
				check(c.Ping(ctx, tc.target))
			}
			_, err := c.ListTags(ctx, tc.target)
			check(err)
			meta, err := c.Metadata(ctx, tc.target, []string{"1"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, meta["1"].Err, c.Stats().String(), fmt.Sprintf("%+v", c.Stats()))
			for _, s := range texts {
				if strings.Contains(s, user) || strings.Contains(s, pass) || strings.Contains(s, "CANARY") {
					t.Errorf("secret in output: %q", s)
				}
			}
		})
	}
}
