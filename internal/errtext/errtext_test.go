package errtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOneLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"  denied\n\tby   policy\r\n", "denied by policy"},
		{"a\x00b\x7fc", "a b c"},
		{"<html>\n<body>\n  503\n</body>", "<html> <body> 503 </body>"},
	} {
		if got := OneLine(c.in); got != c.want {
			t.Errorf("OneLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	long := strings.Repeat("é", MaxDetail+50)
	got := OneLine(long)
	if n := utf8.RuneCountInString(got); n != MaxDetail+1 || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Errorf("OneLine(long) has %d runes, valid %v, suffix %q", n, utf8.ValidString(got), got[len(got)-3:])
	}
}

func TestScrub(t *testing.T) {
	got := Scrub("token ghp_canary123 refused for ab; ghp_canary123 again", "ghp_canary123", "ab", "")
	if want := "token [redacted] refused for ab; [redacted] again"; got != want {
		t.Errorf("Scrub = %q, want %q", got, want)
	}
}
