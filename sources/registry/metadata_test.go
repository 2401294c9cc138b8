package registry

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/imgupd/imgupd/internal/netclass"
	labregistry "github.com/imgupd/imgupd/lab/registry"
	"github.com/imgupd/imgupd/model/updater"
)

var (
	amd64   = updater.Platform{OS: "linux", Arch: "amd64"}
	arm64v8 = updater.Platform{OS: "linux", Arch: "arm64", Variant: "v8"}
	armv7   = updater.Platform{OS: "linux", Arch: "arm", Variant: "v7"}
)

func TestMetadataSingleManifests(t *testing.T) {
	t.Parallel()
	s := startLab(t)
	push(t, s, "app",
		labregistry.Image{Tag: "1.0.0", Created: day(1)},
		labregistry.Image{Tag: "1.1.0", Created: day(2)},
		labregistry.Image{Tag: "arm", Created: day(3), Platforms: []updater.Platform{arm64v8}},
		labregistry.Image{Tag: "undated"},
	)
	s.ResetRequests()
	c := New()
	meta, err := c.Metadata(testCtx(t), targetOf(s, "app"), []string{"1.0.0", "1.1.0", "arm", "undated", "missing"}, wantsOf("linux/amd64"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tag      string
		platform updater.Platform
		created  time.Time
	}{
		{"1.0.0", amd64, day(1)},
		{"1.1.0", amd64, day(2)},
		{"arm", arm64v8, day(3)}, // single manifests are read whatever the filter
		{"undated", amd64, time.Time{}},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			m := meta[tc.tag]
			if m.Err != "" || m.Index || m.Digest == "" || len(m.Manifests) != 1 {
				t.Fatalf("meta = %+v", m)
			}
			mm := m.Manifests[0]
			if mm.Digest != m.Digest || mm.Platform != tc.platform || !mm.Created.Equal(tc.created) || mm.HasCreated != !tc.created.IsZero() {
				t.Errorf("manifest = %+v, want %s created %v", mm, tc.platform, tc.created)
			}
		})
	}
	if m := meta["missing"]; m.Err == "" || len(m.Manifests) != 0 {
		t.Errorf("missing tag = %+v, want an error", m)
	}
	// One manifest GET per tag, one config per image: nothing more.
	if got := s.Requests(); got.Manifest != 5 || got.Blob != 4 || got.Ping != 1 {
		t.Errorf("server saw %+v", got)
	}
	if st := c.Stats(); st.Manifests != 5 || st.Blobs != 4 || st.Ping != 1 || st.Total() != 10 {
		t.Errorf("Stats = %v", st)
	}
}

func TestMetadataIndexFetchesOnlyWantedChildren(t *testing.T) {
	t.Parallel()
	s := startLab(t)
	push(t, s, "multi", labregistry.Image{Tag: "2.0.0", Created: day(5), Platforms: []updater.Platform{amd64, arm64v8, armv7}})

	for _, tc := range []struct {
		name      string
		platforms []string
		fetched   []updater.Platform
	}{
		// linux/arm64 wants the linux/arm64/v8 child (a variant matches a
		// constraint without one), and only that child is fetched.
		{"arm64 only", []string{"linux/arm64"}, []updater.Platform{arm64v8}},
		{"amd64 and arm/v7", []string{"linux/amd64", "linux/arm/v7"}, []updater.Platform{amd64, armv7}},
		{"arm64/v7 matches nothing", []string{"linux/arm64/v7"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New()
			s.ResetRequests()
			meta, err := c.Metadata(testCtx(t), targetOf(s, "multi"), []string{"2.0.0"}, wantsOf(tc.platforms...))
			if err != nil {
				t.Fatal(err)
			}
			m := meta["2.0.0"]
			if m.Err != "" || !m.Index || len(m.Manifests) != 3 {
				t.Fatalf("meta = %+v", m)
			}
			fetched := map[updater.Platform]bool{}
			for _, p := range tc.fetched {
				fetched[p] = true
			}
			for _, mm := range m.Manifests {
				if mm.Digest == "" || mm.Digest == m.Digest {
					t.Errorf("child digest %q (index %q)", mm.Digest, m.Digest)
				}
				if mm.HasCreated != fetched[mm.Platform] {
					t.Errorf("child %s HasCreated = %v", mm.Platform, mm.HasCreated)
				}
				if mm.HasCreated && !mm.Created.Equal(day(5)) {
					t.Errorf("child %s created %v", mm.Platform, mm.Created)
				}
			}
			got := s.Requests()
			if got.Manifest != 1+len(tc.fetched) || got.Blob != len(tc.fetched) {
				t.Errorf("server saw %d manifests, %d blobs; want %d and %d", got.Manifest, got.Blob, 1+len(tc.fetched), len(tc.fetched))
			}
		})
	}
}

func TestMetadataCachesByDigest(t *testing.T) {
	t.Parallel()
	s := startLab(t)
	push(t, s, "app",
		labregistry.Image{Tag: "1.0.0", Created: day(1)},
		labregistry.Image{Tag: "latest", SameAs: "1.0.0"},
		labregistry.Image{Tag: "stable", SameAs: "1.0.0"},
		labregistry.Image{Tag: "multi", Created: day(2), Platforms: []updater.Platform{amd64, arm64v8}},
		labregistry.Image{Tag: "multi-latest", SameAs: "multi"},
	)
	tags := []string{"1.0.0", "latest", "stable", "multi", "multi-latest"}
	c := New()
	ctx := testCtx(t)
	s.ResetRequests()
	first, err := c.Metadata(ctx, targetOf(s, "app"), tags, wantsOf("linux/amd64"))
	if err != nil {
		t.Fatal(err)
	}
	if first["latest"].Digest != first["1.0.0"].Digest || first["multi-latest"].Digest != first["multi"].Digest {
		t.Errorf("SameAs tags have different digests: %+v", first)
	}
	// 5 tag manifests + 1 amd64 child; 1 config for the single image and
	// 1 for the amd64 child, however many tags point at them.
	if got := s.Requests(); got.Manifest != 6 || got.Blob != 2 {
		t.Errorf("first call: %d manifests, %d blobs; want 6, 2", got.Manifest, got.Blob)
	}

	s.ResetRequests()
	second, err := c.Metadata(ctx, targetOf(s, "app"), tags, wantsOf("linux/amd64"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Requests(); got.Manifest != 5 || got.Blob != 0 || got.Ping != 0 {
		t.Errorf("second call: %+v; want only the 5 tag manifests", got)
	}
	for _, tag := range tags {
		a, b := first[tag], second[tag]
		if a.Digest != b.Digest || len(a.Manifests) != len(b.Manifests) || !a.Manifests[0].Created.Equal(b.Manifests[0].Created) {
			t.Errorf("%s: first %+v, second %+v", tag, a, b)
		}
	}
}

func TestMetadataConcurrencyBound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []Option
		max  int
	}{
		{"default 8", nil, 8},
		{"three", []Option{WithConcurrency(3)}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startLab(t, labregistry.WithRepoBehaviour("app", labregistry.Behaviour{Delay: 30 * time.Millisecond}))
			imgs := make([]labregistry.Image, 40)
			for i, tag := range tagNames("v", 40) {
				imgs[i] = labregistry.Image{Tag: tag, Created: day(i)}
			}
			push(t, s, "app", imgs...)
			s.ResetRequests()
			meta, err := New(tc.opts...).Metadata(testCtx(t), targetOf(s, "app"), tagNames("v", 40), nil)
			if err != nil {
				t.Fatal(err)
			}
			for tag, m := range meta {
				if m.Err != "" {
					t.Errorf("%s: %s", tag, m.Err)
				}
			}
			got := s.Requests()
			if got.MaxInFlight > tc.max {
				t.Errorf("max in flight = %d, want <= %d", got.MaxInFlight, tc.max)
			}
			if got.MaxInFlight < 2 {
				t.Errorf("max in flight = %d: tags were not read concurrently", got.MaxInFlight)
			}
		})
	}
}

func TestMetadataPerTagFailures(t *testing.T) {
	t.Parallel()
	s := startLab(t, labregistry.WithRepoBehaviour("app", labregistry.Behaviour{
		Status: http.StatusTooManyRequests, RetryAfter: 10 * time.Second, Only: "manifests"}))
	push(t, s, "app", labregistry.Image{Tag: "1"}, labregistry.Image{Tag: "2"})
	meta, err := New().Metadata(testCtx(t), targetOf(s, "app"), []string{"1", "2"}, nil)
	if err != nil {
		t.Fatalf("Metadata: %v", err)
	}
	for _, tag := range []string{"1", "2"} {
		want := "manifest " + s.Host + "/app: rate limited (HTTP 429, TOOMANYREQUESTS, retry after 10s): you have reached your pull rate limit"
		if got := meta[tag].Err; got != want {
			t.Errorf("%s: Err = %q\nwant %q", tag, got, want)
		}
	}
}

func TestMetadataCanceled(t *testing.T) {
	t.Parallel()
	s := startLab(t, labregistry.WithRepoBehaviour("app", labregistry.Behaviour{Delay: 10 * time.Minute, Only: "manifests"})) // held until the client gives up
	push(t, s, "app", labregistry.Image{Tag: "1"}, labregistry.Image{Tag: "2"})
	c := New(WithConcurrency(1))
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	meta, err := c.Metadata(ctx, targetOf(s, "app"), []string{"1", "2"}, nil)
	wantKind(t, err, netclass.Timeout)
	if len(meta) != 2 || meta["1"].Err == "" || meta["2"].Err == "" {
		t.Errorf("meta = %+v; want both tags with an error", meta)
	}
	// The concurrency slot was given back.
	if !c.acquire(context.Background()) {
		t.Fatal("slot not released")
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	s := startLab(t)
	push(t, s, "app", labregistry.Image{Tag: "1"})
	c := New(WithRateLimit(1000))
	if _, err := c.Metadata(testCtx(t), targetOf(s, "app"), []string{"1"}, nil); err != nil {
		t.Fatal(err)
	}
	// At 0.01 requests/s the first request takes the only token; the next
	// waits ~100 s, so a short deadline ends the call with no request sent.
	slow := New(WithRateLimit(0.01))
	short, cancel := context.WithTimeout(testCtx(t), 200*time.Millisecond)
	defer cancel()
	before := s.Requests().Total()
	if _, err := slow.ListTags(short, targetOf(s, "app")); err == nil {
		t.Error("a second request at 0.01 requests/s went through at once")
	}
	if sent := s.Requests().Total() - before; sent > 1 {
		t.Errorf("%d requests reached the registry, want at most 1", sent)
	}
}
