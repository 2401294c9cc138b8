package textutil

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible is s on one line with nothing hidden: every character that is not
// shown as itself — a line break, a carriage return, a tab, any other C0 or
// C1 control (ESC, and with it every CSI, OSC and DCS sequence), a bidi
// control, a zero-width or other format character, an invisible filler, a
// byte that is not UTF-8 — written as its escape (\n, \x1b, \u202e, \xff).
// Text the cluster, a registry or git wrote goes through it before a
// terminal, a comment line or a one-line field shows it.
func Visible(s string) string { return visible(s, false) }

// VisibleLines is Visible keeping line breaks: for text whose lines are
// imgupd's own (a document shown across lines).
func VisibleLines(s string) string { return visible(s, true) }

// IsHidden reports whether r is not shown as itself: controls, format
// characters (bidi, zero-width), line and paragraph separators, fillers.
func IsHidden(r rune) bool {
	switch r {
	case ' ':
		return false
	case '\u115f', '\u1160', '\u3164', '\uffa0', '\u2800', '\u180e':
		return true
	}
	return !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r)
}

func visible(s string, lines bool) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || IsHidden(r) && !(lines && r == '\n') {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && lines:
			b.WriteByte('\n')
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && IsHidden(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case IsHidden(r) && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case IsHidden(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}
