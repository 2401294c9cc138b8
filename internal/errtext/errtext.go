// Package errtext shapes the detail text of a classified failure (a
// registry's, a git server's, a forge's, a chart repository's) before it
// reaches a report: one line, bounded, with every secret in use removed.
// The packages that talk to servers share it so that a server echoing a
// token back, or answering with a whole HTML page, is handled the same way
// everywhere.
package errtext

import (
	"strings"

	"github.com/imgupd/imgupd/internal/textutil"
)

// MaxDetail bounds a detail text in runes: servers and proxies sometimes
// answer errors with whole HTML pages.
const MaxDetail = 300

// Redacted replaces a secret in a detail text.
const Redacted = "[redacted]"

// OneLine collapses whitespace and control characters into single spaces
// and truncates the text to MaxDetail runes, marking the cut with "…".
func OneLine(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == '\n' || r == '\r' || r == '\t' || r < 0x20 || r == 0x7f
	}), " ")
	s = strings.Join(strings.Fields(s), " ")
	// Clipped at a word's end where one is near (textutil.ClipWords).
	return textutil.ClipWords(s, MaxDetail+1)
}

// Scrub removes each secret of 3 characters or more from s. Shorter values
// are left: replacing "a" or "ab" would mangle the text and hide nothing.
func Scrub(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 3 {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	return s
}
