package labgit

import (
	"net/http"
	"sync"
)

// RequestCounts are the requests that reached the server since Start or
// the last ResetRequests, by service. Requests refused by the server's own
// authentication are counted by service too, and also in Unauthorized or
// Forbidden.
type RequestCounts struct {
	// InfoRefs is ref advertisements for fetches
	// (GET info/refs?service=git-upload-pack).
	InfoRefs int
	// PushInfoRefs is ref advertisements for pushes
	// (GET info/refs?service=git-receive-pack).
	PushInfoRefs int
	// UploadPack is POST git-upload-pack: fetches and clones that asked
	// for objects.
	UploadPack int
	// ReceivePack is POST git-receive-pack: pushes that sent commands.
	ReceivePack int
	// Other is anything else (dumb-HTTP paths, unknown URLs).
	Other int
	// Unauthorized counts 401 answers (missing or wrong credentials).
	Unauthorized int
	// Forbidden counts 403 answers (a read-only user asking to push).
	Forbidden int
}

// Total is the number of requests of every service.
func (c RequestCounts) Total() int {
	return c.InfoRefs + c.PushInfoRefs + c.UploadPack + c.ReceivePack + c.Other
}

// Requests returns a snapshot of the request counts.
func (s *Server) Requests() RequestCounts {
	s.counter.mu.Lock()
	defer s.counter.mu.Unlock()
	return s.counter.counts
}

// ResetRequests sets every count back to zero.
func (s *Server) ResetRequests() {
	s.counter.mu.Lock()
	defer s.counter.mu.Unlock()
	s.counter.counts = RequestCounts{}
	s.counter.auths = nil
}

type requestCounter struct {
	mu     sync.Mutex
	counts RequestCounts
	// auths are the distinct Authorization header values seen.
	auths map[string]bool
}

// Authorizations returns every distinct Authorization header value that
// reached the server (git and forge API paths alike) since Start or the
// last ResetRequests: a test proves with it which credentials a client
// sent here.
func (s *Server) Authorizations() []string {
	s.counter.mu.Lock()
	defer s.counter.mu.Unlock()
	out := make([]string, 0, len(s.counter.auths))
	for a := range s.counter.auths {
		out = append(out, a)
	}
	return out
}

// sawAuthorization records the request's Authorization header.
func (rc *requestCounter) sawAuthorization(r *http.Request) {
	a := r.Header.Get("Authorization")
	if a == "" {
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.auths == nil {
		rc.auths = map[string]bool{}
	}
	rc.auths[a] = true
}

// count records one request; status is the server's own refusal (401,
// 403) or 0 when the request went to git-http-backend.
func (rc *requestCounter) count(svc service, status int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	switch svc {
	case svcInfoRefsUpload:
		rc.counts.InfoRefs++
	case svcInfoRefsReceive:
		rc.counts.PushInfoRefs++
	case svcUploadPack:
		rc.counts.UploadPack++
	case svcReceivePack:
		rc.counts.ReceivePack++
	default:
		rc.counts.Other++
	}
	switch status {
	case http.StatusUnauthorized:
		rc.counts.Unauthorized++
	case http.StatusForbidden:
		rc.counts.Forbidden++
	}
}
