package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// decodeTags streams {"name": ..., "tags": [...]} from r, calling add for
// each tag, without holding the page: a page is only as large as the tags
// it adds. Members other than "tags" (any case, as encoding/json matches
// it) are skipped; "tags": null is no tags, a null tag "".
//
// It is a scanner of that one shape, written by hand because
// encoding/json's Decoder, read token by token, allocated for every
// token (a fifth of a fleet scan's CPU; encoding/json/v2 needs
// GOEXPERIMENT=jsonv2 in Go 1.26). Registry answers are hostile input, so
// it accepts and rejects exactly what that Decoder walk accepted and
// rejected (the first JSON value of the stream, trailing bytes unread) and
// adds the same tags in the same order: FuzzDecodeTagsMatchesDecoder holds
// it to that walk (decodeTagsTokens, kept in the tests), on any input and
// through any read sizes and byte budgets. A tag or key of printable ASCII
// without escapes (what registries send) is taken as it is; any other
// string is validated and unquoted by encoding/json itself.
func decodeTags(r io.Reader, add func(string) error) error {
	s := scanners.Get().(*tagScanner)
	s.r, s.pos, s.end, s.rerr, s.off = r, 0, 0, nil, 0
	err := s.decode(add)
	s.r, s.rerr = nil, nil
	if cap(s.tok) <= 64<<10 { // a page's one long string is not kept
		scanners.Put(s)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errBudget):
		return err
	}
	var over *ListLimit
	if errors.As(err, &over) {
		return err
	}
	return fmt.Errorf("decoding tag list: %w", err)
}

// scanners keeps the scanners' read buffers between pages.
var scanners = sync.Pool{New: func() any { return &tagScanner{buf: make([]byte, 4096)} }}

// tagScanner reads one tag-list page from r through buf.
type tagScanner struct {
	r        io.Reader
	buf      []byte
	pos, end int   // buf[pos:end] is read and not yet scanned
	off      int64 // bytes scanned before buf[pos], for errors
	rerr     error // r's error, returned once buf is spent
	tok      []byte
}

// errSyntax is a page that is not a tag list's JSON.
type errSyntax struct {
	msg string
	off int64
}

func (e *errSyntax) Error() string { return fmt.Sprintf("%s at offset %d", e.msg, e.off) }

func (s *tagScanner) syntax(format string, a ...any) error {
	return &errSyntax{msg: fmt.Sprintf(format, a...), off: s.off + int64(s.pos)}
}

// fill reads more into buf once buf is spent: io.ErrUnexpectedEOF at the
// end of r, r's own error otherwise (the byte budget's among them).
func (s *tagScanner) fill() error {
	s.off += int64(s.end)
	s.pos, s.end = 0, 0
	for {
		if s.rerr != nil {
			if s.rerr == io.EOF {
				return io.ErrUnexpectedEOF
			}
			return s.rerr
		}
		n, err := s.r.Read(s.buf)
		s.end, s.rerr = n, err
		if n > 0 {
			return nil
		}
	}
}

// next skips white space and returns the next byte, consumed.
func (s *tagScanner) next() (byte, error) {
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			s.pos++
			switch c {
			case ' ', '\t', '\n', '\r':
				continue
			}
			return c, nil
		}
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
}

// peek returns the next byte, not consumed (white space included).
func (s *tagScanner) peek() (byte, error) {
	if s.pos == s.end {
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
	return s.buf[s.pos], nil
}

func (s *tagScanner) decode(add func(string) error) error {
	c, err := s.next()
	if err != nil {
		return err
	}
	if c != '{' {
		return s.syntax("invalid character %q looking for the beginning of the tag list object", c)
	}
	if c, err = s.next(); err != nil || c == '}' {
		return err
	}
	for {
		if c != '"' {
			return s.syntax("invalid character %q looking for the beginning of an object key", c)
		}
		raw, simple, err := s.str()
		if err != nil {
			return err
		}
		isTags := false
		if simple {
			isTags = bytes.EqualFold(raw, []byte("tags"))
		} else {
			key, err := unquote(raw)
			if err != nil {
				return err
			}
			isTags = strings.EqualFold(key, "tags") // as json.Unmarshal matches it
		}
		if c, err = s.next(); err != nil {
			return err
		}
		if c != ':' {
			return s.syntax("invalid character %q after an object key", c)
		}
		if c, err = s.next(); err != nil {
			return err
		}
		if isTags {
			err = s.tags(c, add)
		} else {
			err = s.skip(c)
		}
		if err != nil {
			return err
		}
		if c, err = s.next(); err != nil {
			return err
		}
		switch c {
		case '}':
			return nil
		case ',':
			if c, err = s.next(); err != nil {
				return err
			}
		default:
			return s.syntax("invalid character %q after an object member", c)
		}
	}
}

// tags reads the value of "tags", whose first byte is c: null, or an
// array of strings and nulls.
func (s *tagScanner) tags(c byte, add func(string) error) error {
	switch c {
	case 'n':
		return s.literal("ull")
	case '[':
	default:
		return s.syntax("tags begin with %q, want an array", c)
	}
	c, err := s.next()
	if err != nil || c == ']' {
		return err
	}
	for {
		var tag string
		switch c {
		case '"':
			raw, simple, err := s.str()
			if err != nil {
				return err
			}
			if simple {
				tag = string(raw)
			} else if tag, err = unquote(raw); err != nil {
				return err
			}
		case 'n': // null is "", as json.Unmarshal (and Image Updater) read it
			if err := s.literal("ull"); err != nil {
				return err
			}
		default:
			return s.syntax("a tag begins with %q, want a string", c)
		}
		// The Decoder read the byte after a value before it returned the
		// value: past the byte budget, that is the error, not add's.
		if _, err := s.peek(); err != nil && err != io.ErrUnexpectedEOF {
			return err
		}
		if err := add(tag); err != nil {
			return err
		}
		if c, err = s.next(); err != nil {
			return err
		}
		switch c {
		case ']':
			return nil
		case ',':
			if c, err = s.next(); err != nil {
				return err
			}
		default:
			return s.syntax("invalid character %q after a tag", c)
		}
	}
}

// skip reads one value whose first byte is c, keeping none of it.
func (s *tagScanner) skip(c byte) error {
	var open []byte // the arrays and objects c is in, innermost last
	for {
		// c begins a value.
		switch {
		case c == '{' || c == '[':
			end := byte('}')
			if c == '[' {
				end = ']'
			}
			d, err := s.next()
			if err != nil {
				return err
			}
			if d == end {
				break // an empty one: a value read
			}
			open = append(open, c)
			if c == '{' {
				if d, err = s.member(d); err != nil {
					return err
				}
			}
			c = d
			continue
		case c == '"':
			raw, simple, err := s.str()
			if err != nil {
				return err
			}
			if !simple && !validString(raw) {
				return s.syntax("invalid string")
			}
		case c == 't':
			if err := s.literal("rue"); err != nil {
				return err
			}
		case c == 'f':
			if err := s.literal("alse"); err != nil {
				return err
			}
		case c == 'n':
			if err := s.literal("ull"); err != nil {
				return err
			}
		case c == '-' || '0' <= c && c <= '9':
			if err := s.number(c); err != nil {
				return err
			}
		default:
			return s.syntax("invalid character %q looking for the beginning of a value", c)
		}
		// After a value: close what ends here, or go on to the next one.
		for {
			if len(open) == 0 {
				return nil
			}
			d, err := s.next()
			if err != nil {
				return err
			}
			in := open[len(open)-1]
			if d == ',' {
				if c, err = s.next(); err != nil {
					return err
				}
				if in == '{' {
					if c, err = s.member(c); err != nil {
						return err
					}
				}
				break
			}
			if in == '{' && d == '}' || in == '[' && d == ']' {
				open = open[:len(open)-1]
				continue
			}
			return s.syntax("invalid character %q after a value", d)
		}
	}
}

// member reads an object member's key, whose first byte is c, and its
// colon, and returns the first byte of its value.
func (s *tagScanner) member(c byte) (byte, error) {
	if c != '"' {
		return 0, s.syntax("invalid character %q looking for the beginning of an object key", c)
	}
	raw, simple, err := s.str()
	if err != nil {
		return 0, err
	}
	if !simple && !validString(raw) {
		return 0, s.syntax("invalid string")
	}
	if c, err = s.next(); err != nil {
		return 0, err
	}
	if c != ':' {
		return 0, s.syntax("invalid character %q after an object key", c)
	}
	return s.next()
}

// str reads a string's bytes after its opening quote, through its closing
// one, and returns them without the quotes, escapes as they are (valid
// until the next read). simple is a string of printable ASCII without
// escapes, whose bytes are its value; any other is to be validated and
// unquoted by encoding/json (a backslash escapes the byte after it, so the
// closing quote is found whatever the string holds).
func (s *tagScanner) str() (raw []byte, simple bool, err error) {
	simple = true
	esc := false
	s.tok = s.tok[:0]
	for {
		b := s.buf[s.pos:s.end]
		for i, c := range b {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc, simple = true, false
			case c == '"':
				s.pos += i + 1
				if len(s.tok) == 0 {
					return b[:i], simple, nil
				}
				s.tok = append(s.tok, b[:i]...)
				return s.tok, simple, nil
			case c < 0x20 || c >= 0x80:
				simple = false
			}
		}
		s.tok = append(s.tok, b...)
		s.pos = s.end
		if err := s.fill(); err != nil {
			return nil, false, err
		}
	}
}

// literal reads rest, the bytes of true, false or null after the first.
func (s *tagScanner) literal(rest string) error {
	for i := range len(rest) {
		c, err := s.peek()
		if err != nil {
			return err
		}
		if c != rest[i] {
			return s.syntax("invalid character %q in a literal", c)
		}
		s.pos++
	}
	return nil
}

// number reads a number whose first byte is c (consumed) and refuses one
// a float64 cannot hold, as the Decoder did (it read every number into
// one).
func (s *tagScanner) number(c byte) error {
	s.tok = append(s.tok[:0], c)
	digits := func() (int, error) {
		n := 0
		for {
			c, err := s.peek()
			if err == io.ErrUnexpectedEOF {
				return n, nil
			}
			if err != nil {
				return n, err
			}
			if c < '0' || c > '9' {
				return n, nil
			}
			s.tok = append(s.tok, c)
			s.pos++
			n++
		}
	}
	optional := func(set string) (bool, error) {
		c, err := s.peek()
		if err == io.ErrUnexpectedEOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if strings.IndexByte(set, c) < 0 {
			return false, nil
		}
		s.tok = append(s.tok, c)
		s.pos++
		return true, nil
	}
	if c == '-' {
		c2, err := s.peek()
		if err != nil {
			return err
		}
		if c2 < '0' || c2 > '9' {
			return s.syntax("invalid character %q in a number", c2)
		}
		s.tok = append(s.tok, c2)
		s.pos++
		c = c2
	}
	if c != '0' {
		if _, err := digits(); err != nil {
			return err
		}
	}
	for _, part := range []string{".", "eE"} {
		ok, err := optional(part)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if part == "eE" {
			if _, err := optional("+-"); err != nil {
				return err
			}
		}
		n, err := digits()
		if err != nil {
			return err
		}
		if n == 0 {
			c, err := s.peek()
			if err != nil {
				return err
			}
			return s.syntax("invalid character %q in a number", c)
		}
	}
	if _, err := strconv.ParseFloat(string(s.tok), 64); err != nil {
		return s.syntax("number %s out of range", s.tok)
	}
	return nil
}

// quoted is raw between quotes, a new slice.
func quoted(raw []byte) []byte {
	q := make([]byte, 0, len(raw)+2)
	q = append(q, '"')
	q = append(q, raw...)
	return append(q, '"')
}

// validString: raw (a string's bytes without its quotes) is a valid JSON
// string, as encoding/json's scanner reads it.
func validString(raw []byte) bool { return json.Valid(quoted(raw)) }

// unquote decodes raw (a string's bytes without its quotes) as
// encoding/json does: escapes, and invalid UTF-8 as U+FFFD.
func unquote(raw []byte) (string, error) {
	var v string
	if err := json.Unmarshal(quoted(raw), &v); err != nil {
		return "", fmt.Errorf("invalid string: %w", err)
	}
	return v, nil
}
