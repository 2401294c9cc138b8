// Package bounded reads a stream up to a bound and says when the stream
// went past it, for the answers of servers imgupd does not control (tag
// lists, manifests, git packs, Helm indexes, forge APIs): past the bound a
// read fails with the caller's error instead of holding more memory.
package bounded

import "io"

// Reader reads R until N bytes are read, then fails with Over if R has
// more. One byte more is read at the bound, which tells a stream that ends
// exactly there from a longer one. N counts down as bytes are read, so a
// caller can see what is left.
type Reader struct {
	R    io.Reader
	N    int64
	Over error
}

func (b *Reader) Read(p []byte) (int, error) {
	if b.N <= 0 {
		var one [1]byte
		for {
			n, err := b.R.Read(one[:])
			if n > 0 {
				return 0, b.Over
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > b.N {
		p = p[:b.N]
	}
	n, err := b.R.Read(p)
	b.N -= int64(n)
	return n, err
}

// ReadCloser bounds rc as Reader does; Close closes rc, then calls each
// of also (e.g. a request's context cancel).
func ReadCloser(rc io.ReadCloser, n int64, over error, also ...func()) io.ReadCloser {
	return &readCloser{Reader: Reader{R: rc, N: n, Over: over}, c: rc, also: also}
}

type readCloser struct {
	Reader
	c    io.Closer
	also []func()
}

func (b *readCloser) Close() error {
	err := b.c.Close()
	for _, f := range b.also {
		f()
	}
	return err
}
