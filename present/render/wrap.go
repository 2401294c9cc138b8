package render

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Wrapping to the terminal's width: a line longer than the width is broken
// at its spaces, never inside a word (a host, a URL, a tag, a code), and
// goes on under its text (a hanging indent past its mark or bullet). A
// word longer than the width stays whole on a line of its own. Colour
// sequences take no column and are never broken.

// Wrap is text with every line wrapped at its spaces to width columns
// (0: as it is), each going on under its text: for a command's own lines
// around a report (the demo's heading).
func Wrap(text string, width int) string { return wrapText(text, width) }

// WrapCell is one line wrapped at its spaces to width columns, every line
// starting where the first does: a table's last column.
func WrapCell(line string, width int) []string { return wrapLine(line, width, 0) }

// wrapText is text with every line wrapped to width (0: as it is), but
// the lines of code (codeMark), which are kept as they are, their mark
// dropped.
func wrapText(text string, width int) string {
	lines := strings.Split(text, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if code, ok := strings.CutPrefix(l, codeMark); ok || width <= 0 {
			b.WriteString(code)
			continue
		}
		b.WriteString(strings.Join(wrapLine(l, width, hangIndent(l, width)), "\n"))
	}
	return b.String()
}

// wrapLine breaks line at its spaces into lines of at most width columns,
// the ones after the first indented by indent spaces; the spaces between
// two words on one line are kept as they were (a mark's two, a table's
// padding).
func wrapLine(line string, width, indent int) []string {
	if columns(line) <= width {
		return []string{line}
	}
	var out []string
	cur, curW := "", 0
	fresh := true // nothing but an indent on cur
	for _, t := range splitWords(line) {
		ww := columns(t.word)
		switch {
		case fresh:
			cur += t.space
			curW += len(t.space)
		case curW+len(t.space)+ww > width:
			out = append(out, cur)
			cur, curW = strings.Repeat(" ", indent), indent
		default:
			cur += t.space
			curW += len(t.space)
		}
		cur += t.word
		curW += ww
		fresh = false
	}
	return append(out, cur)
}

// spaced is a word and the spaces before it.
type spaced struct{ space, word string }

// splitWords cuts line into words, each with the spaces before it.
func splitWords(line string) []spaced {
	var out []spaced
	for line != "" {
		sp := len(line) - len(strings.TrimLeft(line, " "))
		rest := line[sp:]
		end := strings.IndexByte(rest, ' ')
		if end < 0 {
			end = len(rest)
		}
		out = append(out, spaced{space: line[:sp], word: rest[:end]})
		line = rest[end:]
	}
	return out
}

// hangIndent is where a wrapped line goes on: under the text after its
// leading spaces and its mark, bullet or step number ("✗ ", "· ", "→ ",
// "- ", "2. "), at most half the width.
func hangIndent(line string, width int) int {
	plain := stripStyle(line)
	lead := len(plain) - len(strings.TrimLeft(plain, " "))
	rest := plain[lead:]
	indent := lead
	if tok, after, ok := strings.Cut(rest, " "); ok && isMarker(tok) {
		indent += utf8.RuneCountInString(tok) + 1 + len(after) - len(strings.TrimLeft(after, " "))
	} else if lead == 0 {
		indent = 3 // a heading's line goes on under the report's text
	}
	return min(indent, width/2)
}

// isMarker: tok is a mark, a bullet or a step number, not a word.
func isMarker(tok string) bool {
	n := utf8.RuneCountInString(tok)
	if n == 0 || n > 4 {
		return false
	}
	if strings.HasSuffix(tok, ".") && strings.Trim(tok, "0123456789") == "." {
		return true
	}
	for _, r := range tok {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return n <= 2
}

// columns is how many columns s takes on a terminal: its runes, colour
// sequences aside.
func columns(s string) int { return utf8.RuneCountInString(stripStyle(s)) }

// stripStyle is s without the renderer's colour sequences.
func stripStyle(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := StyleAt([]byte(s[i:])); n > 0 {
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}
