package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/imgupd/imgupd/diagnostics/internal/errtext"
)

// pageSize is the n asked for per tag-list page; ECR refuses more than
// 1,000 (go-containerregistry uses the same).
const pageSize = 1000

// maxPages stops a registry whose Link headers loop.
const maxPages = 100_000

// ListTags returns every tag of the target's repository, in the order the
// registry gives them, following Link pagination to the last page.
//
// It paginates itself instead of calling remote.List: for registries on
// loopback or private addresses reached over https, remote.List rejects
// the registry's own next-page links (it expects http for those hosts).
// Requests go through go-containerregistry's authenticated transport, so
// basic and token auth behave exactly as in remote.List.
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
	tags := []string{}
	for page := 0; next != nil; page++ {
		if page == maxPages {
			return nil, s.fail(op, fmt.Errorf("more than %d pages of tags: the registry's Link headers loop", maxPages), ra)
		}
		var pageTags []string
		pageTags, next, err = listPage(ctx, hc, next)
		if err != nil {
			return nil, s.fail(op, err, ra)
		}
		tags = append(tags, pageTags...)
	}
	return tags, nil
}

// listPage GETs one page and resolves its Link header, which must stay on
// the same scheme and host (a registry cannot send the client elsewhere).
func listPage(ctx context.Context, hc *http.Client, u *url.URL) ([]string, *url.URL, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if err := transport.CheckError(resp, http.StatusOK); err != nil {
		return nil, nil, err
	}
	var body struct {
		Tags []string `json:"tags"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&body); err != nil {
		return nil, nil, fmt.Errorf("decoding tag list: %w", err)
	}
	next, err := nextPage(u, resp.Header.Get("Link"))
	if err != nil {
		return nil, nil, err
	}
	return body.Tags, next, nil
}

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
