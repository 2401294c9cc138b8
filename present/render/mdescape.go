package render

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/imgupd/imgupd/internal/textutil"
)

// How values reach GitHub-flavoured Markdown (issue and merge-request
// comments, wikis), so that GitHub shows them as written and acts on none
// of them. Nearly every string of a report holds text the cluster, a
// registry or git wrote, so every string but imgupd's own markup goes
// through one of these. Each first makes the value one line with nothing
// hidden (textutil.Visible: controls, bidi and zero-width characters are
// written as \x1b, \u202e; a line break as \n), then:
//
//   - MarkdownText, for running text (titles, details, fixes' summaries,
//     table cells): a backslash before each character CommonMark or GitHub
//     would read as markup — \ ` * _ ~ [ ] < > & | $ — so that no
//     emphasis, code, link, image, raw HTML (an <img>, a second </details>,
//     imgupd's own <alias> placeholders, which GitHub would drop as unknown
//     tags), entity, table cell or math is made of it; a backslash before the
//     : of :// and the . of www. (GFM's extended autolinks); a word joiner
//     (U+2060, invisible) after each @ and after a # before a digit, so that
//     neither a mention (@org/team notifies a team), an e-mail autolink nor
//     an issue reference (which writes a back-link into the issue named) is
//     made; and a backslash before a first character that would start a
//     block (a list, a heading, a quote, a rule), an entity for a first
//     space (four would start a code block).
//   - MarkdownCode, for a value shown as `code`: inside a code span nothing
//     is markup, so the value is written as it is, between backtick fences
//     longer than any run of backticks in it.
//   - MarkdownCellCode, for code in a table cell: the same, with | written
//     \| (GFM splits cells at every unescaped |, code spans included, and
//     shows \| as |).
//   - markdownFence, for a fenced block: fences longer than any run of
//     backticks in the text, whose lines are kept (a fix step, a log).

// WordJoiner is the invisible character MarkdownText puts after an @ and
// after a # before a digit.
const WordJoiner = "\u2060"

// markdownPunct are the characters MarkdownText writes with a backslash.
const markdownPunct = "\\`*_~[]<>&|$"

// MarkdownText is s as running Markdown text that GitHub shows as written
// (see above).
func MarkdownText(s string) string {
	s = textutil.Visible(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		rest := s[i+size:]
		switch {
		case strings.ContainsRune(markdownPunct, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == ':' && strings.HasPrefix(rest, "//"):
			b.WriteString(`\:`)
		case r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteString(`\.`)
		case r == '@':
			b.WriteString("@" + WordJoiner)
		case r == '#' && rest != "" && rest[0] >= '0' && rest[0] <= '9':
			b.WriteString("#" + WordJoiner)
		case i == 0 && opensBlock(s):
			b.WriteByte('\\')
			b.WriteRune(r)
		case i == 0 && r == ' ':
			// Indented by four, a line is a code block: the first space
			// as an entity indents nothing.
			b.WriteString("&#32;")
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return leadingNumber(b.String())
}

// opensBlock reports whether text at the start of a line would open a
// block: a heading (#), a quote (>), a list (- + *, or digits and . or )),
// a rule or a setext underline (- = _ *). MarkdownText escapes the first
// character (for digits, the . or ) after them: see leadingNumber).
func opensBlock(s string) bool {
	switch s[0] {
	case '#', '>', '-', '+', '=', '*', '_':
		return true
	}
	return false
}

// MarkdownCode is s as inline code: a span whose fences are longer than any
// run of backticks in s, padded with a space where the span would
// otherwise lose or misread one (s starts or ends with a backtick, or both
// starts and ends with a space).
func MarkdownCode(s string) string {
	s = textutil.Visible(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		len(s) > 1 && strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.TrimSpace(s) != "" {
		pad = " "
	}
	if s == "" {
		// An empty span is two fences, which Markdown reads as text.
		return "` `"
	}
	return fence + pad + s + pad + fence
}

// MarkdownCellCode is MarkdownCode in a table cell: its | written \|.
func MarkdownCellCode(s string) string {
	return strings.ReplaceAll(MarkdownCode(s), "|", `\|`)
}

// markdownFence is a fence for a block of text: longer than any run of
// backticks in it, and at least three.
func markdownFence(text string) string {
	return strings.Repeat("`", max(3, longestRun(text, '`')+1))
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}

// leadingNumber escapes the . or ) after the digits s starts with, which at
// the start of a line would open an ordered list ("1. x", "2) y").
func leadingNumber(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) || r > unicode.MaxASCII })
	if i <= 0 || i > 9 || s[i] != '.' && s[i] != ')' {
		return s
	}
	return s[:i] + `\` + s[i:]
}
