package helmchart

import (
	"errors"
	"net/http"
)

// maxRedirects is net/http's own limit.
const maxRedirects = 10

// credentialsStayOnHost is the CheckRedirect of a session's client: the
// repository's Basic credentials, which get sets on the request, go to the
// scheme and host:port they were set for and nowhere else. net/http copies
// them onto a redirect to the same host name on any port and to its
// subdomains; Helm's getter does too, imgupd does not: a redirect to
// another origin is followed without them (each hop is compared with the
// first request, which net/http rebuilds every hop from).
func credentialsStayOnHost(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return errors.New("stopped after 10 redirects")
	}
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		req.Header.Del("Authorization")
	}
	return nil
}
