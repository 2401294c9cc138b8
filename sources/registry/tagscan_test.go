package registry

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/imgupd/imgupd/internal/bounded"
)

// decodeResult is what a decoder made of one page: the tags it added, in
// order, whether it accepted the page, and whether it stopped at the byte
// budget or at add's error.
type decodeResult struct {
	tags           []string
	ok, budget, at bool
}

// runDecoder runs decode over data read through r's wrapping: chunk bytes
// at most per read (0: as strings.Reader reads), a byte budget of budget
// (negative: none), and add refusing the tag after max (negative: none).
func runDecoder(decode func(io.Reader, func(string) error) error, data []byte, chunk int, budget int64, max int) decodeResult {
	var r io.Reader = strings.NewReader(string(data))
	if chunk > 0 {
		r = &chunkReader{r: r, n: chunk}
	}
	if budget >= 0 {
		r = &bounded.Reader{R: r, N: budget, Over: errBudget}
	}
	stop := errors.New("stop")
	var res decodeResult
	err := decode(r, func(s string) error {
		if max >= 0 && len(res.tags) == max {
			return stop
		}
		res.tags = append(res.tags, s)
		return nil
	})
	res.ok, res.budget, res.at = err == nil, errors.Is(err, errBudget), errors.Is(err, stop)
	return res
}

// chunkReader reads at most n bytes at a time.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}

// FuzzDecodeTagsMatchesDecoder: the hand-written scanner (decodeTags)
// accepts and rejects every input as encoding/json's Decoder read token by
// token (decodeTagsTokens, the decoder it replaced) does, and adds the same
// tags, byte for byte, in the same order, before it accepts or rejects
// them: whole, through reads of any size, under any byte budget, with an
// add that stops.
func FuzzDecodeTagsMatchesDecoder(f *testing.F) {
	for _, s := range []string{
		`{"name":"a/b","tags":["1.0.0","latest"]}`,
		`{"tags":null}`,
		`{"tags":["a",null,"\u00e9\ud800","\ud83d\ude00","\n\t\\\"\/"]}`,
		"{\"tags\":[\"\xff\xfe\",\"caf\xc3\xa9\"]}",
		`{"child":[{"x":[1,{"y":null}]}],"tags":["1"],"name":"n"}`,
		`{"tags":["1"]} {"tags":["2"]}`,
		`{"TAGS":["1"],"tagſ":["2"],"tags ":["3"]}`,
		`{"n":-0.5e+3,"m":1E400,"tags":["1"]}`,
		`{"n":-01,"tags":["1"]}`,
		`{"n":[true,false,null,{},[],"x",{"a":{"b":[]}}],"tags":["1"]}`,
		`{"tags":[1]}`,
		`{"tags":["1",]}`,
		`{"tags":["1" "2"]}`,
		`{"a":1,}`,
		`{"a" 1}`,
		`{"tags":[nul]}`,
		`{"tags":["a\x"]}`,
		"{\"tags\":[\"a\x01\"]}",
		`{"\u0074ags":["esc"]}`,
		`  {"tags":[ "1" , "2" ] }  x`,
		`{"tags":["1"],"tags":["2"]}`,
		`[]`,
		``,
	} {
		f.Add([]byte(s), uint8(0), int16(-1), int8(-1))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8, budget int16, max int8) {
		c, b, m := int(chunk), int64(budget), int(max)
		got := runDecoder(decodeTags, data, c, b, m)
		want := runDecoder(decodeTagsTokens, data, c, b, m)
		if got.ok != want.ok || (got.ok || want.at) && !slices.Equal(got.tags, want.tags) || got.at != want.at {
			t.Fatalf("%q (reads of %d, budget %d, stop after %d):\nscanner %q ok %v budget %v stopped %v\ndecoder %q ok %v budget %v stopped %v",
				data, c, b, m, got.tags, got.ok, got.budget, got.at, want.tags, want.ok, want.budget, want.at)
		}
		if !slices.Equal(got.tags, want.tags) && !slices.Equal(got.tags, want.tags[:min(len(want.tags), len(got.tags))]) &&
			!slices.Equal(want.tags, got.tags[:min(len(want.tags), len(got.tags))]) {
			t.Fatalf("%q: a rejected page's tags differ: scanner %q, decoder %q", data, got.tags, want.tags)
		}
		// Byte at a time, whatever the budget: the same as whole.
		if one := runDecoder(decodeTags, data, 1, -1, -1); one.ok != runDecoder(decodeTagsTokens, data, 0, -1, -1).ok {
			t.Fatalf("%q read a byte at a time: ok %v", data, one.ok)
		}
	})
}

// TestDecodeTagsOneByteReader: the scanner reads pages that arrive a byte
// at a time, strings and numbers across reads.
func TestDecodeTagsOneByteReader(t *testing.T) {
	t.Parallel()
	in := `{"name":"a/b","n":-12.5e-3,"x":[true,{"y":"\u00e9"}],"tags":["1.0.0","caf\u00e9",null,"` + strings.Repeat("v", 5000) + `"]}`
	var got []string
	if err := decodeTags(iotest.OneByteReader(strings.NewReader(in)), func(s string) error { got = append(got, s); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []string{"1.0.0", "café", "", strings.Repeat("v", 5000)}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// tagPage is a registry's page of n semver tags.
func tagPage(n int) string {
	var b strings.Builder
	b.WriteString(`{"name":"team/app","tags":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strings.Repeat("1", 1+i%3) + "." + strings.Repeat("2", 1+i%2) + ".0-rc" + string(rune('0'+i%10)) + `"`)
	}
	b.WriteString("]}")
	return b.String()
}

// BenchmarkDecodeTags1000 and BenchmarkDecodeTagsDecoder1000: a page of
// 1,000 tags, the scanner against the Decoder walk it replaced.
func BenchmarkDecodeTags1000(b *testing.B) { benchDecode(b, decodeTags) }

func BenchmarkDecodeTagsDecoder1000(b *testing.B) { benchDecode(b, decodeTagsTokens) }

func benchDecode(b *testing.B, decode func(io.Reader, func(string) error) error) {
	page := tagPage(1000)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	tags := make([]string, 0, 1000)
	for b.Loop() {
		tags = tags[:0]
		if err := decode(strings.NewReader(page), func(s string) error { tags = append(tags, s); return nil }); err != nil || len(tags) != 1000 {
			b.Fatal(err, len(tags))
		}
	}
}
