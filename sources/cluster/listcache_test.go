package cluster

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// listServer is an API server with one Application and one ImageUpdater
// CR that records the resourceVersion of each request, as "VERB PATH
// rv=X".
func listServer(t *testing.T) (*rest.Config, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" rv="+r.URL.Query().Get("resourceVersion"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		app := `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"web","namespace":"argocd","resourceVersion":"7"}}`
		cr := `{"apiVersion":"argocd-image-updater.argoproj.io/v1alpha1","kind":"ImageUpdater","metadata":{"name":"shop","namespace":"argocd","resourceVersion":"8"}}`
		switch {
		case strings.HasSuffix(r.URL.Path, "/applications/web"):
			_, _ = w.Write([]byte(app))
		case strings.HasSuffix(r.URL.Path, "/applications") && strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadataList"):
			_, _ = w.Write([]byte(`{"apiVersion":"meta.k8s.io/v1","kind":"PartialObjectMetadataList","metadata":{"resourceVersion":"9"},"items":[` +
				`{"apiVersion":"meta.k8s.io/v1","kind":"PartialObjectMetadata","metadata":{"name":"web","namespace":"argocd","resourceVersion":"7"}}]}`))
		case strings.HasSuffix(r.URL.Path, "/applications"):
			_, _ = w.Write([]byte(`{"apiVersion":"argoproj.io/v1alpha1","kind":"ApplicationList","metadata":{"resourceVersion":"9"},"items":[` + app + `]}`))
		case strings.HasSuffix(r.URL.Path, "/imageupdaters"):
			_, _ = w.Write([]byte(`{"apiVersion":"argocd-image-updater.argoproj.io/v1alpha1","kind":"ImageUpdaterList","metadata":{"resourceVersion":"9"},"items":[` + cr + `]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return &rest.Config{Host: srv.URL}, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := slices.Clone(got)
		got = got[:0]
		return out
	}
}

// A Reader with ListsFromCache asks for its lists of Applications (whole
// or their metadata) and CRs at resourceVersion=0, served by the API
// server's watch cache, through each of its clients; one without asks at
// the newest revision; a read by name is always at the newest revision.
func TestListsFromTheWatchCache(t *testing.T) {
	cfg, requests := listServer(t)
	clients, err := NewClients(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := metadata.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	readers := map[string]*Reader{
		"raw":     {Kube: clients, Dynamic: dyn, Metadata: meta, Raw: clients.Root()},
		"dynamic": {Kube: clients, Dynamic: dyn},
	}
	ctx := context.Background()
	for name, base := range readers {
		for _, cached := range []bool{false, true} {
			r := base
			if cached {
				r = base.WithListsFromCache()
			}
			if base.ListsFromCache {
				t.Fatal("WithListsFromCache changed the Reader it was called on")
			}
			if _, err := r.Applications(ctx, ""); err != nil {
				t.Fatal(err)
			}
			if apps, err := r.ApplicationsMetadata(ctx, "argocd"); err != nil || len(apps) != 1 || apps[0].Name != "web" {
				t.Fatalf("%s: metadata list: %v %v", name, apps, err)
			}
			if crs, err := r.ImageUpdaters(ctx, ""); err != nil || len(crs) != 1 || crs[0].Name != "shop" {
				t.Fatalf("%s: CRs: %v %v", name, crs, err)
			}
			if _, err := r.Application(ctx, "argocd", "web"); err != nil {
				t.Fatal(err)
			}
			rv := ""
			if cached {
				rv = "0"
			}
			want := []string{
				"GET /apis/argoproj.io/v1alpha1/applications rv=" + rv,
				"GET /apis/argoproj.io/v1alpha1/namespaces/argocd/applications rv=" + rv,
				"GET /apis/argocd-image-updater.argoproj.io/v1alpha1/imageupdaters rv=" + rv,
				"GET /apis/argoproj.io/v1alpha1/namespaces/argocd/applications/web rv=",
			}
			if got := requests(); !slices.Equal(got, want) {
				t.Errorf("%s, from the cache %v: requests\n%s\nwant\n%s", name, cached, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}
