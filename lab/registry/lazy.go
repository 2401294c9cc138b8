package labregistry

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// lazyRepos are the images registered with PushLazy and not pushed yet.
type lazyRepos struct {
	mu    sync.Mutex
	repos map[string]*lazyRepo
}

type lazyRepo struct {
	images map[string]Image    // tag → image, until it is pushed
	bases  map[string]v1.Image // tag → the base image of the PushLazy call that registered it
	known  map[string]bool     // every tag registered (pushed or not)
	// tags are the known tags, sorted; replaced, never changed in place,
	// so a tag list being served keeps its copy.
	tags []string
}

// PushLazy registers images in repo as Push would store them, but pushes
// each one only when a client first asks for it by tag (GET or HEAD of
// /v2/<repo>/manifests/<tag>); the tag list names every registered tag at
// once. A client sees the same registry as after Push: the tags are
// listed, sorted and paginated alike, and the manifest, config and layer
// of a tag it pulls are those Push would have made (the same layer for
// every image of one call, the config with Created, platform and
// LabelTag). What differs is only the cost: 150 repositories of 2,000
// tags register in milliseconds and take memory only for the tags pulled,
// which is what a fleet benchmark needs when the strategy (semver) reads
// no manifest. A digest is known only once its tag was pulled, as it is
// only from a manifest that a client learns one. A tag pushed with Push
// later wins over the registered one; /v2/_catalog lists a repository
// once one of its tags was pushed.
func (s *Server) PushLazy(ctx context.Context, repo string, images ...Image) error {
	layer, err := random.Layer(64, types.OCILayer)
	if err != nil {
		return fmt.Errorf("labregistry: push %s: layer: %w", repo, err)
	}
	base, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return fmt.Errorf("labregistry: push %s: base image: %w", repo, err)
	}
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	if err := s.putBlob(ctx, repo, layer); err != nil {
		return fmt.Errorf("labregistry: push %s: layer: %w", repo, err)
	}
	s.lazy.mu.Lock()
	defer s.lazy.mu.Unlock()
	if s.lazy.repos == nil {
		s.lazy.repos = map[string]*lazyRepo{}
	}
	lr := s.lazy.repos[repo]
	if lr == nil {
		lr = &lazyRepo{images: map[string]Image{}, bases: map[string]v1.Image{}, known: map[string]bool{}}
		s.lazy.repos[repo] = lr
	}
	var added []string
	for _, im := range images {
		if im.Tag == "" {
			return fmt.Errorf("labregistry: push %s: an image has no tag", repo)
		}
		if im.SameAs != "" && !lr.known[im.SameAs] {
			if _, err := s.getManifest(ctx, repo, im.SameAs); err != nil {
				return fmt.Errorf("labregistry: push %s:%s: same as %s: %w", repo, im.Tag, im.SameAs, err)
			}
		}
		if !lr.known[im.Tag] {
			lr.known[im.Tag] = true
			added = append(added, im.Tag)
		}
		lr.images[im.Tag] = im
		lr.bases[im.Tag] = base
	}
	sort.Strings(added)
	lr.tags = mergeTags(lr.tags, added)
	return nil
}

// lazyTags are the tags registered for repo with PushLazy, sorted (nil
// when none).
func (s *Server) lazyTags(repo string) []string {
	s.lazy.mu.Lock()
	defer s.lazy.mu.Unlock()
	if lr := s.lazy.repos[repo]; lr != nil {
		return lr.tags
	}
	return nil
}

// materialize pushes the registered image a manifest request names by
// tag, before the wrapped registry answers it.
func (s *Server) materialize(r *http.Request, repo string) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return nil
	}
	i := strings.LastIndex(r.URL.Path, "/manifests/")
	if i < 0 {
		return nil
	}
	s.lazy.mu.Lock()
	defer s.lazy.mu.Unlock()
	return s.materializeLocked(r.Context(), repo, r.URL.Path[i+len("/manifests/"):], 0)
}

func (s *Server) materializeLocked(ctx context.Context, repo, tag string, depth int) error {
	lr := s.lazy.repos[repo]
	if lr == nil {
		return nil
	}
	im, ok := lr.images[tag]
	if !ok {
		return nil
	}
	if depth > len(lr.images) {
		return fmt.Errorf("labregistry: %s:%s: SameAs cycle", repo, tag)
	}
	// A tag pushed with Push since it was registered wins.
	if _, err := s.getManifest(ctx, repo, tag); err == nil {
		delete(lr.images, tag)
		return nil
	}
	if im.SameAs != "" {
		if err := s.materializeLocked(ctx, repo, im.SameAs, depth+1); err != nil {
			return err
		}
	}
	if _, err := s.pushOne(ctx, repo, lr.bases[tag], im, nil); err != nil {
		return fmt.Errorf("labregistry: push %s:%s: %w", repo, tag, err)
	}
	delete(lr.images, tag)
	delete(lr.bases, tag)
	return nil
}

// mergeTags is the union of two sorted tag lists, sorted.
func mergeTags(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}
