package labregistry

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Endless is a registry API whose tag lists never end, for tests of a
// client's bounds: a hostile or broken registry. GET /v2/ answers 200;
// GET /v2/<repo>/tags/list (any repository) answers
//
//   - without Links: one page whose tags array never closes, streamed until
//     the client hangs up;
//   - with Links: pages of PageSize tags, each with a Link header to the
//     next one, for ever (the page number travels in the "last" parameter).
//
// Everything else is 404. It serves from a reused buffer, so what it costs
// the test process does not grow with what it sends.
type Endless struct {
	// Links serves endless Link pages instead of one endless page.
	Links bool
	// PageSize is the number of tags of each Link page (default 1,000).
	PageSize int
	// Tag is the fmt format of the n-th tag, n counting from 0 (default
	// "1.0.%d"); it gets one int argument.
	Tag string
}

// ServeHTTP implements http.Handler.
func (e Endless) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/v2/" || r.URL.Path == "/v2":
		w.WriteHeader(http.StatusOK)
		return
	case !strings.HasPrefix(r.URL.Path, "/v2/") || !strings.HasSuffix(r.URL.Path, "/tags/list"):
		writeError(w, http.StatusNotFound, "NAME_UNKNOWN", "repository name not known to registry")
		return
	}
	repo := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v2/"), "/tags/list")
	format := e.Tag
	if format == "" {
		format = "1.0.%d"
	}
	w.Header().Set("Content-Type", "application/json")
	if !e.Links {
		e.endlessPage(w, r, repo, format)
		return
	}
	size := e.PageSize
	if size <= 0 {
		size = 1000
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("last"))
	w.Header().Set("Link", fmt.Sprintf(`</v2/%s/tags/list?last=%d&n=%d>; rel="next"`, repo, page+1, size))
	buf := make([]byte, 0, 32<<10)
	buf = append(buf, `{"name":`...)
	buf = strconv.AppendQuote(buf, repo)
	buf = append(buf, `,"tags":[`...)
	for i := range size {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendQuote(buf, fmt.Sprintf(format, page*size+i))
	}
	buf = append(buf, "]}"...)
	_, _ = w.Write(buf)
}

// endlessPage writes one tags array that never closes.
func (e Endless) endlessPage(w http.ResponseWriter, r *http.Request, repo, format string) {
	buf := make([]byte, 0, 32<<10)
	buf = append(buf, `{"name":`...)
	buf = strconv.AppendQuote(buf, repo)
	buf = append(buf, `,"tags":[`...)
	for n := 0; r.Context().Err() == nil; {
		for len(buf) < 31<<10 {
			if n > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '"')
			buf = fmt.Appendf(buf, format, n)
			buf = append(buf, '"')
			n++
		}
		if _, err := w.Write(buf); err != nil {
			return
		}
		buf = buf[:0]
	}
}
