package forge_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/internal/heapwatch"
	"github.com/imgupd/imgupd/sources/forge"
)

// endlessJSON answers every request with a JSON document that never ends.
func endlessJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"name":"`))
	buf := []byte(strings.Repeat("a", 32<<10))
	for r.Context().Err() == nil {
		if _, err := w.Write(buf); err != nil {
			return
		}
	}
}

// TestEndlessAnswer: a forge API whose answers never end is read up to
// the response limit, with bounded memory, for every forge, and the
// failure says so. Not parallel: the heap is the process's.
func TestEndlessAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(endlessJSON))
	t.Cleanup(srv.Close)
	for _, kind := range []forge.Forge{forge.GitHub, forge.GitLab, forge.Gitea, forge.Bitbucket} {
		t.Run(kind.String(), func(t *testing.T) {
			c, err := forge.New(forge.WithEndpoints(forge.Endpoint{Host: "git.example", Kind: kind, APIURL: srv.URL + "/api"}))
			if err != nil {
				t.Fatal(err)
			}
			repo := "https://git.example/acme/web.git"
			if kind == forge.Bitbucket {
				repo = "https://bitbucket.org/acme/web.git"
				c, err = forge.New(forge.WithEndpoints(forge.Endpoint{Host: "bitbucket.org", Kind: kind, APIURL: srv.URL + "/2.0"}))
				if err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a net: the bound is bytes
			defer cancel()
			grew := heapwatch.Measure(func() { _, err = c.BranchProtection(ctx, repo, "main", creds("tok-123456")) })
			fe := wantKind(t, err, forge.BadResponse)
			if !strings.Contains(fe.Error(), "larger than the response limit") {
				t.Errorf("error %q", fe.Error())
			}
			if grew.Peak > 4*forge.DefaultMaxResponseBytes+(8<<20) {
				t.Errorf("the heap grew by %.1f MiB for a %d MiB limit", grew.MiB(), forge.DefaultMaxResponseBytes>>20)
			}
			t.Logf("%s: heap +%.1f MiB: %v", kind, grew.MiB(), fe)
		})
	}
}
