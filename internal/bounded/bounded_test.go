package bounded

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

var errOver = errors.New("over")

func TestReader(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int64
		want string
		err  error
	}{
		{"abc", 3, "abc", nil},      // ends exactly at the bound
		{"abcd", 3, "abc", errOver}, // one byte more
		{"ab", 3, "ab", nil},
		{"", 0, "", nil},
		{"x", 0, "", errOver},
	} {
		// OneByteReader and a reader that returns data with EOF: the
		// bound holds however the stream is cut.
		for _, r := range []io.Reader{strings.NewReader(c.in), iotest.OneByteReader(strings.NewReader(c.in)), iotest.DataErrReader(strings.NewReader(c.in))} {
			b := &Reader{R: r, N: c.n, Over: errOver}
			got, err := io.ReadAll(b)
			if string(got) != c.want || !errors.Is(err, c.err) && !(c.err == nil && err == nil) {
				t.Errorf("%q bounded at %d: %q, %v; want %q, %v", c.in, c.n, got, err, c.want, c.err)
			}
		}
	}
}

// TestReaderPassesErrors: a failure of the stream at the bound is the
// stream's, not Over.
func TestReaderPassesErrors(t *testing.T) {
	boom := errors.New("boom")
	b := &Reader{R: io.MultiReader(strings.NewReader("ab"), iotest.ErrReader(boom)), N: 2, Over: errOver}
	if _, err := io.ReadAll(b); !errors.Is(err, boom) {
		t.Errorf("err = %v, want the stream's", err)
	}
}

func TestReadCloser(t *testing.T) {
	closed, also := false, false
	rc := ReadCloser(closer{strings.NewReader("abcdef"), &closed}, 4, errOver, func() { also = true })
	if got, err := io.ReadAll(rc); string(got) != "abcd" || !errors.Is(err, errOver) {
		t.Errorf("%q, %v", got, err)
	}
	if rc.Close(); !closed || !also {
		t.Errorf("closed %v, also %v", closed, also)
	}
}

type closer struct {
	io.Reader
	closed *bool
}

func (c closer) Close() error { *c.closed = true; return nil }
