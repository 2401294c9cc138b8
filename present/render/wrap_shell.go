package render

import (
	"reflect"
	"strings"

	"github.com/imgupd/imgupd/internal/shell"
)

// codeMark starts a line of a fix step's text in the renderer's buffer:
// the last pass (wrapText) leaves such a line as it is (a command is
// wrapped only where bash reads it the same, YAML never) and drops the
// mark. It is a private-use character, which vis writes as its escape, so
// no value the cluster wrote can make a line code.
const codeMark = "\ue000"

// wrapShell is a shell step's text wrapped to width: each line broken at
// the spaces between words (outside quotes) with a backslash before each
// break, the lines after the first indented by indent+4 columns. What bash
// reads must be what it read before (shell.Check, with vars set): else, or
// when nothing needs breaking, the text is as it was.
func wrapShell(text string, vars []string, width, indent int) []string {
	lines := strings.Split(text, "\n")
	if width <= 0 {
		return lines
	}
	var out []string
	changed := false
	for _, l := range lines {
		w := wrapShellLine(l, width-indent, 4)
		changed = changed || len(w) > 1
		out = append(out, w...)
	}
	if !changed {
		return lines
	}
	env := shell.Sentinels(vars...)
	want, err := shell.Check(text, env)
	if err != nil {
		return lines
	}
	got, err := shell.Check(strings.Join(out, "\n"), env)
	if err != nil || !reflect.DeepEqual(got, want) {
		return lines
	}
	return out
}

// wrapShellLine breaks one command line at its word boundaries into lines
// of at most width columns (a word longer stays whole), each but the last
// ending in " \", the ones after the first indented by indent spaces.
func wrapShellLine(line string, width, indent int) []string {
	if columns(line) <= width {
		return []string{line}
	}
	words := shellWords(line)
	var out []string
	cur := ""
	for i, w := range words {
		switch {
		case i == 0:
			cur = w
		case columns(cur)+1+columns(w)+2 > width:
			out = append(out, cur+" \\")
			cur = strings.Repeat(" ", indent) + w
		default:
			cur += " " + w
		}
	}
	return append(out, cur)
}

// shellWords cuts a command line at the spaces outside quotes and
// escapes: each piece is one or more words bash reads as they were.
func shellWords(line string) []string {
	var out []string
	start := 0
	var quote byte // ', " or 0
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++ // the next byte is escaped (outside '…')
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ' ':
			if i > start {
				out = append(out, line[start:i])
			}
			start = i + 1
		}
	}
	if start < len(line) {
		out = append(out, line[start:])
	}
	return out
}
