package cluster

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/imgupd/imgupd/diagnostics/internal/heapwatch"
)

// endlessLogs is an API server whose pods/log never ends, whatever
// limitBytes asks: a broken or hostile server. It records the limitBytes
// it was asked for.
func endlessLogs(t *testing.T, asked *string) *rest.Config {
	t.Helper()
	line := []byte(`time="2026-11-29T10:00:00Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=0"` + "\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/log") {
			http.NotFound(w, r)
			return
		}
		*asked = r.URL.Query().Get("limitBytes")
		w.Header().Set("Content-Type", "text/plain")
		buf := []byte{}
		for len(buf) < 32<<10 {
			buf = append(buf, line...)
		}
		for r.Context().Err() == nil {
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return &rest.Config{Host: srv.URL}
}

// TestLogsStopAtTheLimit: Image Updater's log is read up to LimitBytes
// (MaxLogBytes when none is given) from a server that streams without
// end, with bounded memory. Not parallel: the heap is the process's.
func TestLogsStopAtTheLimit(t *testing.T) {
	for _, limit := range []int64{4 << 20, 0} {
		var asked string
		kube, err := kubernetes.NewForConfig(endlessLogs(t, &asked))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var text string
		grew := heapwatch.Measure(func() {
			text, err = (&Reader{Kube: kube}).PodLogs(ctx, "argocd", "updater", "c", 30*time.Minute, limit)
		})
		cancel()
		want := limit
		if want == 0 {
			want = MaxLogBytes
		}
		if err != nil || int64(len(text)) != want {
			t.Fatalf("limit %d: read %d bytes, err %v", limit, len(text), err)
		}
		if asked != strconv.FormatInt(want, 10) {
			t.Errorf("limitBytes asked = %q, want %d", asked, want)
		}
		if grew.Peak > uint64(4*want) {
			t.Errorf("limit %d: the heap grew by %.0f MiB, more than 4× the limit", limit, grew.MiB())
		}
		t.Logf("limit %d: read %d bytes, heap +%.1f MiB", limit, len(text), grew.MiB())
	}
}
