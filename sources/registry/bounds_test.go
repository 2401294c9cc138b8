package registry

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/imgupd/imgupd/internal/heapwatch"
	labregistry "github.com/imgupd/imgupd/lab/registry"
	"github.com/imgupd/imgupd/model/updater"
)

// endless serves a registry whose tag lists never end.
func endless(t *testing.T, e labregistry.Endless) Target {
	t.Helper()
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return Target{APIURL: srv.URL, Repository: "team/web"}
}

// TestListTagsStopsAtTheBound: registries that never end a tag list (one
// endless page, endless Link pages, tags too long to be real) are read up
// to a bound, with bounded memory; what was read comes back with a
// TooLarge error that says which bound and how much was read.
func TestListTagsStopsAtTheBound(t *testing.T) {
	long := strings.Repeat("9", 400) + "-%d" // 400-character tags: the byte bound comes first
	for _, tc := range []struct {
		name      string
		endless   labregistry.Endless
		bound     string
		wantTags  int
		wantPages int
	}{
		{"one endless page", labregistry.Endless{}, "tags", DefaultMaxTags, 1},
		{"endless Link pages", labregistry.Endless{Links: true}, "tags", DefaultMaxTags, DefaultMaxTags/1000 + 1},
		{"endless page of long tags", labregistry.Endless{Tag: long}, "bytes", -1, 1},
		{"endless Link pages of one tag", labregistry.Endless{Links: true, PageSize: 1}, "pages", maxPages, maxPages},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := endless(t, tc.endless)
			var (
				tags []string
				err  error
			)
			grew := heapwatch.Measure(func() { tags, err = New().ListTags(testCtx(t), target) })
			e := wantKind(t, err, TooLarge)
			if e.List == nil || e.List.Bound != tc.bound {
				t.Fatalf("limit %+v, want the %s bound; error: %v", e.List, tc.bound, e)
			}
			if tc.wantTags >= 0 && len(tags) != tc.wantTags {
				t.Errorf("%d tags returned, want %d", len(tags), tc.wantTags)
			}
			if e.List.Tags != len(tags) || e.List.Pages != tc.wantPages {
				t.Errorf("limit says %d tags in %d pages; returned %d tags, want %d pages", e.List.Tags, e.List.Pages, len(tags), tc.wantPages)
			}
			if tc.bound == "bytes" && (e.List.Bytes != DefaultMaxTagListBytes || len(tags) == 0) {
				t.Errorf("byte bound: %d bytes read, %d tags", e.List.Bytes, len(tags))
			}
			if len(tags) > 0 && !strings.HasSuffix(tags[0], "0") {
				t.Errorf("first tag %q: the registry's order is kept", tags[0])
			}
			// Not parallel: the heap is the process's.
			if bound := uint64(4 * DefaultMaxTagListBytes); grew.Peak > bound {
				t.Errorf("the heap grew by %.0f MiB, more than 4× the %d MiB bound", grew.MiB(), DefaultMaxTagListBytes>>20)
			}
			t.Logf("%s: %d tags, heap +%.1f MiB (%.0f MiB allocated): %v", tc.name, len(tags), grew.MiB(), float64(grew.Allocated)/(1<<20), e)
			msg := e.Error()
			for _, want := range []string{"list tags", "team/web", "past imgupd's read bound", "imgupd stopped after"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
			if h := adviceFor(e); !strings.Contains(h, "reads every page into memory") || !strings.Contains(h, "retention") {
				t.Errorf("hint %q", h)
			}
		})
	}
}

// TestTagListLimitsOption: WithTagListLimits moves both bounds.
func TestTagListLimitsOption(t *testing.T) {
	t.Parallel()
	target := endless(t, labregistry.Endless{})
	tags, err := New(WithTagListLimits(250, 0)).ListTags(testCtx(t), target)
	if e := wantKind(t, err, TooLarge); e.List.Bound != "tags" || e.List.Max != 250 || len(tags) != 250 {
		t.Fatalf("tags bound: %d tags, %+v", len(tags), e.List)
	}
	tags, err = New(WithTagListLimits(0, 4096)).ListTags(testCtx(t), target)
	if e := wantKind(t, err, TooLarge); e.List.Bound != "bytes" || e.List.Bytes != 4096 || len(tags) == 0 || len(tags) > 4096/5 {
		t.Fatalf("bytes bound: %d tags, %+v", len(tags), e.List)
	}
}

// TestListTagsWithinTheBounds: a list that ends exactly at a bound is
// whole, not truncated.
func TestListTagsWithinTheBounds(t *testing.T) {
	t.Parallel()
	body := `{"name":"team/web","tags":["1.0.0","1.0.1","1.0.2"]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/tags/list") {
			_, _ = w.Write([]byte(body))
		}
	}))
	t.Cleanup(srv.Close)
	target := Target{APIURL: srv.URL, Repository: "team/web"}
	tags, err := New(WithTagListLimits(3, int64(len(body)))).ListTags(testCtx(t), target)
	if err != nil || strings.Join(tags, ",") != "1.0.0,1.0.1,1.0.2" {
		t.Fatalf("tags %v, err %v", tags, err)
	}
	_, err = New(WithTagListLimits(2, 0)).ListTags(testCtx(t), target)
	wantKind(t, err, TooLarge)
}

// TestDecodeTags: the streaming decoder reads what registries send and
// refuses what is not a tag list.
func TestDecodeTags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want string
		bad  bool
	}{
		{in: `{"name":"a/b","tags":["1","2"]}`, want: "1,2"},
		{in: `{"tags":["1"],"name":"a/b","child":[{"x":[1,{"y":null}]}]}`, want: "1"},
		{in: `{"name":"a/b","tags":null}`, want: ""},
		{in: `{"name":"a/b"}`, want: ""},
		{in: `{"tags":[]}  trailing`, want: ""},
		{in: `{"tags":[1]}`, bad: true},
		{in: `{"tags":"1"}`, bad: true},
		{in: `["1"]`, bad: true},
		{in: `{"tags":["1"`, bad: true},
		{in: ``, bad: true},
	} {
		var got []string
		err := decodeTags(strings.NewReader(tc.in), func(s string) error { got = append(got, s); return nil })
		switch {
		case tc.bad && err == nil:
			t.Errorf("%s: no error", tc.in)
		case !tc.bad && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case !tc.bad && strings.Join(got, ",") != tc.want:
			t.Errorf("%s: %v, want %s", tc.in, got, tc.want)
		}
	}
	stop := errors.New("stop")
	if err := decodeTags(strings.NewReader(`{"tags":["1","2"]}`), func(string) error { return stop }); !strings.Contains(err.Error(), "stop") {
		t.Errorf("add's error: %v", err)
	}
}

func TestSizeText(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{900: "900 B", 1 << 10: "1 KiB", 32 << 20: "32 MiB", 1700000: "1.6 MiB", 3 << 30: "3 GiB"} {
		if got := sizeText(n); got != want {
			t.Errorf("sizeText(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestHugeConfigRefused: an image whose manifest declares a config of 10
// GiB is refused by that size, before any of it is read: the tag's
// metadata says so, and the registry is not asked for the blob.
func TestHugeConfigRefused(t *testing.T) {
	t.Parallel()
	const manifest = `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",` +
		`"config":{"mediaType":"application/vnd.oci.image.config.v1+json","size":10737418240,` +
		`"digest":"sha256:0000000000000000000000000000000000000000000000000000000000000000"},"layers":[]}`
	var blobAsked atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.Contains(r.URL.Path, "/manifests/"):
			w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
			_, _ = w.Write([]byte(manifest))
		case strings.Contains(r.URL.Path, "/blobs/"):
			blobAsked.Store(true)
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	meta, err := New().Metadata(testCtx(t), Target{APIURL: srv.URL, Repository: "team/web"}, []string{"1.0.0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := meta["1.0.0"]; !strings.Contains(m.Err, "declares 10 GiB, more than the 8 MiB imgupd reads") || !strings.Contains(m.Err, "past imgupd's read bound") {
		t.Fatalf("metadata %+v", m)
	}
	if blobAsked.Load() {
		t.Error("the config was asked for")
	}
}

// TestEndlessManifestRefused: a manifest that never ends is cut at 4 MiB
// (go-containerregistry alone reads 100 MiB, for eight tags at a time).
func TestEndlessManifestRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.Path, "/manifests/") {
			return
		}
		w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
		buf := []byte(strings.Repeat(" ", 32<<10))
		for r.Context().Err() == nil {
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	var (
		meta map[string]updater.TagMeta
		err  error
	)
	tags := tagNames("1.0.", 8)
	grew := heapwatch.Measure(func() {
		meta, err = New().Metadata(testCtx(t), Target{APIURL: srv.URL, Repository: "team/web"}, tags, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range tags {
		if m := meta[tag]; !strings.Contains(m.Err, "is larger than the 4 MiB imgupd reads") {
			t.Fatalf("%s: %+v", tag, m)
		}
	}
	if grew.Peak > 8*4*maxManifestBytes {
		t.Errorf("eight endless manifests grew the heap by %.0f MiB", grew.MiB())
	}
	t.Logf("heap +%.1f MiB: %s", grew.MiB(), meta[tags[0]].Err)
}
