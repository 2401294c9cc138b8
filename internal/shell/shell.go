// Package shell writes commands a person will paste into bash, and proves
// them: a command is data (an argv of words, each literal text or a value the
// reader supplies as a variable), written with one quoting function
// (mvdan.cc/sh's syntax.Quote), and read back with the same library's parser
// (Check): the words bash would run must be the argv meant, and nothing else
// may run (no command substitution, no second command, no redirection, no
// expansion but of the reader's own variables).
//
// No value is ever formatted into a command string: a value the cluster
// wrote ($(…), a quote, a line break, EOF, an escape sequence) stays one
// word, shown on one line ($'a\nb'). A value bash cannot carry (a NUL byte)
// is refused with a *QuoteError.
package shell

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Part is one piece of a word: literal text, or the value of a variable the
// reader sets in an earlier step (Var, a shell name).
type Part struct {
	Lit string `json:"lit,omitempty"`
	Var string `json:"var,omitempty"`
}

// Word is one argument of a command. In JSON a literal word is a string, a
// word with the reader's variables an object {"parts": […]}.
type Word []Part

// Lit is a literal word.
func Lit(s string) Word { return Word{{Lit: s}} }

// Var is a word that is the value of the reader's variable name.
func Var(name string) Word { return Word{{Var: name}} }

// Concat joins words into one (--flag= and a variable, say).
func Concat(ws ...Word) Word {
	var out Word
	for _, w := range ws {
		out = append(out, w...)
	}
	return out
}

// Args are literal words.
func Args(lits ...string) []Word {
	out := make([]Word, len(lits))
	for i, s := range lits {
		out[i] = Lit(s)
	}
	return out
}

// Literal is the word's text when it has no variable.
func (w Word) Literal() (string, bool) {
	var b strings.Builder
	for _, p := range w {
		if p.Var != "" {
			return "", false
		}
		b.WriteString(p.Lit)
	}
	return b.String(), true
}

// Vars are the variables the word uses, in order.
func (w Word) Vars() []string {
	var out []string
	for _, p := range w {
		if p.Var != "" {
			out = append(out, p.Var)
		}
	}
	return out
}

// Expand is the word with each variable replaced by env's value.
func (w Word) Expand(env map[string]string) string {
	var b strings.Builder
	for _, p := range w {
		if p.Var != "" {
			b.WriteString(env[p.Var])
			continue
		}
		b.WriteString(p.Lit)
	}
	return b.String()
}

// MarshalJSON writes a literal word as a string.
func (w Word) MarshalJSON() ([]byte, error) {
	if s, ok := w.Literal(); ok {
		return json.Marshal(s)
	}
	return json.Marshal(struct {
		Parts []Part `json:"parts"`
	}{[]Part(w)})
}

// UnmarshalJSON reads either form.
func (w *Word) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*w = Lit(s)
		return nil
	}
	var v struct {
		Parts []Part `json:"parts"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("a word is a string or {\"parts\": […]}: %w", err)
	}
	*w = v.Parts
	return nil
}

// Command is one program and its arguments; Stdin, when set, is a document
// the command reads on its standard input (written as printf '%s\n' DOC |).
type Command struct {
	Argv  []Word `json:"argv"`
	Stdin string `json:"stdin,omitempty"`
}

// Cmd is a command of literal words.
func Cmd(argv ...string) Command { return Command{Argv: Args(argv...)} }

// Pipeline is commands run together, each one's output the next one's input.
type Pipeline []Command

// QuoteError is a value bash cannot carry (a NUL byte), or a name that is no
// shell variable.
type QuoteError struct {
	Value string
	Err   error
}

func (e *QuoteError) Error() string {
	return fmt.Sprintf("cannot write %q for a shell: %v", clip(e.Value, 40), e.Err)
}

func (e *QuoteError) Unwrap() error { return e.Err }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Quote is the one quoting function: s as one bash word that expands to s
// and nothing else, in every locale and in an interactive bash too.
// mvdan.cc/sh's syntax.Quote chooses the form: bare when nothing needs
// quoting, single quotes, double quotes around a single quote, and $'…' for a
// line break, a control character, a bidi or zero-width character (so the
// word stays on one line and shows what it holds). Two things it does not
// know are done here, and the parser and bash prove them (shell_test.go):
//   - an interactive bash expands history (!x) in bare words and in double
//     quotes, so a word with ! is single-quoted, its own ' written ';
//   - bash decodes $'‮' only in a UTF-8 locale, and its history scan
//     reads ' inside $'…' as the end of the quotes: in $'…' a rune beyond
//     ASCII is written as its UTF-8 bytes (â®), ' as ', ! as !.
func Quote(s string) (string, error) {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return "", &QuoteError{Value: s, Err: err}
	}
	switch {
	case strings.Contains(s, "```"):
		// Three backticks end a Slack code block, and nothing in Slack
		// escapes them: the word is written with every backtick as \x60.
		return ansiC(s), nil
	case strings.HasPrefix(q, "$'"):
		return ansiBytes(q), nil
	case !strings.ContainsRune(s, '!'):
		return q, nil
	}
	var b strings.Builder
	for i, piece := range strings.Split(s, "'") {
		if i > 0 {
			b.WriteString(`\'`)
		}
		if piece != "" {
			b.WriteString("'" + piece + "'")
		}
	}
	return b.String(), nil
}

// ansiC writes s as a $'…' word in which ', !, \ and ` are \xHH escapes, a
// character that is not shown as itself (a control, bidi or zero-width
// character, a byte that is not UTF-8) its bytes as \xHH, and the rest as
// written: the form Quote takes for a word Slack could not show in a code
// block (one with ```).
func ansiC(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' || r == '\'' || r == '!' || r == '`':
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsPrint(r) && !unicode.Is(unicode.Cf, r):
			b.WriteRune(r)
		default:
			for _, x := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, `\x%02x`, x)
			}
		}
		i += size
	}
	b.WriteString("'")
	return b.String()
}

// ansiBytes rewrites a $'…' word: \uXXXX and \UXXXXXXXX as the rune's UTF-8
// bytes, \' as \x27 and ! as \x21 (escapes are read in pairs, so an escaped
// backslash before a u stays one).
func ansiBytes(q string) string {
	body := q[2 : len(q)-1]
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '!':
			b.WriteString(`\x21`)
		case c != '\\' || i+1 == len(body):
			b.WriteByte(c)
		case body[i+1] == '\'':
			b.WriteString(`\x27`)
			i++
		case body[i+1] == 'u' || body[i+1] == 'U':
			n := 4
			if body[i+1] == 'U' {
				n = 8
			}
			r, err := strconv.ParseUint(body[i+2:i+2+n], 16, 32)
			if err != nil {
				b.WriteString(body[i : i+2])
				i++
				continue
			}
			for _, x := range []byte(string(rune(r))) {
				fmt.Fprintf(&b, `\x%02x`, x)
			}
			i += 1 + n
		default:
			b.WriteString(body[i : i+2])
			i++
		}
	}
	b.WriteString("'")
	return b.String()
}

// VarRef is how a variable is written in a word: double-quoted, and an
// error (the command does not run) while the reader has left it empty.
func VarRef(name string) string {
	return `"${` + name + `:?set ` + name + ` first}"`
}

// ValidVar: a shell variable name imgupd may use (upper case, digits, _).
func ValidVar(name string) bool {
	if name == "" || !syntax.ValidName(name) {
		return false
	}
	for _, r := range name {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// Render writes the word (as a command's first word: quoted wherever bash
// could read an assignment).
func (w Word) Render() (string, error) { return w.render(false) }

// render writes the word; arg: it is an argument after the program, where
// bash reads a = as text (name=value is an assignment only before the
// program), so a word that needs quoting only for its = is left bare.
func (w Word) render(arg bool) (string, error) {
	if len(w) == 0 {
		return "''", nil
	}
	var b strings.Builder
	for _, p := range w {
		if p.Var != "" {
			if !ValidVar(p.Var) {
				return "", &QuoteError{Value: p.Var, Err: errors.New("not a variable name")}
			}
			b.WriteString(VarRef(p.Var))
			continue
		}
		if p.Lit == "" {
			continue
		}
		q, err := Quote(p.Lit)
		if err != nil {
			return "", err
		}
		if arg && strings.Contains(p.Lit, "=") && bareAround(p.Lit, "=") {
			q = p.Lit
		}
		b.WriteString(q)
	}
	if b.Len() == 0 {
		return "''", nil
	}
	return b.String(), nil
}

// bareAround: every piece of s between seps is a bare word on its own (so
// joining them with sep cannot make a byte that is not UTF-8 whole, as
// "\xca" + "\x8e" would).
func bareAround(s, sep string) bool {
	for _, piece := range strings.Split(s, sep) {
		if piece == "" {
			continue
		}
		if q, err := Quote(piece); err != nil || q != piece {
			return false
		}
	}
	return true
}

// Render writes the command on one line (its Stdin as printf '%s\n' DOC |).
func (c Command) Render() (string, error) {
	if len(c.Argv) == 0 {
		return "", errors.New("a command with no program")
	}
	words := make([]string, 0, len(c.Argv))
	for i, w := range c.Argv {
		s, err := w.render(i > 0)
		if err != nil {
			return "", err
		}
		words = append(words, s)
	}
	line := strings.Join(words, " ")
	if c.Stdin != "" {
		doc, err := quoteDoc(c.Stdin)
		if err != nil {
			return "", err
		}
		line = `printf '%s\n' ` + doc + " | " + line
	}
	return line, nil
}

// quoteDoc writes a document fed on stdin: across its own lines in single
// quotes when it is printable text without ' or ! (JSON pretty printed reads
// as JSON), else as Quote writes it.
func quoteDoc(doc string) (string, error) {
	if utf8.ValidString(doc) && !strings.ContainsAny(doc, "'!") && !strings.Contains(doc, "```") && strings.IndexFunc(doc, func(r rune) bool {
		return r != '\n' && !unicode.IsPrint(r) && r != ' '
	}) < 0 {
		return "'" + doc + "'", nil
	}
	return Quote(doc)
}

// Render writes the pipeline: its commands joined by |.
func (p Pipeline) Render() (string, error) {
	if len(p) == 0 {
		return "", errors.New("an empty pipeline")
	}
	parts := make([]string, 0, len(p))
	for _, c := range p {
		s, err := c.Render()
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " | "), nil
}

// Argvs are the argument vectors the pipeline runs, each variable replaced
// by env's value, a Stdin document as the printf that feeds it.
func (p Pipeline) Argvs(env map[string]string) [][]string {
	var out [][]string
	for _, c := range p {
		if c.Stdin != "" {
			out = append(out, []string{"printf", `%s\n`, c.Stdin})
		}
		argv := make([]string, len(c.Argv))
		for i, w := range c.Argv {
			argv[i] = w.Expand(env)
		}
		out = append(out, argv)
	}
	return out
}

// Vars are the variables the pipeline uses, each once, in order.
func (p Pipeline) Vars() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range p {
		for _, w := range c.Argv {
			for _, v := range w.Vars() {
				if !seen[v] {
					seen[v] = true
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// Assignments write the lines that set the reader's variables, each empty:
// NAME= and two single quotes. A command that uses one refuses to run
// until it is filled.
func Assignments(names ...string) (string, error) {
	lines := make([]string, len(names))
	for i, n := range names {
		if !ValidVar(n) {
			return "", &QuoteError{Value: n, Err: errors.New("not a variable name")}
		}
		lines[i] = n + "=''"
	}
	return strings.Join(lines, "\n"), nil
}
