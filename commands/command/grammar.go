package command

import (
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/internal/lazyre"
	"github.com/imgupd/imgupd/internal/textutil"
)

// ParseError is input that is not a command, with what to type instead.
type ParseError struct {
	Input  string
	Reason string
	// Suggestion is a corrected command ("diagnose myapp"), when one is likely.
	Suggestion string
}

func (e *ParseError) Error() string {
	s := e.Reason
	if e.Suggestion != "" {
		s += fmt.Sprintf("; did you mean `%s`?", e.Suggestion)
	}
	return s
}

var (
	// MentionRE is a bot mention (<@U123>), skipped before the command's words.
	MentionRE = lazyre.New(`^<@[A-Z0-9]+(\|[^>]*)?>$`)
	// Kubernetes object names (DNS-1123 subdomain) and namespaces (label).
	NameRE      = lazyre.New(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)
	NamespaceRE = lazyre.New(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	// CodeRE is a finding code as typed, AliasRE an image alias.
	CodeRE  = lazyre.New(`^[A-Za-z][A-Za-z0-9_]*$`)
	AliasRE = lazyre.New(`^[a-zA-Z0-9][a-zA-Z0-9-._]*$`)
)

// AppRef reads "app" or "namespace/app" for a verb.
func AppRef(verb, s string) (app, ns string, err error) {
	if n, a, ok := strings.Cut(s, "/"); ok {
		ns, s = n, a
		if !NamespaceRE().MatchString(ns) || len(ns) > 63 {
			return "", "", &ParseError{Input: s, Reason: fmt.Sprintf("%q is not a namespace name", Clip(ns))}
		}
	}
	if !NameRE().MatchString(s) || len(s) > 253 {
		reason := fmt.Sprintf("%q is not an Application name (lower-case letters, digits, - and .)", Clip(s))
		pe := &ParseError{Input: s, Reason: reason}
		if low := strings.ToLower(s); NameRE().MatchString(low) {
			pe.Suggestion = verb + " " + low
		}
		return "", "", pe
	}
	return s, ns, nil
}

// TakeFlags removes -n/--namespace and (when cluster is not nil) --cluster
// with their values, and returns the other words.
func TakeFlags(input string, args []string, namespace, cluster *string) ([]string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case name == "-n" || name == "--namespace":
			if !hasVal {
				if i+1 >= len(args) {
					return nil, &ParseError{Input: input, Reason: name + " needs a namespace"}
				}
				i++
				val = args[i]
			}
			if !NamespaceRE().MatchString(val) || len(val) > 63 {
				return nil, &ParseError{Input: input, Reason: fmt.Sprintf("%q is not a namespace name", Clip(val))}
			}
			*namespace = val
		case cluster != nil && name == "--cluster":
			if !hasVal {
				if i+1 >= len(args) {
					return nil, &ParseError{Input: input, Reason: "--cluster needs a cluster name"}
				}
				i++
				val = args[i]
			}
			if !NameRE().MatchString(val) || len(val) > 253 {
				return nil, &ParseError{Input: input, Reason: fmt.Sprintf("%q is not a cluster name", Clip(val))}
			}
			*cluster = val
		case strings.HasPrefix(a, "-"):
			return nil, &ParseError{Input: input, Reason: fmt.Sprintf("unknown option %q (options: -n NAMESPACE, --cluster NAME)", Clip(a))}
		default:
			rest = append(rest, a)
		}
	}
	return rest, nil
}

// Clip bounds an argument echoed in an error to 64 bytes (plus "…").
func Clip(s string) string { return textutil.ClipBytes(s, 64) }

// ChatCode is a value the cluster or the asker wrote as `code` in chat
// Markdown: on one line with nothing hidden, its backticks (which would
// end the span) written as '.
func ChatCode(s string) string {
	return "`" + strings.ReplaceAll(textutil.Visible(s), "`", "'") + "`"
}
