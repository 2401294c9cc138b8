package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/imgupd/imgupd/internal/bounded"
	"github.com/imgupd/imgupd/internal/errtext"
)

// pageSize is the n asked for per tag-list page; ECR refuses more than
// 1,000 (go-containerregistry uses the same).
const pageSize = 1000

// Bounds of one tag list (WithTagListLimits changes the first two). Image
// Updater itself has none: it reads every page into memory (distribution's
// tags.All), so a list past them costs its pod memory and cycle time too.
const (
	// DefaultMaxTags is far above real repositories (a busy CI repository
	// that tags every commit holds some tens of thousands) and far below
	// what would take imgupd's memory.
	DefaultMaxTags = 100_000
	// DefaultMaxTagListBytes bounds the JSON of every page together:
	// 100,000 tags of 128 characters, the longest a tag may be, are about
	// 13 MiB.
	DefaultMaxTagListBytes = 32 << 20
	// maxPages stops Link headers that never end with small pages, which
	// would take millions of pages to reach the byte bound; 100,000 tags
	// at even 10 a page fit.
	maxPages = 10_000
)

// WithTagListLimits bounds each ListTags: at most maxTags tags and maxBytes
// bytes of answers, all pages together (defaults DefaultMaxTags and
// DefaultMaxTagListBytes; 0 or less keeps the default). Past a bound
// ListTags stops reading and returns the tags read so far with a TooLarge
// *Error.
func WithTagListLimits(maxTags int, maxBytes int64) Option {
	return func(c *Client) {
		if maxTags > 0 {
			c.maxTags = maxTags
		}
		if maxBytes > 0 {
			c.maxTagBytes = maxBytes
		}
	}
}

// ListLimit is a tag list stopped at one of the Client's bounds: the error
// inside a TooLarge *Error, and its List.
type ListLimit struct {
	// Bound is the bound reached: "tags", "bytes" or "pages".
	Bound string `json:"bound"`
	// Max is that bound.
	Max int64 `json:"max"`
	// Tags, Bytes and Pages are what was read before stopping.
	Tags  int   `json:"tags"`
	Bytes int64 `json:"bytes"`
	Pages int   `json:"pages"`
}

// Over is the bound in words: "more than 100000 tags".
func (l *ListLimit) Over() string {
	switch l.Bound {
	case "bytes":
		return "more than " + sizeText(l.Max) + " of tag list"
	case "pages":
		return fmt.Sprintf("more than %d pages", l.Max)
	}
	return fmt.Sprintf("more than %d tags", l.Max)
}

// Error is "more than 100000 tags: imgupd stopped after 100000 tags (1.6
// MiB in 101 pages)".
func (l *ListLimit) Error() string {
	return fmt.Sprintf("%s: imgupd stopped after %d tags (%s in %d pages)", l.Over(), l.Tags, sizeText(l.Bytes), l.Pages)
}

// sizeText is n bytes in the largest binary unit that keeps a digit
// before the point: "32 MiB", "1.6 MiB", "900 B".
func sizeText(n int64) string {
	const unit = 1 << 10
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	suffix := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}[exp]
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d %s", int64(v), suffix)
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}

// ListTags returns every tag of the target's repository, in the order the
// registry gives them, following Link pagination to the last page.
//
// It paginates itself instead of calling remote.List: for registries on
// loopback or private addresses reached over https, remote.List rejects
// the registry's own next-page links (it expects http for those hosts).
// Requests go through go-containerregistry's authenticated transport, so
// basic and token auth behave exactly as in remote.List.
//
// Pages are decoded as they stream, within the Client's bounds
// (WithTagListLimits). Past a bound it returns the tags read so far and a
// TooLarge *Error whose List says where it stopped; on any other failure
// it returns no tags.
func (c *Client) ListTags(ctx context.Context, t Target) ([]string, error) {
	const op = "list tags"
	s, berr := c.repoSession(op, t)
	if berr != nil {
		return nil, berr
	}
	ctx, ra := withRetryAfter(ctx)
	rt, _, err := s.authenticated(ctx, c.userAgent)
	if err != nil {
		return nil, s.fail(op, err, ra)
	}
	hc := &http.Client{Transport: rt}
	next := &url.URL{
		Scheme:   s.apiURL.Scheme,
		Host:     s.apiURL.Host,
		Path:     fmt.Sprintf("/v2/%s/tags/list", s.repo.RepositoryStr()),
		RawQuery: fmt.Sprintf("n=%d", pageSize),
	}
	l := &tagList{tags: []string{}, maxTags: c.maxTags, maxBytes: c.maxTagBytes, left: c.maxTagBytes}
	for next != nil {
		if l.pages == maxPages {
			return l.tags, s.fail(op, l.limit("pages", maxPages), ra)
		}
		next, err = l.page(ctx, hc, next)
		var over *ListLimit
		switch {
		case errors.As(err, &over):
			return l.tags, s.fail(op, err, ra)
		case err != nil:
			return nil, s.fail(op, err, ra)
		}
	}
	// A fleet scan keeps every repository's list until its end (a million
	// tags at 5,000 apps): not the quarter more that append's growth left.
	if cap(l.tags)-len(l.tags) > len(l.tags)/16 {
		l.tags = slices.Clip(slices.Clone(l.tags))
	}
	return l.tags, nil
}

// tagList is one ListTags in progress: the tags so far and the budget
// left.
type tagList struct {
	tags     []string
	maxTags  int
	maxBytes int64
	left     int64 // bytes of the budget not yet read
	pages    int
}

// limit is the ListLimit for bound, with what was read.
func (l *tagList) limit(bound string, max int64) *ListLimit {
	return &ListLimit{Bound: bound, Max: max, Tags: len(l.tags), Bytes: l.maxBytes - l.left, Pages: l.pages}
}

// page GETs one page, decodes its tags as they stream in, and resolves its
// Link header, which must stay on the same scheme and host (a registry
// cannot send the client elsewhere).
func (l *tagList) page(ctx context.Context, hc *http.Client, u *url.URL) (*url.URL, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	l.pages++
	// Error answers are read by CheckError, bounded by go-containerregistry.
	if err := transport.CheckError(resp, http.StatusOK); err != nil {
		return nil, err
	}
	// Room for a page of tags at once: appended one by one, a list of a
	// thousand grew and was copied a dozen times (the end of ListTags trims
	// what a short page left).
	l.tags = slices.Grow(l.tags, min(pageSize, max(0, l.maxTags-len(l.tags))))
	body := &bounded.Reader{R: resp.Body, N: l.left, Over: errBudget}
	err = decodeTags(body, func(tag string) error {
		if len(l.tags) == l.maxTags {
			return l.limit("tags", int64(l.maxTags))
		}
		l.tags = append(l.tags, tag)
		return nil
	})
	l.left = body.N
	switch {
	case errors.Is(err, errBudget):
		return nil, l.limit("bytes", l.maxBytes)
	case err != nil:
		return nil, err
	}
	return nextPage(u, resp.Header.Get("Link"))
}

// errBudget is a read past the tag list's byte budget.
var errBudget = errors.New("tag list byte budget spent")

// nextPage parses `<url>; rel="next"` relative to the current page.
func nextPage(cur *url.URL, link string) (*url.URL, error) {
	if link == "" {
		return nil, nil
	}
	for part := range strings.SplitSeq(link, ",") {
		part = strings.TrimSpace(part)
		target, params, ok := strings.Cut(part, ";")
		target = strings.TrimSpace(target)
		if !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
			return nil, fmt.Errorf("malformed Link header %q", errtext.OneLine(link))
		}
		if ok && !strings.Contains(strings.ReplaceAll(params, " ", ""), `rel="next"`) &&
			!strings.Contains(strings.ReplaceAll(params, " ", ""), "rel=next") {
			continue
		}
		ref, err := url.Parse(target[1 : len(target)-1])
		if err != nil {
			return nil, fmt.Errorf("malformed Link header: %w", err)
		}
		next := cur.ResolveReference(ref)
		if next.Host != cur.Host || next.Scheme != cur.Scheme {
			return nil, errors.New("tag list Link header points to another host; refusing to follow")
		}
		if next.String() == cur.String() {
			return nil, errors.New("tag list Link header points to the same page")
		}
		return next, nil
	}
	return nil, nil
}
