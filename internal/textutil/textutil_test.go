package textutil

import (
	"slices"
	"testing"
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
