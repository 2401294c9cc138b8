package labregistry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
)

// serveTags answers GET /v2/<repo>/tags/list as real registries do: tags
// sorted, those after `last`, at most n (and at most the page size), and a
// Link header to the next page while more remain. The wrapped registry
// honours n and last but sends no Link header, so clients would see only
// their first page.
func (s *Server) serveTags(w http.ResponseWriter, r *http.Request, repo string) {
	q := r.URL.Query()
	n := 0
	if v := q.Get("n"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "PAGINATION_NUMBER_INVALID", "invalid number of results requested")
			return
		}
	}
	limit := n
	if s.cfg.pageSize > 0 && (limit == 0 || limit > s.cfg.pageSize) {
		limit = s.cfg.pageSize
	}

	all, status, body := s.allTags(r, repo)
	if status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
		return
	}
	tags := all
	if last := q.Get("last"); last != "" {
		i := sort.SearchStrings(tags, last)
		for i < len(tags) && tags[i] <= last {
			i++
		}
		tags = tags[i:]
	}
	if limit > 0 && len(tags) > limit {
		tags = tags[:limit]
		next := url.Values{"last": {tags[len(tags)-1]}, "n": {strconv.Itoa(limit)}}
		w.Header().Set("Link", fmt.Sprintf(`</v2/%s/tags/list?%s>; rel="next"`, repo, next.Encode()))
	}
	if tags == nil {
		tags = []string{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(struct {
		Name string   `json:"name"`
		Tags []string `json:"tags"`
	}{repo, tags})
}

// allTags asks the wrapped registry for every tag of repo, sorted.
func (s *Server) allTags(r *http.Request, repo string) ([]string, int, []byte) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, "/v2/"+repo+"/tags/list", nil)
	if err != nil {
		return nil, http.StatusInternalServerError, nil
	}
	cw := newCaptureWriter()
	s.inner.ServeHTTP(cw, req)
	lazy := s.lazyTags(repo) // PushLazy's tags, pushed or not
	if cw.status != http.StatusOK {
		if lazy != nil {
			return lazy, http.StatusOK, nil
		}
		return nil, cw.status, cw.body.Bytes()
	}
	var list struct {
		Tags []string `json:"tags"`
	}
	if err := json.Unmarshal(cw.body.Bytes(), &list); err != nil {
		return nil, http.StatusInternalServerError, nil
	}
	sort.Strings(list.Tags)
	all := mergeTags(list.Tags, lazy)
	if b, ok := s.cfg.behaviours[repo]; ok && len(b.ExtraTags) > 0 {
		all = mergeTags(all, slices.Sorted(slices.Values(b.ExtraTags)))
	}
	return all, http.StatusOK, nil
}

// captureWriter is an in-memory http.ResponseWriter for calling the wrapped
// registry without a network round trip.
type captureWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newCaptureWriter() *captureWriter {
	return &captureWriter{header: http.Header{}, status: http.StatusOK}
}

func (c *captureWriter) Header() http.Header         { return c.header }
func (c *captureWriter) Write(b []byte) (int, error) { return c.body.Write(b) }
func (c *captureWriter) WriteHeader(status int)      { c.status = status }
