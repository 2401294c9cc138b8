package jsonindent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// reference is what json.NewEncoder with SetIndent writes.
func reference(t testing.TB, v any, indent string) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// oneByteWriter takes one byte a write: the indenter's state must carry
// over between its flushes whatever their size.
type chunked struct {
	b bytes.Buffer
	n int
}

func (c *chunked) Write(p []byte) (int, error) {
	c.n++
	return c.b.Write(p)
}

var strs = []string{"", "a", `{`, `}`, `[`, `]`, `,`, `:`, `"`, `\`, `\"`, `"\\"`, "<a href='x'>&</a>", "tab\there", "line\nbreak",
	"é ü 日本", "\u2028\u2029", "\x00\x1f", "\xff", strings.Repeat("x", 3000), `{"a":[1,2]}`}

func randValue(r *rand.Rand, depth int) any {
	switch k := r.IntN(9); {
	case depth > 4 || k < 3:
		switch r.IntN(6) {
		case 0:
			return nil
		case 1:
			return r.IntN(2) == 0
		case 2:
			return r.NormFloat64() * 1e6
		case 3:
			return r.IntN(1000) - 500
		}
		return strs[r.IntN(len(strs))]
	case k < 6:
		m := map[string]any{}
		for n := r.IntN(5); n > 0; n-- {
			m[strs[r.IntN(len(strs))]] = randValue(r, depth+1)
		}
		return m
	default:
		var s []any
		if r.IntN(4) > 0 {
			s = []any{}
		}
		for n := r.IntN(5); n > 0; n-- {
			s = append(s, randValue(r, depth+1))
		}
		return s
	}
}

// TestEncodeIsEncoderSetIndent: over random values (nested objects and
// arrays, empty ones, strings holding every punctuation, escapes, HTML and
// long runs), Encode writes exactly what an Encoder with SetIndent writes.
func TestEncodeIsEncoderSetIndent(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 2))
	for i := range 5000 {
		v := randValue(r, 0)
		for _, indent := range []string{"  ", "\t", ""} {
			want := reference(t, v, indent)
			var got chunked
			if err := Encode(&got, v, indent); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.b.Bytes(), want) {
				t.Fatalf("value %d, indent %q:\ngot  %s\nwant %s", i, indent, got.b.Bytes(), want)
			}
		}
	}
	// Past a flush: many writes, the same bytes.
	big := make([]any, 0, 20000)
	for i := range 20000 {
		big = append(big, map[string]any{"tag": fmt.Sprintf("1.%d.%d", i/100, i%100), "kept": i%3 == 0, "why": strs[i%len(strs)]})
	}
	var got chunked
	if err := Encode(&got, map[string]any{"tags": big}, "  "); err != nil {
		t.Fatal(err)
	}
	if want := reference(t, map[string]any{"tags": big}, "  "); !bytes.Equal(got.b.Bytes(), want) || got.n < 2 {
		t.Fatalf("large value: equal %v, %d writes", bytes.Equal(got.b.Bytes(), want), got.n)
	}
}

// TestEncodeObject: the first field goes first, as if v had it; an empty
// object gets it alone; a value that is no object is refused.
func TestEncodeObject(t *testing.T) {
	type answer struct {
		B string `json:"b"`
		A []int  `json:"a"`
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{answer{B: "x", A: []int{}}, "{\n  \"schemaVersion\": 1,\n  \"b\": \"x\",\n  \"a\": []\n}\n"},
		{struct{}{}, "{\n  \"schemaVersion\": 1\n}\n"},
		{map[string]any{}, "{\n  \"schemaVersion\": 1\n}\n"},
	} {
		var b bytes.Buffer
		if err := EncodeObject(&b, tc.v, "  ", "schemaVersion", 1); err != nil || b.String() != tc.want {
			t.Errorf("%#v: %q %v, want %q", tc.v, b.String(), err, tc.want)
		}
	}
	if err := EncodeObject(&bytes.Buffer{}, []int{1}, "  ", "schemaVersion", 1); !errors.Is(err, ErrNotObject) {
		t.Errorf("an array: %v", err)
	}
}

// FuzzIndent: any valid JSON, compacted as encoding/json writes it, is
// indented as json.Indent indents it.
func FuzzIndent(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[{},[],{"b":"}]{[,:\""}]}`, `"\\\""`, `[1,true,null,"x"]`, `{"":{"":[[]]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			return
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		ind := newIndenter(&got, "  ")
		ind.write(compact.Bytes())
		if err := ind.flush(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%q:\ngot  %s\nwant %s", compact.Bytes(), got.Bytes(), want.Bytes())
		}
	})
}

// tagsAnswer is the shape of `simulate -o json` over 5,000 tags: a
// list of small objects, most of the bytes in strings.
func tagsAnswer() any {
	type fate struct {
		Tag     string `json:"tag"`
		Digest  string `json:"digest,omitempty"`
		Kept    bool   `json:"kept"`
		Dropped string `json:"dropped,omitempty"`
		Created string `json:"created,omitempty"`
	}
	tags := make([]fate, 5000)
	for i := range tags {
		tags[i] = fate{Tag: fmt.Sprintf("3.%d.%d", i/100, i%100), Kept: i%7 == 0, Created: "2026-11-29T12:00:00Z",
			Digest: "sha256:" + strings.Repeat("ab", 32), Dropped: "does not satisfy the constraint ~3.5"}
	}
	return map[string]any{"image": "ghcr.io/acme/web", "tags": tags}
}

// BenchmarkEncode5000Tags against BenchmarkEncoderSetIndent5000Tags: the
// same bytes written.
func BenchmarkEncode5000Tags(b *testing.B) {
	v := tagsAnswer()
	for b.Loop() {
		if err := Encode(io.Discard, v, "  "); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncoderSetIndent5000Tags(b *testing.B) {
	v := tagsAnswer()
	for b.Loop() {
		enc := json.NewEncoder(io.Discard)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			b.Fatal(err)
		}
	}
}

// partedAnswer is written in parts: head's fields, the items a slice at a
// time, tail's fields.
type partedAnswer struct {
	partedHead
	Items []partedItem `json:"items"`
	Tail  []string     `json:"tail,omitempty"`
}

type partedHead struct {
	Name  string `json:"name"`
	Empty string `json:"empty,omitempty"`
	N     int    `json:"n"`
}

type partedItem struct {
	S string `json:"s"`
	K []int  `json:"k,omitempty"`
}

func (a partedAnswer) JSONParts() []Part {
	return []Part{Fields(a.partedHead), Array("items", len(a.Items), func(i, j int) any { return a.Items[i:j] }),
		Fields(struct {
			Tail []string `json:"tail,omitempty"`
		}{a.Tail})}
}

// TestPartedIsTheWholeObject: an object written in parts is, byte for
// byte, the object marshalled whole (EncodeObject of its plain form):
// arrays empty, shorter and longer than a chunk and on its edges, strings
// with brackets, quotes, escapes and HTML, fields left out when empty,
// indented or not; and it is written as it goes, not at the end.
func TestPartedIsTheWholeObject(t *testing.T) {
	type plain partedAnswer // the same fields, no JSONParts
	for _, n := range []int{0, 1, arrayChunk - 1, arrayChunk, arrayChunk + 1, 3*arrayChunk + 7} {
		for _, tail := range [][]string{nil, {"<b>", `"]}`}} {
			a := partedAnswer{partedHead: partedHead{Name: `x"{[<&>`, N: n}, Tail: tail}
			for i := range n {
				a.Items = append(a.Items, partedItem{S: fmt.Sprintf("%d]},\\\"\u2028", i), K: make([]int, i%3)})
			}
			if n == 0 {
				a.Items = []partedItem{}
			}
			for _, indent := range []string{"", "  "} {
				var got, want bytes.Buffer
				if err := EncodeObject(&got, a, indent, "schemaVersion", 1); err != nil {
					t.Fatal(err)
				}
				if err := EncodeObject(&want, plain(a), indent, "schemaVersion", 1); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Fatalf("%d items, tail %q, indent %q: parts\n%.300s\nwhole\n%.300s", n, tail, indent, got.Bytes(), want.Bytes())
				}
			}
		}
	}
	// Not marshalled whole first: what writing 20,000 items allocates is a
	// fraction of the whole object's compact form.
	a := partedAnswer{Items: make([]partedItem, 20000)}
	for i := range a.Items {
		a.Items[i].S = fmt.Sprintf("1.%d.%d", i/100, i%100)
	}
	allocated := func(v any) uint64 {
		runtime.GC() // twice: encoding/json's pooled buffers go too
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := EncodeObject(io.Discard, v, "  ", "schemaVersion", 1); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	compact, err := json.Marshal(plain(a))
	if err != nil {
		t.Fatal(err)
	}
	if parts, whole := allocated(a), allocated(plain(a)); parts > uint64(len(compact))/4 {
		t.Errorf("written in parts, %d bytes allocated (whole, %d) for %d bytes of compact JSON: marshalled whole first", parts, whole, len(compact))
	}
}
