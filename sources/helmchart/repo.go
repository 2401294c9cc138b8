package helmchart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/imgupd/imgupd/internal/errtext"
)

// helmRepo reads a chart from a classic repository the way the repo-server
// does: its own GET of <repoURL>/index.yaml (basic credentials when a
// username or password is set), version resolution, then what `helm pull
// --repo` does for the archive (credentials only to the repository's own
// scheme and host unless passCredentials, and only when both username and
// password are set: Helm's HTTPGetter).
func (s *session) helmRepo(ctx context.Context, src Source) (*Chart, error) {
	repo, err := url.Parse(src.RepoURL)
	if err != nil || (repo.Scheme != "http" && repo.Scheme != "https") || repo.Host == "" {
		return nil, invalidRepoURL(src.RepoURL)
	}

	idxURL := indexURL(repo)
	sendIdx := s.auth.hasCreds()
	ie := &Error{Op: "index", URL: redactURL(idxURL), Host: repo.Host, CredentialsSent: sendIdx}
	body, err := s.get(ctx, idxURL, sendIdx, "index.yaml")
	if err != nil {
		return nil, classify(ie, err, NotAHelmRepo)
	}
	idx, err := parseIndexFor(body, src.Chart)
	var tl *tooLargeError
	if errors.As(err, &tl) {
		return nil, classify(ie, err, NotAHelmRepo)
	}
	if err != nil {
		ie.Kind, ie.Err, ie.detail = NotAHelmRepo, err, errtext.OneLine(err.Error())
		return nil, ie
	}
	entry, found, err := idx.resolve(src.Chart, src.TargetRevision)
	switch {
	case !found:
		ie.Kind, ie.detail = ChartNotFound, fmt.Sprintf("index.yaml has no chart %q", src.Chart)
		return nil, ie
	case err != nil:
		vs, _ := idx.versions(src.Chart)
		ie.Kind, ie.Err = VersionNotFound, err
		ie.detail = fmt.Sprintf("no version of %s matches %q", src.Chart, src.TargetRevision)
		ie.Versions, ie.MoreVersions = newestFirst(vs, maxListedVersions)
		return nil, ie
	case len(entry.URLs) == 0:
		ie.Kind, ie.Version = BadChart, entry.Version
		ie.detail = fmt.Sprintf("index.yaml lists no URL for %s %s", src.Chart, entry.Version)
		return nil, ie
	}

	chartURL, err := resolveReference(repo, entry.URLs[0])
	if err != nil {
		ie.Kind, ie.Version, ie.Err = NotAHelmRepo, entry.Version, err
		ie.detail = fmt.Sprintf("index.yaml lists an unparsable URL for %s %s", src.Chart, entry.Version)
		return nil, ie
	}
	sameHost := chartURL.Scheme == repo.Scheme && chartURL.Host == repo.Host
	send := (sameHost || s.auth.PassCredentials) && s.auth.Username != "" && !s.auth.Password.IsEmpty()
	ref := redactURL(chartURL)
	de := &Error{Op: "download", URL: ref, Host: chartURL.Host, Version: entry.Version, CredentialsSent: send, CrossHost: !sameHost}
	tgz, err := s.get(ctx, chartURL, send, "the chart archive")
	if err != nil {
		return nil, classify(de, err, ChartNotFound)
	}

	dir := chartDir(src.Chart)
	want := dir + "/values.yaml"
	a, err := scanArchive(bytes.NewReader(tgz), true, func(n string) bool { return n == want }, s.c.maxBytes, s.c.maxBytes)
	if err == nil {
		var values []byte
		if values, err = chartValues(a, dir); err == nil {
			return &Chart{Name: src.Chart, Version: entry.Version, Values: values, ValuesPath: want, Kind: KindHelmRepo, Ref: ref}, nil
		}
	}
	return nil, classify(de, err, BadChart)
}

func invalidRepoURL(raw string) *Error {
	e := &Error{Kind: InvalidSource, Op: "source", URL: redactRaw(raw)}
	if raw == "" {
		e.detail = "spec.source.repoURL is empty"
		return e
	}
	if !strings.Contains(raw, "://") {
		// e.g. 127.0.0.1:5000/charts: url.Parse refuses a colon in the first
		// path segment, so Argo CD does not see an OCI registry there.
		e.detail = fmt.Sprintf("repoURL %q has no scheme but is not a registry host Argo CD recognises: for an OCI registry set enableOCI: true in the repository Secret (or use oci:// in Argo CD 3.1+), for a classic repository add https://", e.URL)
		return e
	}
	e.detail = fmt.Sprintf("repoURL %q is not an http(s):// chart repository URL", e.URL)
	return e
}

// indexURL is Argo CD's getIndexURL: index.yaml path-joined onto the
// repository URL, keeping its path and query.
func indexURL(repo *url.URL) *url.URL {
	u := *repo
	u.Path = path.Join(u.Path, "index.yaml")
	if u.RawPath != "" {
		u.RawPath = path.Join(u.RawPath, "index.yaml")
	}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path
	}
	return &u
}

// resolveReference is Helm's repo.ResolveReferenceURL: an absolute chart
// URL as it is; a relative one against the repository URL with a trailing
// slash, keeping the repository URL's query (some repositories sign it).
func resolveReference(repo *url.URL, ref string) (*url.URL, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return nil, err
	}
	if r.IsAbs() {
		return r, nil
	}
	base := *repo
	base.RawPath = strings.TrimSuffix(base.RawPath, "/") + "/"
	base.Path = strings.TrimSuffix(base.Path, "/") + "/"
	out := base.ResolveReference(r)
	out.RawQuery = base.RawQuery
	return out, nil
}

// maxErrorBody bounds what is read of an error answer.
const maxErrorBody = 512

// get reads u, with basic credentials when creds, and at most the
// client's byte limit.
func (s *session) get(ctx context.Context, u *url.URL, creds bool, what string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), http.NoBody)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	if creds {
		req.SetBasicAuth(s.auth.Username, s.auth.Password.Reveal())
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, &statusError{status: resp.StatusCode, body: errtext.OneLine(string(b))}
	}
	limit := s.c.maxBytes
	if resp.ContentLength > limit {
		return nil, &tooLargeError{what: fmt.Sprintf("%s (%d bytes)", what, resp.ContentLength), limit: limit}
	}
	return readBounded(resp.Body, limit, what)
}

// readBounded reads r whole, at most limit bytes, in chunks joined once at
// the end: io.ReadAll's growing buffer held some 2.5 times the limit while
// an endless answer filled it.
func readBounded(r io.Reader, limit int64, what string) ([]byte, error) {
	const chunk = 1 << 20
	var (
		chunks [][]byte
		n      int64
	)
	for {
		c := make([]byte, min(chunk, limit+1-n))
		m, err := io.ReadFull(r, c)
		chunks = append(chunks, c[:m])
		n += int64(m)
		switch {
		case n > limit:
			return nil, &tooLargeError{what: what, limit: limit}
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return bytes.Join(chunks, nil), nil
		case err != nil:
			return nil, err
		}
	}
}
