package commands

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/imgupd/imgupd/internal/lazyre"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/report"
)

// The options of `summary`, as typed; each takes a value (`-n a`, `--namespace=a`, `-n a,b`;
// repeatable).
var summaryOptions = []string{"-n", "--namespace", "--project", "--name", "-l", "--selector"}

const summaryUsage = "options: `-n NAMESPACE`, `--project PROJECT`, `--name GLOB`, `--selector LABELS`"

var (
	// Namespace and Application name globs: the names' characters and path.Match's * ? [ ].
	namespaceGlobRE = lazyre.New(`^[a-z0-9*?\[\]^-]+$`)
	nameGlobRE      = lazyre.New(`^[a-z0-9.*?\[\]^-]+$`)
)

// maxSelector bounds a label selector.
const maxSelector = 512

// parseSummary reads `summary [-n NS] [--project P] [--name GLOB] [--selector SEL]`. Values
// may be lists (`-n a,b`) and options repeat; a selector with spaces is quoted (`--selector
// "tier in (web,api)"`; Slack's curly quotes count too).
func parseSummary(input string, words []string) (Command, error) {
	sc, rest, err := parseScope(input, "summary", words)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		pe := &ParseError{Input: input, Reason: fmt.Sprintf("summary takes options, not words like %q (%s)", clip(rest[0]), summaryUsage)}
		if len(rest) == 1 && namespaceGlobRE().MatchString(rest[0]) && validGlob(rest[0]) {
			pe.Suggestion = "summary -n " + rest[0]
		}
		return nil, pe
	}
	return Summary{Scope: sc}, nil
}

// parseScope reads the scope options of a fleet command (summary, where) and returns the
// other words.
func parseScope(input, verb string, words []string) (report.Scope, []string, error) {
	args, err := quotedFields(strings.Join(words, " "))
	if err != nil {
		return report.Scope{}, nil, &ParseError{Input: input, Reason: err.Error()}
	}
	var sc report.Scope
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		if !slices.Contains(summaryOptions, name) {
			pe := &ParseError{Input: input, Reason: fmt.Sprintf("unknown option %q for "+verb+" (%s)", clip(a), summaryUsage)}
			if near := nearestOption(name); near != "" {
				pe.Reason = fmt.Sprintf("unknown option %q for "+verb+"; did you mean %s? (%s)", clip(a), near, summaryUsage)
			}
			return report.Scope{}, nil, pe
		}
		if !hasVal {
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") && args[i+1] != "-" {
				return report.Scope{}, nil, &ParseError{Input: input, Reason: name + " needs a value (" + summaryUsage + ")"}
			}
			i++
			val = args[i]
		}
		switch name {
		case "-n", "--namespace":
			for _, v := range splitValues(val) {
				if !namespaceGlobRE().MatchString(v) || len(v) > 63 || !validGlob(v) {
					return report.Scope{}, nil, &ParseError{Input: input, Reason: fmt.Sprintf("%q is not a namespace name or glob (lower-case letters, digits, -, and * ? [ ])", clip(v))}
				}
				sc.Namespaces = appendOnce(sc.Namespaces, v)
			}
		case "--project":
			for _, v := range splitValues(val) {
				if !nameRE().MatchString(v) || len(v) > 253 {
					return report.Scope{}, nil, &ParseError{Input: input, Reason: fmt.Sprintf("%q is not an Argo CD project name", clip(v))}
				}
				sc.Projects = appendOnce(sc.Projects, v)
			}
		case "--name":
			for _, v := range splitValues(val) {
				if !nameGlobRE().MatchString(v) || len(v) > 253 || !validGlob(v) {
					return report.Scope{}, nil, &ParseError{Input: input, Reason: fmt.Sprintf("%q is not an Application name or glob (lower-case letters, digits, - and ., and * ? [ ])", clip(v))}
				}
				sc.Names = appendOnce(sc.Names, v)
			}
		case "-l", "--selector":
			v := strings.TrimSpace(val)
			if sc.Selector != "" {
				return report.Scope{}, nil, &ParseError{Input: input, Reason: "give --selector once (a selector's requirements are separated by commas: `--selector team=a,tier!=web`)"}
			}
			if v == "" || len(v) > maxSelector {
				return report.Scope{}, nil, &ParseError{Input: input, Reason: "--selector needs a label selector, e.g. `--selector team=payments`"}
			}
			if _, err := labels.Parse(v); err != nil {
				return report.Scope{}, nil, &ParseError{Input: input, Reason: fmt.Sprintf("%q is not a label selector: %s", clip(v), clip(err.Error()))}
			}
			sc.Selector = v
		}
	}
	if err := sc.Validate(); err != nil {
		return report.Scope{}, nil, &ParseError{Input: input, Reason: err.Error()}
	}
	return sc, rest, nil
}

// String is the command as it is typed, options in a fixed order: what a summary's Re-run
// button runs again, through Parse.
func (s Summary) String() string {
	parts := []string{"summary"}
	if len(s.Scope.Namespaces) > 0 {
		parts = append(parts, optionArg("-n", strings.Join(s.Scope.Namespaces, ",")))
	}
	if len(s.Scope.Projects) > 0 {
		parts = append(parts, optionArg("--project", strings.Join(s.Scope.Projects, ",")))
	}
	if len(s.Scope.Names) > 0 {
		parts = append(parts, optionArg("--name", strings.Join(s.Scope.Names, ",")))
	}
	if s.Scope.Selector != "" {
		parts = append(parts, optionArg("--selector", s.Scope.Selector))
	}
	return strings.Join(parts, " ")
}

// optionArg writes an option and its value so that Parse reads the value
// back: quoted when it holds a space, joined with "=" when it starts with
// "-" (which Parse takes for the next option otherwise).
func optionArg(name, v string) string {
	if strings.ContainsAny(v, " \t") {
		v = `"` + v + `"`
	}
	if strings.HasPrefix(v, "-") {
		return name + "=" + v
	}
	return name + " " + v
}

// quotedFields splits on spaces, keeping a "quoted value" (ASCII or curly double quotes, or
// single quotes) as one field without its quotes.
func quotedFields(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inField, closing := false, rune(0)
	for _, r := range s {
		switch {
		case closing != 0:
			if r == closing || closing == '”' && r == '"' || closing == '’' && r == '\'' {
				closing = 0
				continue
			}
			cur.WriteRune(r)
		case r == '"' || r == '“' || r == '”' || r == '\'' || r == '‘' || r == '’':
			closing = map[rune]rune{'"': '"', '“': '”', '”': '”', '\'': '\'', '‘': '’', '’': '’'}[r]
			inField = true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inField {
				out = append(out, cur.String())
				cur.Reset()
				inField = false
			}
		default:
			cur.WriteRune(r)
			inField = true
		}
	}
	if closing != 0 {
		return nil, fmt.Errorf("a quote is not closed")
	}
	if inField {
		out = append(out, cur.String())
	}
	return out, nil
}

func splitValues(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		out = []string{v} // refused by the caller's check
	}
	return out
}

func appendOnce(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

func validGlob(g string) bool {
	_, err := path.Match(g, "")
	return err == nil
}

// nearestOption is the long option o is at most three edits from (short
// ones, like -n, are too close to everything to suggest).
func nearestOption(o string) string {
	return textutil.NearestOne(o, summaryOptions, func(c string, d int) bool { return len(c) >= 3 && d < 4 })
}
