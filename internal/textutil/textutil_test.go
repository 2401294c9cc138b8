package textutil

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOneLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", "  a \n\t b  ": "a b", "one": "one", "x\r\ny": "x y"} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", "a": "a", "a\nb\nc": "a", "\nb": ""} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exact", 5, "exact"},
		{"toolong", 5, "tool…"},
		{"héllo wörld", 6, "héllo…"},
		{"日本語のテキスト", 4, "日本語…"},
	} {
		if got := Clip(tc.s, tc.n); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestClipBytes(t *testing.T) {
	t.Parallel()
	if got := ClipBytes("abcdef", 3); got != "abc…" {
		t.Errorf("ClipBytes = %q", got)
	}
	if got := ClipBytes("abc", 3); got != "abc" {
		t.Errorf("ClipBytes = %q", got)
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"image_list", "image-list", 1}, {"stratgy", "strategy", 1}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"héllo", "hello", 1}} {
		if got := Distance(tc.a, tc.b); got != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}

func TestNearest(t *testing.T) {
	t.Parallel()
	cands := []string{"summary", "diagnose", "tags", "logs", "explain", "help", "lags"}
	within := func(max int) func(string, int) bool { return func(_ string, d int) bool { return d <= max } }
	for _, tc := range []struct {
		name string
		s    string
		n    int
		near func(string, int) bool
		want []string
	}{
		{"one", "diagnos", 1, within(2), []string{"diagnose"}},
		{"tie keeps order", "bags", 0, within(1), []string{"tags", "lags"}},
		{"none near", "zzzzzz", 3, within(2), nil},
		{"all", "tag", 2, nil, []string{"tags", "lags"}},
		{"filter by candidate", "tag", 0, func(c string, d int) bool { return c != "tags" && d <= 3 }, []string{"lags", "logs"}},
	} {
		if got := Nearest(tc.s, cands, tc.n, tc.near); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Nearest(%q) = %q, want %q", tc.name, tc.s, got, tc.want)
		}
	}
	if got := NearestOne("Diagnose", cands, within(0)); got != "" {
		t.Errorf("NearestOne is case-sensitive, got %q", got)
	}
	if got := NearestFold("DIAGNOSE", cands, 1, within(0)); !slices.Equal(got, []string{"diagnose"}) {
		t.Errorf("NearestFold = %q", got)
	}
}

// FuzzClip: Clip never panics, keeps a string that fits, and otherwise
// returns n runes, the last "…", the rest a prefix of s, never a rune cut in
// two.
func FuzzClip(f *testing.F) {
	for _, s := range []string{"", "a", "héllo wörld", "日本語のテキスト", "\xff\xfe", "a\u0301b"} {
		f.Add(s, 3)
	}
	f.Add("abc", 0)
	f.Add("abc", -1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 300
		got := Clip(s, n)
		count := utf8.RuneCountInString(s)
		switch {
		case count <= n:
			if got != s {
				t.Fatalf("Clip(%q, %d) = %q; it fits, want it whole", s, n, got)
			}
		case n < 1:
			if got != "" {
				t.Fatalf("Clip(%q, %d) = %q, want \"\"", s, n, got)
			}
		default:
			if c := utf8.RuneCountInString(got); c != n || !strings.HasSuffix(got, "…") {
				t.Fatalf("Clip(%q, %d) = %q: %d runes, want %d ending in …", s, n, got, c, n)
			}
			if prefix := strings.TrimSuffix(got, "…"); !strings.HasPrefix(s, prefix) && utf8.ValidString(s) {
				t.Fatalf("Clip(%q, %d) = %q is not a prefix of s", s, n, got)
			}
			if utf8.ValidString(s) && !utf8.ValidString(got) {
				t.Fatalf("Clip(%q, %d) = %q cut a rune in two", s, n, got)
			}
		}
	})
}

func TestClipWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"one given with --forge", 14, "one given…"},
		{"one given, with", 12, "one given…"},
		{"abcdefghijklmnop qr", 10, "abcdefghi…"},
		{"a b", 0, ""},
		{"héllo wörld again", 12, "héllo wörld…"},
	} {
		if got := ClipWords(c.in, c.n); got != c.want {
			t.Errorf("ClipWords(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func FuzzClipWords(f *testing.F) {
	f.Add("one given with --forge", 14)
	f.Add("abc", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n > 1000 || n < -5 {
			return
		}
		got := ClipWords(s, n)
		if utf8.RuneCountInString(s) <= n {
			if got != s {
				t.Fatalf("fits but changed: %q -> %q", s, got)
			}
			return
		}
		if n < 1 {
			if got != "" {
				t.Fatalf("n=%d: %q", n, got)
			}
			return
		}
		if utf8.RuneCountInString(got) > n || !strings.HasSuffix(got, "…") {
			t.Fatalf("ClipWords(%q, %d) = %q: longer than n or no …", s, n, got)
		}
		if utf8.ValidString(s) && !strings.HasPrefix(s, strings.TrimSuffix(got, "…")) {
			t.Fatalf("ClipWords(%q, %d) = %q: not a prefix", s, n, got)
		}
	})
}
