package fleet

import (
	"context"
	"testing"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/sources/cluster"
)

// A scan lists through a Reader asking the API server's watch cache
// (cluster.Reader.ListsFromCache); the engine's own Reader, which a
// diagnosis of one app reads through, is not changed.
func TestScanListsFromTheWatchCache(t *testing.T) {
	r := &cluster.Reader{}
	_, _, cc, _ := shareScan(context.Background(), &diagnostics.Engine{Cluster: r})
	got, ok := cc.inner.(*cluster.Reader)
	if !ok || !got.ListsFromCache {
		t.Fatalf("the scan reads through %#v, not a Reader listing from the watch cache", cc.inner)
	}
	if r.ListsFromCache {
		t.Fatal("the engine's Reader was changed")
	}
}
