package main

import (
	"fmt"
	goio "io"
	"strings"
	"unicode/utf8"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/present/render"
)

// shownWriter is the last thing between a command's output and the
// terminal (or the file or pipe it goes to): the renderers show every value
// the cluster, a registry or git wrote with textutil.Visible, and this
// writer is the net under them, should a field be missed. In text it
// writes every character a terminal would not show as itself (ESC and with
// it every CSI, OSC and DCS sequence, CR, tab, other C0 and C1 controls,
// bidi controls, zero-width and other format characters, bytes that are not
// UTF-8) as its escape (\x1b, \u202e), so that only imgupd's own line
// breaks reach the screen; Markdown the same, but for the word joiner
// render.MarkdownText writes after an @ or a # (so that GitHub makes no
// mention or issue reference of it). In JSON it writes them as JSON's own
// \uXXXX escapes, which leaves every value as it was: encoding/json escapes
// C0 controls, U+2028 and U+2029, but writes C1 controls, bidi controls and
// zero-width characters raw.
type shownWriter struct {
	w    goio.Writer
	mode shownMode
	// pending is the start of a character split across two writes; prev
	// the last character written.
	pending []byte
	prev    rune
	// colors lets the renderers' colour sequences through (text only).
	colors bool
}

// shownMode is what a shownWriter writes: text, Markdown or JSON.
type shownMode int

const (
	shownText shownMode = iota
	shownMarkdown
	shownJSON
)

func newShownWriter(w goio.Writer, mode shownMode) *shownWriter {
	return &shownWriter{w: w, mode: mode}
}

func (s *shownWriter) Write(p []byte) (int, error) {
	if len(s.pending) == 0 && len(p) > 0 && plain(p) == len(p) { // all shown as itself: no copy
		s.prev = rune(p[len(p)-1])
		if _, err := s.w.Write(p); err != nil {
			return 0, fmt.Errorf("writing the output: %w", err)
		}
		return len(p), nil
	}
	buf := append(s.pending, p...)
	s.pending = nil
	// Keep back an incomplete character at the end (at most 3 bytes).
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-3; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				s.pending = append([]byte(nil), buf[i:]...)
				buf = buf[:i]
			}
			break
		}
	}
	if _, err := goio.WriteString(s.w, s.shown(buf)); err != nil {
		return 0, fmt.Errorf("writing the output: %w", err)
	}
	return len(p), nil
}

// style is the length of the renderer's colour sequence buf starts with,
// when colours pass, else 0.
func (s *shownWriter) style(buf []byte) int {
	if !s.colors || buf[0] != 0x1b {
		return 0
	}
	return render.StyleAt(buf)
}

// Close writes what is left of a character cut short (shown as its bytes).
func (s *shownWriter) Close() error {
	if len(s.pending) == 0 {
		return nil
	}
	rest := s.pending
	s.pending = nil
	if _, err := goio.WriteString(s.w, s.shown(rest)); err != nil {
		return fmt.Errorf("writing the output: %w", err)
	}
	return nil
}

// plain is the length of buf's leading run of printable ASCII and line
// breaks, which every mode writes as they are (IsHidden is false for them).
func plain(buf []byte) int {
	for i, c := range buf {
		if (c < 0x20 || c > 0x7e) && c != '\n' {
			return i
		}
	}
	return len(buf)
}

// shown is buf with each character not shown as itself written as its
// escape: \x1b, \u202e, \xff (text, Markdown); \u001b, \u202e, a pair of
// them beyond U+FFFF, \ufffd for a byte that is not UTF-8, which
// encoding/json never writes (JSON). Line breaks are kept: imgupd's own (in
// JSON, between values: encoding/json escapes those in strings); in JSON a
// tab or CR, which can only stand between values, is written as a space.
func (s *shownWriter) shown(buf []byte) string {
	var b strings.Builder
	b.Grow(len(buf))
	for i := 0; i < len(buf); {
		if n := plain(buf[i:]); n > 0 {
			b.Write(buf[i : i+n])
			i += n
			s.prev = rune(buf[i-1])
			continue
		}
		if n := s.style(buf[i:]); n > 0 {
			b.Write(buf[i : i+n])
			i += n
			continue
		}
		r, size := utf8.DecodeRune(buf[i:])
		raw := buf[i : i+size]
		i += size
		joiner := s.mode == shownMarkdown && string(r) == render.WordJoiner && (s.prev == '@' || s.prev == '#')
		s.prev = r
		switch {
		case r == '\n' || joiner || r != utf8.RuneError && !textutil.IsHidden(r):
			b.Write(raw)
		case s.mode != shownJSON:
			b.WriteString(textutil.Visible(string(raw)))
		case r == '\t' || r == '\r':
			// JSON allows these raw only between values (encoding/json
			// escapes them in strings), where a space means the same.
			b.WriteByte(' ')
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}
