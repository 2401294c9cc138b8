package labregistry

import (
	"net/http"
	"sync"
)

type kind int

const (
	kindPing kind = iota
	kindTags
	kindManifest
	kindBlob
	kindToken
	kindOther
	// kindReferrers is the OCI referrers API; counted as Other.
	kindReferrers
)

// RequestCounts are the requests that reached the server since Start or
// the last ResetRequests, by kind. Pushes made with Server.Push do not go
// over the network and are not counted.
type RequestCounts struct {
	Ping     int // GET /v2/
	Tags     int // tag-list pages
	Manifest int // manifests (GET or HEAD, by tag or digest)
	Blob     int // blobs (configs and layers)
	Token    int // GET /token (WithTokenAuth)
	Other    int // anything else
	// Blobs counts blob requests by digest, to tell which config was read.
	Blobs map[string]int
	// MaxInFlight is the largest number of requests the server was
	// handling at one time.
	MaxInFlight int
}

// Total is the number of requests of every kind.
func (c RequestCounts) Total() int {
	return c.Ping + c.Tags + c.Manifest + c.Blob + c.Token + c.Other
}

// Requests returns a snapshot of the request counts.
func (s *Server) Requests() RequestCounts {
	s.counter.mu.Lock()
	defer s.counter.mu.Unlock()
	c := s.counter.counts
	c.Blobs = make(map[string]int, len(s.counter.counts.Blobs))
	for k, v := range s.counter.counts.Blobs {
		c.Blobs[k] = v
	}
	return c
}

// ResetRequests sets every count, and MaxInFlight, back to zero.
func (s *Server) ResetRequests() {
	s.counter.mu.Lock()
	defer s.counter.mu.Unlock()
	s.counter.counts = RequestCounts{MaxInFlight: s.counter.inFlight}
	s.counter.auths = nil
}

type requestCounter struct {
	mu       sync.Mutex
	counts   RequestCounts
	inFlight int
	// auths are the distinct Authorization header values seen.
	auths map[string]bool
}

// Authorizations returns every distinct Authorization header value that
// reached the server (the token endpoint included) since Start or the last
// ResetRequests: a test proves with it which credentials a client sent here.
func (s *Server) Authorizations() []string {
	s.counter.mu.Lock()
	defer s.counter.mu.Unlock()
	out := make([]string, 0, len(s.counter.auths))
	for a := range s.counter.auths {
		out = append(out, a)
	}
	return out
}

// begin counts r and marks it in flight until the returned func is called.
func (rc *requestCounter) begin(r *http.Request) (done func()) {
	k := kindToken
	if r.URL.Path != "/token" {
		var repoKind kind
		_, repoKind = splitPath(r.URL.Path)
		k = repoKind
		if r.URL.Path != "/v2/" && r.URL.Path != "/v2" && k == kindPing {
			k = kindOther
		}
	}
	rc.mu.Lock()
	if a := r.Header.Get("Authorization"); a != "" {
		if rc.auths == nil {
			rc.auths = map[string]bool{}
		}
		rc.auths[a] = true
	}
	switch k {
	case kindPing:
		rc.counts.Ping++
	case kindTags:
		rc.counts.Tags++
	case kindManifest:
		rc.counts.Manifest++
	case kindBlob:
		rc.counts.Blob++
		if rc.counts.Blobs == nil {
			rc.counts.Blobs = map[string]int{}
		}
		rc.counts.Blobs[lastElem(r.URL.Path)]++
	case kindToken:
		rc.counts.Token++
	default:
		rc.counts.Other++
	}
	rc.inFlight++
	if rc.inFlight > rc.counts.MaxInFlight {
		rc.counts.MaxInFlight = rc.inFlight
	}
	rc.mu.Unlock()
	return func() {
		rc.mu.Lock()
		rc.inFlight--
		rc.mu.Unlock()
	}
}

func lastElem(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
