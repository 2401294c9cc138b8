package helmrepo

import (
	"fmt"
	"math/rand/v2"
	"net/http"
)

// EndlessIndex serves an index.yaml that never ends: apiVersion, then
// entries, chart after chart, in the block YAML `helm repo index` writes,
// until the client hangs up. Serve it with Server.Handle.
type EndlessIndex struct{}

func (EndlessIndex) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/x-yaml")
	buf := make([]byte, 0, 32<<10)
	buf = append(buf, "apiVersion: v1\nentries:\n"...)
	for n := 0; r.Context().Err() == nil; n++ {
		buf = fmt.Appendf(buf, "  filler%d:\n  - apiVersion: v2\n    name: filler%d\n    version: 1.0.%d\n    urls:\n    - charts/filler%d-1.0.%d.tgz\n", n, n, n, n, n)
		if len(buf) < 31<<10 {
			continue
		}
		if _, err := w.Write(buf); err != nil {
			return
		}
		buf = buf[:0]
	}
}

// EndlessArchive serves a chart archive that never ends: bytes that do
// not compress (what travels is what a client holds), until the client
// hangs up. Serve it with Server.Handle at an ArchivePath.
type EndlessArchive struct{}

func (EndlessArchive) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/gzip")
	buf := make([]byte, 32<<10)
	rng := rand.New(rand.NewPCG(3, 4))
	for r.Context().Err() == nil {
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
		if _, err := w.Write(buf); err != nil {
			return
		}
	}
}
