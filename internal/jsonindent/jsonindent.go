// Package jsonindent writes what encoding/json marshals, indented as an
// Encoder with SetIndent("", indent) indents it, byte for byte, as it
// writes: without the second copy of the whole answer that SetIndent makes,
// and without json.Indent's validating scanner, which reads every byte
// through a state machine (a fifth of `simulate -o json`'s time over 5,000
// tags). The compact form encoding/json wrote is valid JSON with no space
// between values, so indenting it needs only to know whether a byte is in a
// string.
package jsonindent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrNotObject is returned (wrapped) by EncodeObject for a value that does
// not marshal to a JSON object.
var ErrNotObject = errors.New("not a JSON object")

// flushAt is how much indented output is kept before it is written.
const flushAt = 32 << 10

// Encode writes v as json.NewEncoder(w) with SetIndent("", indent)
// writes it: HTML characters escaped, a newline after the value (and, as
// the Encoder, no indentation at all for an empty indent).
func Encode(w io.Writer, v any, indent string) error {
	ind := newIndenter(w, indent)
	// The Encoder marshals into its own buffer and writes it, newline
	// included, to the indenter: json.Marshal would copy it out first.
	if err := json.NewEncoder(ind).Encode(v); err != nil {
		return err
	}
	return ind.flush()
}

// EncodeObject is Encode for a v that marshals to a JSON object, with the
// field name: value first (as if v had it as its first field). A v that is
// Parted is written part by part.
func EncodeObject(w io.Writer, v any, indent, name string, value any) error {
	if p, ok := v.(Parted); ok {
		return encodeParts(newIndenter(w, indent), append([]Part{Fields(map[string]any{name: value})}, p.JSONParts()...))
	}
	first, err := json.Marshal(map[string]any{name: value})
	if err != nil {
		return err
	}
	ind := newIndenter(w, indent)
	if err := json.NewEncoder(&splice{ind: ind, first: first}).Encode(v); err != nil {
		return err
	}
	return ind.flush()
}

// Parted is a value whose JSON object is written in parts, in order: its
// large arrays a slice at a time, not marshalled whole before the first
// byte is written (encoding/json builds the whole value in one buffer,
// grown by doubling: every page of it new memory for a short command).
// The output is the bytes of the object the parts make, marshalled whole.
type Parted interface {
	JSONParts() []Part
}

// Part is one piece of a Parted object: an object's fields (Fields) or
// one array field (Array).
type Part struct {
	fields any
	name   string
	n      int
	slice  func(i, j int) any
}

// Fields is the fields of v, which marshals to a JSON object (none when
// it marshals to {}).
func Fields(v any) Part { return Part{fields: v} }

// Array is the field name holding an array of n elements, written
// arrayChunk elements at a time: slice(i, j) is elements i to j (excluded)
// as a value that marshals to a JSON array (a sub-slice).
func Array(name string, n int, slice func(i, j int) any) Part {
	return Part{name: name, n: n, slice: slice}
}

// arrayChunk is how many elements of an Array are marshalled at once: few
// enough that the buffer stays small, enough that the calls cost nothing.
const arrayChunk = 256

// encodeParts writes the object the parts make to ind.
func encodeParts(ind *indenter, parts []Part) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // as Encode: HTML characters escaped
	// inner marshals v and returns what is between its outer brackets,
	// checked to be open, close.
	inner := func(v any, open, close byte) ([]byte, error) {
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		b := bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
		if len(b) < 2 || b[0] != open || b[len(b)-1] != close {
			return nil, fmt.Errorf("%w: %.20q", ErrNotObject, b)
		}
		return b[1 : len(b)-1], nil
	}
	ind.write([]byte{'{'})
	wrote := false
	for _, p := range parts {
		if p.slice == nil {
			b, err := inner(p.fields, '{', '}')
			if err != nil {
				return err
			}
			if len(b) > 0 {
				if wrote {
					ind.write([]byte{','})
				}
				ind.write(b)
				wrote = true
			}
			continue
		}
		if wrote {
			ind.write([]byte{','})
		}
		buf.Reset()
		if err := enc.Encode(p.name); err != nil {
			return err
		}
		ind.write(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
		ind.write([]byte(":["))
		for i := 0; i < p.n; i += arrayChunk {
			b, err := inner(p.slice(i, min(i+arrayChunk, p.n)), '[', ']')
			if err != nil {
				return err
			}
			if i > 0 && len(b) > 0 {
				ind.write([]byte{','})
			}
			ind.write(b)
		}
		ind.write([]byte{']'})
		wrote = true
	}
	ind.write([]byte("}\n"))
	if ind.err != nil {
		return ind.err
	}
	return ind.flush()
}

// splice is an object's compact JSON written to ind with first's field
// (first is a compact object of one field) before the object's own.
type splice struct {
	ind     *indenter
	first   []byte
	started bool
}

func (s *splice) Write(b []byte) (int, error) {
	if !s.started {
		if len(b) < 2 || b[0] != '{' {
			return 0, fmt.Errorf("%w: %.20q", ErrNotObject, bytes.TrimSuffix(b, []byte{'\n'}))
		}
		s.started = true
		s.ind.write(s.first[:len(s.first)-1]) // {"name":value
		if b[1] != '}' {
			s.ind.write([]byte{','})
		}
		s.ind.write(b[1:])
		return len(b), s.ind.err
	}
	s.ind.write(b)
	return len(b), s.ind.err
}

// indenter is json.Indent's appendIndent without the scanner, over input
// that is valid and compact; its state carries over from one write to the
// next.
type indenter struct {
	w      io.Writer
	indent string
	out    []byte
	err    error
	depth  int
	// needIndent: an object or array was opened and nothing written in it
	// yet (an empty one stays {} or []).
	needIndent bool
	inString   bool
	escaped    bool
}

// Write indents b (io.Writer, for an Encoder).
func (d *indenter) Write(b []byte) (int, error) {
	d.write(b)
	return len(b), d.err
}

func newIndenter(w io.Writer, indent string) *indenter {
	return &indenter{w: w, indent: indent, out: make([]byte, 0, flushAt+256)}
}

func (d *indenter) newline() {
	d.out = append(d.out, '\n')
	for range d.depth {
		d.out = append(d.out, d.indent...)
	}
}

func (d *indenter) write(src []byte) {
	if d.indent == "" { // the Encoder does not indent then
		d.out = append(d.out, src...)
		d.spill()
		return
	}
	for len(src) > 0 {
		if d.inString {
			// Copy the string up to its closing quote in one go.
			i := 0
			for ; i < len(src); i++ {
				c := src[i]
				if d.escaped {
					d.escaped = false
					continue
				}
				if c == '\\' {
					d.escaped = true
					continue
				}
				if c == '"' {
					d.inString = false
					i++
					break
				}
			}
			d.out = append(d.out, src[:i]...)
			src = src[i:]
			d.spill()
			continue
		}
		c := src[0]
		src = src[1:]
		if d.needIndent && c != '}' && c != ']' {
			d.needIndent = false
			d.depth++
			d.newline()
		}
		switch c {
		case '"':
			d.inString = true
			d.out = append(d.out, c)
		case '{', '[':
			d.needIndent = true
			d.out = append(d.out, c)
		case ',':
			d.out = append(d.out, c)
			d.newline()
		case ':':
			d.out = append(d.out, c, ' ')
		case '}', ']':
			if d.needIndent {
				d.needIndent = false
			} else {
				d.depth--
				d.newline()
			}
			d.out = append(d.out, c)
		default:
			d.out = append(d.out, c)
		}
		d.spill()
	}
}

// spill writes the output kept once it is large enough.
func (d *indenter) spill() {
	if len(d.out) >= flushAt {
		_ = d.flush()
	}
}

func (d *indenter) flush() error {
	if d.err == nil && len(d.out) > 0 {
		_, d.err = d.w.Write(d.out)
	}
	d.out = d.out[:0]
	return d.err
}
