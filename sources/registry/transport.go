package registry

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/imgupd/imgupd/internal/bounded"
)

// countingTransport is the base of every session's transport, under
// go-containerregistry's authentication. It
//   - refuses a /v2/ ping of the registry host in the scheme the target
//     does not use: go-containerregistry's handshake races https against
//     http for loopback, private and http:// registries, and the
//     configured scheme is the only one Image Updater uses (the refused
//     racer sends nothing, so the other one starts at once),
//   - waits for the rate limiter,
//   - counts requests by kind,
//   - records a 429 answer's Retry-After for the operation that asked.
type countingTransport struct {
	inner   http.RoundTripper
	host    string
	scheme  string
	stats   *stats
	limiter *rate.Limiter
	// hostLimiter is the registry's own limit (registries.conf limit:),
	// shared by every target on the same host.
	hostLimiter *rate.Limiter
}

// errSchemeNotUsed is the refused racer's error. It only ever appears next
// to the error of the configured scheme, which decides the classification.
var errSchemeNotUsed = errors.New("scheme not configured for this registry")

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host == t.host && req.URL.Scheme != t.scheme && (req.URL.Path == "/v2/" || req.URL.Path == "/v2") {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, errSchemeNotUsed
	}
	for _, l := range []*rate.Limiter{t.hostLimiter, t.limiter} {
		if l == nil {
			continue
		}
		if err := l.Wait(req.Context()); err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
	}
	t.stats.count(req)
	resp, err := t.inner.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		if ra := retryAfterFrom(req.Context()); ra != nil {
			ra.set(parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()))
		}
	}
	if err == nil && strings.Contains(req.URL.Path, "/manifests/") {
		// go-containerregistry reads a manifest up to 100 MiB, eight tags
		// at a time here.
		resp.Body = bounded.ReadCloser(resp.Body, maxManifestBytes, &BlobLimit{What: "the manifest at " + req.URL.Path, Max: maxManifestBytes})
	}
	return resp, err
}

// maxManifestBytes bounds a manifest or index: the OCI distribution spec
// asks registries to accept 4 MiB; real ones are a few KiB.
const maxManifestBytes = 4 << 20

// parseRetryAfter reads delta-seconds or an HTTP date; 0 if absent or bad.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now).Round(time.Second)
	}
	return 0
}

// retryAfterRecorder carries a 429's Retry-After from the transport back to
// the operation, because go-containerregistry's transport.Error keeps the
// request but not the response headers.
type retryAfterRecorder struct {
	mu sync.Mutex
	d  time.Duration
}

func (r *retryAfterRecorder) set(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d > 0 {
		r.d = d
	}
}

func (r *retryAfterRecorder) get() time.Duration {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.d
}

type retryAfterKey struct{}

func withRetryAfter(ctx context.Context) (context.Context, *retryAfterRecorder) {
	r := &retryAfterRecorder{}
	return context.WithValue(ctx, retryAfterKey{}, r), r
}

func retryAfterFrom(ctx context.Context) *retryAfterRecorder {
	r, _ := ctx.Value(retryAfterKey{}).(*retryAfterRecorder)
	return r
}
