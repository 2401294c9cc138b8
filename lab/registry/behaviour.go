package labregistry

import (
	"net/http"
	"strconv"
	"time"
)

// Behaviour is a failure or delay injected into one repository's requests,
// after authentication succeeded.
type Behaviour struct {
	// Status, when non-zero, answers with this HTTP status and the
	// matching registry error code (401 UNAUTHORIZED, 403 DENIED, 404
	// NAME_UNKNOWN, 429 TOOMANYREQUESTS, others UNKNOWN) instead of
	// serving the request.
	Status int
	// RetryAfter sets a Retry-After header (whole seconds) on that answer.
	RetryAfter time.Duration
	// Delay holds each request this long before answering (or serving it,
	// when Status is 0). A client that gives up earlier is let go.
	Delay time.Duration
	// Only limits the behaviour to "tags" (tag lists) or "manifests";
	// "" or "all" applies it to every request of the repository.
	Only string
	// Message replaces the registry error's message in a Status answer: a
	// registry (or a proxy in front of it) writes what it likes there.
	Message string
	// ExtraTags are listed in the repository's tag lists besides the tags
	// it holds, as a broken or hostile registry may list any string; they
	// have no manifest.
	ExtraTags []string
}

func (b Behaviour) applies(k kind) bool {
	switch b.Only {
	case "", "all":
		return k == kindTags || k == kindManifest || k == kindBlob || k == kindOther
	case "tags":
		return k == kindTags
	case "manifests":
		return k == kindManifest
	}
	return false
}

// serve applies the behaviour; it reports whether it answered the request.
func (b Behaviour) serve(w http.ResponseWriter, r *http.Request) bool {
	if b.Delay > 0 && !sleepCtx(r.Context(), b.Delay) {
		return true // the client went away
	}
	if b.Status == 0 {
		return false
	}
	if b.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((b.RetryAfter+time.Second-1)/time.Second)))
	}
	code, msg := "UNKNOWN", http.StatusText(b.Status)
	switch b.Status {
	case http.StatusUnauthorized:
		code, msg = "UNAUTHORIZED", "authentication required"
	case http.StatusForbidden:
		code, msg = "DENIED", "requested access to the resource is denied"
	case http.StatusNotFound:
		code, msg = "NAME_UNKNOWN", "repository name not known to registry"
	case http.StatusTooManyRequests:
		code, msg = "TOOMANYREQUESTS", "you have reached your pull rate limit"
	}
	if b.Message != "" {
		msg = b.Message
	}
	writeError(w, b.Status, code, msg)
	return true
}
