package gitsource

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/imgupd/imgupd/internal/bounded"
)

// Bounds of what one git operation reads from a server. Argo CD's
// repo-server and Image Updater clone with the git command line to disk,
// without such bounds; imgupd holds what it reads in memory, so a server
// that never stops (or a pack that inflates without end) would take all of
// it. Past a bound the operation fails with Kind TooLarge.
const (
	// MaxAdvertisementBytes bounds a ref advertisement (GET info/refs):
	// the largest public repositories advertise some 20 MiB of refs,
	// GitHub's pull request refs included.
	MaxAdvertisementBytes = 32 << 20
	// MaxPackBytes bounds the pack of a snapshot as it travels (the last
	// SnapshotDepth commits of one branch; a GitOps repository's is a few
	// MiB).
	MaxPackBytes = 64 << 20
	// MaxObjectBytes bounds the objects of a snapshot once inflated, by
	// the sizes the pack declares, checked before any is inflated: zlib
	// inflates up to a thousandfold, deltas more.
	MaxObjectBytes = 128 << 20
	// negotiationSlack is what an HTTP upload-pack answer may carry
	// before the pack (shallow lines, ACK/NAK, progress).
	negotiationSlack = 1 << 20
)

// SizeLimit is an answer past one of the bounds above; classify makes it
// Kind TooLarge.
type SizeLimit struct {
	// What is "ref advertisement", "pack" or "objects".
	What string
	// Max is the bound; Size, when known, what the server declared.
	Max, Size int64
}

func (e *SizeLimit) Error() string {
	if e.Size > 0 {
		return fmt.Sprintf("the %s declare %s, more than the %s imgupd reads", e.What, sizeText(e.Size), sizeText(e.Max))
	}
	return fmt.Sprintf("the %s is larger than the %s imgupd reads", e.What, sizeText(e.Max))
}

// sizeText is n bytes in MiB (or KiB, or bytes) for messages.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// boundedTransport bounds every HTTP answer body: a ref advertisement
// (GET .../info/refs) at MaxAdvertisementBytes, anything else (an
// upload-pack answer) at MaxPackBytes plus the negotiation before it.
type boundedTransport struct{ next http.RoundTripper }

func (t boundedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	lim := &SizeLimit{What: "pack", Max: MaxPackBytes + negotiationSlack}
	if strings.HasSuffix(r.URL.Path, "/info/refs") {
		lim = &SizeLimit{What: "ref advertisement", Max: MaxAdvertisementBytes}
	}
	resp.Body = bounded.ReadCloser(resp.Body, lim.Max, lim)
	return resp, nil
}

// readPack reads a pack stream whole, at most MaxPackBytes, in chunks: a
// buffer that doubles would hold up to twice the pack while it grows.
func readPack(r io.Reader) (*packBytes, error) {
	br := &bounded.Reader{R: r, N: MaxPackBytes, Over: &SizeLimit{What: "pack", Max: MaxPackBytes}}
	p := &packBytes{}
	for {
		chunk := make([]byte, packChunk)
		n, err := io.ReadFull(br, chunk)
		if n > 0 {
			p.chunks = append(p.chunks, chunk[:n])
			p.size += int64(n)
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return p, nil
		case err != nil:
			return nil, err
		}
	}
}

const packChunk = 1 << 20

// packBytes is a pack held in memory, in chunks of packChunk bytes (the
// last one shorter).
type packBytes struct {
	chunks [][]byte
	size   int64
}

// reader reads the pack from its start, seekable (go-git's parser then
// seeks to delta bases instead of keeping every delta).
func (p *packBytes) reader() io.ReadSeeker { return io.NewSectionReader(p, 0, p.size) }

// ReadAt implements io.ReaderAt.
func (p *packBytes) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		if off >= p.size {
			return n, io.EOF
		}
		c := p.chunks[off/packChunk][off%packChunk:]
		m := copy(b[n:], c)
		n += m
		off += int64(m)
	}
	return n, nil
}

// checkPack walks the pack's object headers and refuses it when the
// objects would inflate past MaxObjectBytes, by the sizes the pack
// declares: a base object's, and for a delta its data's and its target's
// (read from the delta's first bytes). go-git inflates an object up to its
// declared size, so once these sum within the bound so does what parsing
// it holds. Inflating here only to find where each object ends costs CPU,
// not memory.
func checkPack(pack io.ReadSeeker) error {
	sc := packfile.NewScanner(pack)
	_, count, err := sc.Header()
	if err != nil {
		return err
	}
	var total int64
	over := func(n int64) error {
		total += n
		if n < 0 || total > MaxObjectBytes {
			return &SizeLimit{What: "objects", Max: MaxObjectBytes, Size: max(total, n)}
		}
		return nil
	}
	for range count {
		oh, err := sc.NextObjectHeader()
		if err != nil {
			return err
		}
		if err := over(oh.Length); err != nil {
			return err
		}
		if oh.Type != plumbing.OFSDeltaObject && oh.Type != plumbing.REFDeltaObject {
			if _, _, err := sc.NextObject(io.Discard); err != nil {
				return err
			}
			continue
		}
		head := &headWriter{}
		if _, _, err := sc.NextObject(head); err != nil {
			return err
		}
		if err := over(deltaTargetSize(head.b)); err != nil {
			return err
		}
	}
	return nil
}

// headWriter keeps the first bytes written to it: a delta's two sizes.
type headWriter struct{ b []byte }

func (h *headWriter) Write(p []byte) (int, error) {
	if room := 20 - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// deltaTargetSize reads a delta's header: the base size then the target
// size, each a little-endian base-128 varint. A malformed header gives 0
// (go-git refuses the delta when it applies it).
func deltaTargetSize(b []byte) int64 {
	var sizes [2]int64
	for i := range sizes {
		var v int64
		for shift := 0; ; shift += 7 {
			if len(b) == 0 || shift > 56 {
				return 0
			}
			c := b[0]
			b = b[1:]
			v |= int64(c&0x7f) << shift
			if c&0x80 == 0 {
				break
			}
		}
		sizes[i] = v
	}
	return sizes[1]
}
