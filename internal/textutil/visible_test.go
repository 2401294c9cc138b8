package textutil

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestVisible(t *testing.T) {
	cases := map[string]string{
		"plain text: é ✔":             "plain text: é ✔",
		"a\nb":                        `a\nb`,
		"\x1b]8;;https://x\x1b\\link": `\x1b]8;;https://x\x1b\link`,
		"\x1b[2J":                     `\x1b[2J`,
		"ok\rFORGED":                  `ok\rFORGED`,
		"\u202eevil":                  `\u202eevil`,
		"a\u200bb\ufeff":              `a\u200bb\ufeff`,
		"\xff\xfe":                    `\xff\xfe`,
		"\u0085next":                  `\u0085next`,
		"tab\there":                   `tab\there`,
		"\U000e0041tag":               `\U000e0041tag`,
		"hangul\u3164filler":          `hangul\u3164filler`,
		"line\u2028sep":               `line\u2028sep`,
	}
	for in, want := range cases {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
	if got := VisibleLines("a\nb\x1b"); got != "a\nb\\x1b" {
		t.Errorf("VisibleLines kept %q", got)
	}
}

// FuzzVisible: nothing hidden is left, every line break is shown, and text
// with nothing hidden is left as it is.
func FuzzVisible(f *testing.F) {
	for _, s := range []string{"a\nb", "\x1b[31mred", "\u202e", "\xff", "plain"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := Visible(s)
		if !utf8.ValidString(v) {
			t.Fatalf("%q: not UTF-8: %q", s, v)
		}
		for _, r := range v {
			if IsHidden(r) {
				t.Fatalf("%q: %q still hides %U", s, v, r)
			}
		}
		if !strings.ContainsFunc(s, IsHidden) && utf8.ValidString(s) && v != s {
			t.Fatalf("%q changed to %q", s, v)
		}
	})
}
