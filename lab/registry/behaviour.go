package labregistry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
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
	// Only limits the behaviour to "tags" (tag lists), "manifests",
	// "blobs" (image configs and layers) or "referrers" (the OCI referrers
	// API); "" or "all" applies it to every request of the repository.
	Only string
	// Tags, when set, limits the behaviour to the requests that read these
	// tags: their manifests (by tag, or by the digest of the tag's
	// manifest or of an index child), their images' config blobs and
	// layers, and the referrers of their digests. Tag lists and the
	// requests of other tags are served. An account that may read some
	// tags and not others, or a rate limit that refuses some requests.
	Tags []string
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
		return k == kindTags || k == kindManifest || k == kindBlob || k == kindReferrers || k == kindOther
	case "tags":
		return k == kindTags
	case "manifests":
		return k == kindManifest
	case "blobs":
		return k == kindBlob
	case "referrers":
		return k == kindReferrers
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

// readsTags reports whether r reads one of tags (all requests when tags is
// empty): a manifest by one of those tags, or by the digest of their
// manifests or index children; a blob of their images (its config; the one layer every lab
// image shares is left out, so that the other tags stay readable); the referrers of one of their digests. Tag lists
// never read a tag.
func (s *Server) readsTags(r *http.Request, repo string, k kind, tags []string) bool {
	if len(tags) == 0 {
		return true
	}
	ref := lastElem(r.URL.Path)
	switch k {
	case kindManifest:
		if slices.Contains(tags, ref) {
			return true
		}
		return s.tagDigests(r.Context(), repo, tags).manifests[ref]
	case kindBlob:
		return s.tagDigests(r.Context(), repo, tags).configs[ref]
	case kindReferrers:
		return s.tagDigests(r.Context(), repo, tags).manifests[ref]
	}
	return false
}

// digestSet is what a set of tags points at: manifest digests (the tag's
// own and an index's children) and their config digests.
type digestSet struct {
	manifests, configs map[string]bool
}

// tagDigests reads the tags' manifests in-process (past behaviours and
// counting); tags that do not exist add nothing.
func (s *Server) tagDigests(ctx context.Context, repo string, tags []string) digestSet {
	ds := digestSet{manifests: map[string]bool{}, configs: map[string]bool{}}
	var add func(ref string, depth int)
	add = func(ref string, depth int) {
		m, err := s.getManifest(ctx, repo, ref)
		if err != nil || depth > 2 {
			return
		}
		ds.manifests[v1.Hash{Algorithm: "sha256", Hex: sha256Hex(m.body)}.String()] = true
		if m.mediaType.IsIndex() {
			idx, err := v1.ParseIndexManifest(bytes.NewReader(m.body))
			if err != nil {
				return
			}
			for _, c := range idx.Manifests {
				ds.manifests[c.Digest.String()] = true
				add(c.Digest.String(), depth+1)
			}
			return
		}
		mf, err := v1.ParseManifest(bytes.NewReader(m.body))
		if err != nil {
			return
		}
		ds.configs[mf.Config.Digest.String()] = true
	}
	for _, t := range tags {
		add(t, 0)
	}
	return ds
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
