package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/imgupd/imgupd/internal/heapwatch"
)

// endlessLogs is an API server whose pods/log never ends, whatever
// tailLines asks: a broken or hostile server. It records the tailLines
// and limitBytes it was asked for.
func endlessLogs(t *testing.T, asked *string) *rest.Config {
	t.Helper()
	line := []byte(`time="2026-11-29T10:00:00Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=0"` + "\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/log") {
			http.NotFound(w, r)
			return
		}
		*asked = r.URL.Query().Get("tailLines") + " " + r.URL.Query().Get("limitBytes")
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
		kube, err := NewClients(endlessLogs(t, &asked))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a net: the limit is bytes
		var text string
		grew := heapwatch.Measure(func() {
			text, err = (&Reader{Kube: kube}).PodLogs(ctx, "argocd", "updater", "c", 30*time.Minute, limit)
		})
		cancel()
		want := limit
		if want == 0 {
			want = MaxLogBytes
		}
		if err != nil || int64(len(text)) > want || int64(len(text)) < want-200 {
			t.Fatalf("limit %d: read %d bytes, err %v", limit, len(text), err)
		}
		if !strings.HasPrefix(text, "time=") {
			t.Errorf("limit %d: the text starts within a line: %.60q", limit, text)
		}
		if asked != strconv.FormatInt(want/logLineBytes, 10)+" " {
			t.Errorf("tailLines and limitBytes asked = %q, want tailLines %d and no limitBytes (it counts from the oldest end)", asked, want/logLineBytes)
		}
		if grew.Peak > uint64(4*want) {
			t.Errorf("limit %d: the heap grew by %.0f MiB, more than 4× the limit", limit, grew.MiB())
		}
		t.Logf("limit %d: read %d bytes, heap +%.1f MiB", limit, len(text), grew.MiB())
	}
}

// TestLogsKeepTheNewestEnd: a window with more than the limit gives its
// newest lines (the API server's limitBytes would give the oldest), cut at
// a line start, and the newest line is the last.
func TestLogsKeepTheNewestEnd(t *testing.T) {
	const lines = 50_000
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := lines
		if v := r.URL.Query().Get("tailLines"); v != "" {
			n, _ = strconv.Atoi(v)
			n = min(n, lines)
		}
		for i := lines - n; i < lines; i++ {
			fmt.Fprintf(w, "time=\"2026-11-29T10:00:00Z\" level=info msg=\"cycle %06d: Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=0\" imageUpdater_name=web imageUpdater_namespace=argocd\n", i)
		}
	}))
	defer srv.Close()
	kube, err := NewClients(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	const limit = 64 << 10
	text, err := (&Reader{Kube: kube}).PodLogs(context.Background(), "argocd", "updater", "c", 30*time.Minute, limit)
	if err != nil {
		t.Fatal(err)
	}
	if len(text) > limit || len(text) < limit-200 {
		t.Errorf("kept %d bytes, want just under %d", len(text), limit)
	}
	if !strings.HasPrefix(text, "time=") || !strings.HasSuffix(text, fmt.Sprintf("cycle %06d: Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=0\" imageUpdater_name=web imageUpdater_namespace=argocd\n", lines-1)) {
		t.Errorf("want the newest whole lines, got %.80q … %.80q", text, text[max(0, len(text)-80):])
	}
}

// TestTailBuffer: whatever the sizes of the writes, the buffer holds the last
// n bytes written.
func TestTailBuffer(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		n := 1 + r.IntN(300)
		tb := newTailBuffer(n)
		var all []byte
		for w := r.IntN(40); w > 0; w-- {
			p := make([]byte, r.IntN(2*n+3))
			for i := range p {
				p[i] = byte('a' + r.IntN(26))
			}
			tb.Write(p)
			all = append(all, p...)
		}
		want := all[max(0, len(all)-n):]
		got := string(tb.buf)
		if tb.wrapped {
			got = string(tb.buf[tb.next:]) + string(tb.buf[:tb.next])
		}
		if got != string(want) {
			t.Fatalf("round %d (n=%d, %d written): kept %q, want %q", round, n, len(all), got, want)
		}
	}
}
