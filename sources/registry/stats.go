package registry

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
)

// Stats counts the HTTP requests a Client sent, by kind. Retries and
// token fetches are separate requests and counted as such.
type Stats struct {
	Ping      int64 // GET /v2/ (Ping, and the handshake before authenticated calls)
	TagPages  int64 // tag-list pages
	Manifests int64 // manifest and index GETs
	Blobs     int64 // config (and any other blob) GETs
	Auth      int64 // requests outside /v2/: token servers
	Other     int64
}

// Total is the number of requests of every kind.
func (s Stats) Total() int64 {
	return s.Ping + s.TagPages + s.Manifests + s.Blobs + s.Auth + s.Other
}

func (s Stats) String() string {
	return fmt.Sprintf("%d requests (ping %d, tag pages %d, manifests %d, blobs %d, auth %d, other %d)",
		s.Total(), s.Ping, s.TagPages, s.Manifests, s.Blobs, s.Auth, s.Other)
}

// Stats returns the requests made so far by this Client.
func (c *Client) Stats() Stats {
	return Stats{
		Ping:      c.stats.ping.Load(),
		TagPages:  c.stats.tags.Load(),
		Manifests: c.stats.manifests.Load(),
		Blobs:     c.stats.blobs.Load(),
		Auth:      c.stats.auth.Load(),
		Other:     c.stats.other.Load(),
	}
}

type stats struct {
	ping, tags, manifests, blobs, auth, other atomic.Int64
}

func (s *stats) count(req *http.Request) {
	p := req.URL.Path
	switch {
	case p == "/v2/" || p == "/v2":
		s.ping.Add(1)
	case !strings.HasPrefix(p, "/v2/"):
		s.auth.Add(1)
	case strings.HasSuffix(p, "/tags/list"):
		s.tags.Add(1)
	case strings.Contains(p, "/manifests/"):
		s.manifests.Add(1)
	case strings.Contains(p, "/blobs/"):
		s.blobs.Add(1)
	default:
		s.other.Add(1)
	}
}
