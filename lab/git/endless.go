package labgit

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
)

// Endless is a git smart-HTTP server (any repository path) whose answers
// never end or inflate without bound, for tests of a client's bounds: a
// hostile or broken git host. It speaks just enough of the protocol for a
// client to reach the part that does not end.
type Endless struct {
	Mode EndlessMode
}

// EndlessMode is what does not end.
type EndlessMode int

const (
	// EndlessRefs: the ref advertisement (GET info/refs) lists refs for
	// ever.
	EndlessRefs EndlessMode = iota
	// EndlessPack: one branch, main; the pack sent for it has objects
	// for ever (incompressible blobs, so the bytes on the wire are what a
	// client holds).
	EndlessPack
	// PackBomb: one branch, main; the pack is small on the wire (some
	// hundred KiB) and declares a blob of 256 MiB of zeros.
	PackBomb
)

// EndlessHead is the commit main points at in EndlessPack and PackBomb.
const EndlessHead = "1111111111111111111111111111111111111111"

// ServeHTTP implements http.Handler.
func (e Endless) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/info/refs"):
		if svc := r.URL.Query().Get("service"); svc != "git-upload-pack" {
			http.Error(w, "only git-upload-pack", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		w.Header().Set("Cache-Control", "no-cache")
		e.advertise(w, r)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack"):
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
		e.pack(w, r)
	default:
		http.NotFound(w, r)
	}
}

// pkt is one pkt-line.
func pkt(s string) []byte { return fmt.Appendf(nil, "%04x%s", len(s)+4, s) }

func (e Endless) advertise(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	buf.Write(pkt("# service=git-upload-pack\n"))
	buf.WriteString("0000")
	buf.Write(pkt(EndlessHead + " HEAD\x00shallow no-progress ofs-delta symref=HEAD:refs/heads/main agent=labgit-endless\n"))
	buf.Write(pkt(EndlessHead + " refs/heads/main\n"))
	if e.Mode != EndlessRefs {
		buf.WriteString("0000")
		_, _ = w.Write(buf.Bytes())
		return
	}
	for n := 0; r.Context().Err() == nil; {
		for buf.Len() < 31<<10 {
			buf.Write(pkt(fmt.Sprintf("%s refs/heads/b%09d\n", EndlessHead, n)))
			n++
		}
		if _, err := w.Write(buf.Bytes()); err != nil {
			return
		}
		buf.Reset()
	}
}

func (e Endless) pack(w http.ResponseWriter, r *http.Request) {
	var head bytes.Buffer
	head.Write(pkt("shallow " + EndlessHead + "\n"))
	head.WriteString("0000")
	head.Write(pkt("NAK\n"))
	head.WriteString("PACK")
	_ = binary.Write(&head, binary.BigEndian, uint32(2))
	if e.Mode == PackBomb {
		_ = binary.Write(&head, binary.BigEndian, uint32(1))
		head.Write(bomb())
		head.Write(make([]byte, 20)) // the checksum nobody gets to check
		_, _ = w.Write(head.Bytes())
		return
	}
	_ = binary.Write(&head, binary.BigEndian, uint32(1<<32-1))
	if _, err := w.Write(head.Bytes()); err != nil {
		return
	}
	obj := noiseBlob()
	for r.Context().Err() == nil {
		if _, err := w.Write(obj); err != nil {
			return
		}
	}
}

// objectHeader is a pack object's type and size header.
func objectHeader(typ byte, size int64) []byte {
	b := []byte{typ<<4 | byte(size&0x0f)}
	size >>= 4
	for size > 0 {
		b[len(b)-1] |= 0x80
		b = append(b, byte(size&0x7f))
		size >>= 7
	}
	return b
}

// zlibOf is data compressed as a pack object's body.
func zlibOf(data io.Reader) []byte {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	_, _ = io.Copy(zw, data)
	_ = zw.Close()
	return buf.Bytes()
}

// noiseBlob is one 64 KiB blob object of pseudo-random bytes: it does
// not compress, so what travels is what inflates.
func noiseBlob() []byte {
	const size = 64 << 10
	data := make([]byte, size)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	return append(objectHeader(3, size), zlibOf(bytes.NewReader(data))...)
}

// bomb is one blob object of 256 MiB of zeros, compressed (about 256 KiB).
func bomb() []byte {
	const size = 256 << 20
	return append(objectHeader(3, size), zlibOf(io.LimitReader(zeros{}, size))...)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
