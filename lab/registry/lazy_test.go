package labregistry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/imgupd/imgupd/model/updater"
)

// TestPushLazyAnswersAsPush: a registry filled with PushLazy answers tag
// lists (paginated), manifests by tag (GET and HEAD), configs and indexes
// as one filled with Push does; only the pulled tags are ever pushed.
func TestPushLazyAnswersAsPush(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	created := time.Date(2025, 5, 1, 8, 0, 0, 0, time.UTC)
	var imgs []Image
	for i := range 2500 {
		imgs = append(imgs, Image{Tag: fmt.Sprintf("1.%d.%d", i/100, i%100), Created: created.Add(time.Duration(i) * time.Minute)})
	}
	imgs = append(imgs,
		Image{Tag: "multi", Created: created, Platforms: []updater.Platform{{OS: "linux", Arch: "amd64"}, {OS: "linux", Arch: "arm64", Variant: "v8"}}},
		Image{Tag: "latest", SameAs: "1.24.99"})
	eager, lazy := start(t, WithPageSize(1000)), start(t, WithPageSize(1000))
	if err := eager.Push(ctx, "team/app", imgs...); err != nil {
		t.Fatal(err)
	}
	if err := lazy.PushLazy(ctx, "team/app", imgs...); err != nil {
		t.Fatal(err)
	}
	if n := lazy.lazyPending("team/app"); n != len(imgs) {
		t.Fatalf("%d images pending before any pull, want %d", n, len(imgs))
	}
	want, err := remote.List(repoRef(t, eager, "team/app"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := remote.List(repoRef(t, lazy, "team/app"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) || len(got) != len(imgs) {
		t.Fatalf("lazy tag list (%d) differs from the pushed one (%d)", len(got), len(want))
	}
	if c := lazy.Requests(); c.Tags != 3 {
		t.Errorf("%d tag-list pages, want 3 of at most 1000", c.Tags)
	}
	if n := lazy.lazyPending("team/app"); n != len(imgs) {
		t.Fatalf("listing pushed images: %d pending", n)
	}

	for _, tag := range []string{"1.3.7", "multi", "latest"} {
		e, err := remote.Get(repoRef(t, eager, "team/app").Tag(tag))
		if err != nil {
			t.Fatal(err)
		}
		l, err := remote.Get(repoRef(t, lazy, "team/app").Tag(tag))
		if err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
		if e.MediaType != l.MediaType {
			t.Errorf("%s: media type %s, pushed %s", tag, l.MediaType, e.MediaType)
		}
		if tag == "multi" {
			ei, _ := e.ImageIndex()
			li, _ := l.ImageIndex()
			em, _ := ei.IndexManifest()
			lm, _ := li.IndexManifest()
			if len(em.Manifests) != len(lm.Manifests) || lm.Manifests[1].Platform.Architecture != "arm64" {
				t.Errorf("multi: index %+v, pushed %+v", lm.Manifests, em.Manifests)
			}
			continue
		}
		ec, lc := configOf(t, e), configOf(t, l)
		if ec != lc {
			t.Errorf("%s: config %s, pushed %s", tag, lc, ec)
		}
	}
	// HEAD by tag answers too (and pushes the image).
	if _, err := remote.Head(repoRef(t, lazy, "team/app").Tag("1.0.1")); err != nil {
		t.Fatal(err)
	}
	// latest = 1.24.99: the tags pulled, and nothing else, were pushed.
	if n := lazy.lazyPending("team/app"); n != len(imgs)-5 {
		t.Errorf("%d pending after pulling 5 tags, want %d", n, len(imgs)-5)
	}
	if _, err := remote.Get(repoRef(t, lazy, "team/app").Tag("no-such-tag")); err == nil || !strings.Contains(err.Error(), "MANIFEST_UNKNOWN") {
		t.Errorf("an unknown tag: %v", err)
	}
	// Same digest again by tag: latest and 1.24.99 are one manifest.
	a, _ := remote.Head(repoRef(t, lazy, "team/app").Tag("latest"))
	b, _ := remote.Head(repoRef(t, lazy, "team/app").Tag("1.24.99"))
	if a == nil || b == nil || a.Digest != b.Digest {
		t.Errorf("latest and 1.24.99 should be one manifest: %v %v", a, b)
	}
}

// TestPushLazyThenPush: a tag pushed for real later wins; both kinds of
// tags are listed together.
func TestPushLazyThenPush(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := start(t)
	if err := s.PushLazy(ctx, "r", Image{Tag: "b", Created: time.Unix(100, 0).UTC()}, Image{Tag: "c"}); err != nil {
		t.Fatal(err)
	}
	when := time.Unix(2000, 0).UTC()
	if err := s.Push(ctx, "r", Image{Tag: "a"}, Image{Tag: "b", Created: when}); err != nil {
		t.Fatal(err)
	}
	tags, err := remote.List(repoRef(t, s, "r"))
	if err != nil || strings.Join(tags, ",") != "a,b,c" {
		t.Fatalf("tags %v %v", tags, err)
	}
	d, err := remote.Get(repoRef(t, s, "r").Tag("b"))
	if err != nil {
		t.Fatal(err)
	}
	if c := configOf(t, d); !strings.Contains(c, when.Format(time.RFC3339)) {
		t.Errorf("b is the later push: %s", c)
	}
	if err := s.PushLazy(ctx, "r", Image{Tag: "d", SameAs: "nothing"}); err == nil {
		t.Error("SameAs a tag that does not exist should fail")
	}
}

func configOf(t *testing.T, d *remote.Descriptor) string {
	t.Helper()
	img, err := d.Image()
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s %s/%s %v", cf.Created.Time.Format(time.RFC3339), cf.OS, cf.Architecture, cf.Config.Labels)
}

func (s *Server) lazyPending(repo string) int {
	s.lazy.mu.Lock()
	defer s.lazy.mu.Unlock()
	if lr := s.lazy.repos[repo]; lr != nil {
		return len(lr.images)
	}
	return 0
}
