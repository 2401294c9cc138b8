package updaterlog

import (
	"fmt"
	"regexp"
	"strings"
)

// FormatError says why a catalogue format string could not be turned into a
// pattern. It only arises from a mistake in the catalogue itself.
type FormatError struct {
	Format string
	Reason string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("updaterlog: format %q: %s", e.Format, e.Reason)
}

// compileFormat turns a Go format string as the controller passes it to
// logrus (`Could not get tags from registry: %v`) into an anchored regexp
// whose capture groups are the verbs, in order (returned as their letters):
//
//	%s, %v  any text, shortest match first (the last one takes the rest)
//	%d      an optionally signed integer
//	%q      a Go-quoted string (Classify unquotes it)
//	%%      a literal percent sign
//
// Literal text matches exactly. With prefix set, the pattern only has to
// match the beginning of the message (for messages whose tail varies between
// releases). The regexp is compiled with (?s) so captures may span newlines.
func compileFormat(format string, prefix bool) (*regexp.Regexp, []byte, error) {
	expr, verbs, err := formatExpr(format, prefix)
	if err != nil {
		return nil, nil, err
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, nil, &FormatError{Format: format, Reason: err.Error()}
	}
	return re, verbs, nil
}

// formatExpr is compileFormat's regular expression, not compiled, and the
// verbs' letters.
func formatExpr(format string, prefix bool) (string, []byte, error) {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	var verbs []byte
	lit := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		b.WriteString(regexp.QuoteMeta(format[lit:i]))
		if i+1 >= len(format) {
			return "", nil, &FormatError{Format: format, Reason: "trailing %"}
		}
		switch format[i+1] {
		case 's', 'v':
			b.WriteString(`(.*?)`)
		case 'd':
			b.WriteString(`([-+]?\d+)`)
		case 'q':
			b.WriteString(`("(?:[^"\\]|\\.)*")`)
		case '%':
			b.WriteString(`%`)
		default:
			return "", nil, &FormatError{Format: format, Reason: fmt.Sprintf("unsupported verb %%%c", format[i+1])}
		}
		if format[i+1] != '%' {
			verbs = append(verbs, format[i+1])
		}
		i++
		lit = i + 1
	}
	b.WriteString(regexp.QuoteMeta(format[lit:]))
	if !prefix {
		b.WriteString(`$`)
	}
	return b.String(), verbs, nil
}

// literalPrefix is the text before the first verb, used to skip the regexp
// for messages that cannot match.
func literalPrefix(format string) string {
	if i := strings.IndexByte(format, '%'); i >= 0 {
		return format[:i]
	}
	return format
}
