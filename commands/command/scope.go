package command

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
var scopeOptions = []string{"-n", "--namespace", "--project", "--name", "-l", "--selector", "--cluster"}

// ScopeUsage lists the scope options, for a parse error.
const ScopeUsage = "options: `-n NAMESPACE`, `--project PROJECT`, `--name GLOB`, `--selector LABELS`, `--cluster NAME`"

var (
	// Namespace and Application name globs: the names' characters and path.Match's * ? [ ].
	NamespaceGlobRE = lazyre.New(`^[a-z0-9*?\[\]^-]+$`)
	NameGlobRE      = lazyre.New(`^[a-z0-9.*?\[\]^-]+$`)
)

// maxSelector bounds a label selector.
const maxSelector = 512

// ParseScope reads the scope options of a fleet command (summary, where) and returns the
// other words; --cluster NAME, when given, is written to cluster.
func ParseScope(input, verb string, words []string, cluster *string) (report.Scope, []string, error) {
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
		if !slices.Contains(scopeOptions, name) {
			pe := &ParseError{Input: input, Reason: fmt.Sprintf("unknown option %q for "+verb+" (%s)", Clip(a), ScopeUsage)}
			if near := nearestOption(name); near != "" {
				pe.Reason = fmt.Sprintf("unknown option %q for "+verb+"; did you mean %s? (%s)", Clip(a), near, ScopeUsage)
			}
			return report.Scope{}, nil, pe
		}
		if !hasVal {
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") && args[i+1] != "-" {
				return report.Scope{}, nil, &ParseError{Input: input, Reason: name + " needs a value (" + ScopeUsage + ")"}
			}
			i++
			val = args[i]
		}
		switch name {
		case "--cluster":
			if !ValidClusterName(val) {
				return report.Scope{}, nil, &ParseError{Input: input, Reason: fmt.Sprintf("%q is not a cluster name", Clip(val))}
			}
			*cluster = val
		case "-n", "--namespace":
			for _, v := range splitValues(val) {
				if !NamespaceGlobRE().MatchString(v) || len(v) > 63 || !ValidGlob(v) {
					return report.Scope{}, nil, &ParseError{Input: input, Reason: fmt.Sprintf("%q is not a namespace name or glob (lower-case letters, digits, -, and * ? [ ])", Clip(v))}
				}
				sc.Namespaces = appendOnce(sc.Namespaces, v)
			}
		case "--project":
			for _, v := range splitValues(val) {
				if !NameRE().MatchString(v) || len(v) > 253 {
					return report.Scope{}, nil, &ParseError{Input: input, Reason: fmt.Sprintf("%q is not an Argo CD project name", Clip(v))}
				}
				sc.Projects = appendOnce(sc.Projects, v)
			}
		case "--name":
			for _, v := range splitValues(val) {
				if !NameGlobRE().MatchString(v) || len(v) > 253 || !ValidGlob(v) {
					return report.Scope{}, nil, &ParseError{Input: input, Reason: fmt.Sprintf("%q is not an Application name or glob (lower-case letters, digits, - and ., and * ? [ ])", Clip(v))}
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
				return report.Scope{}, nil, &ParseError{Input: input, Reason: fmt.Sprintf("%q is not a label selector: %s", Clip(v), Clip(err.Error()))}
			}
			sc.Selector = v
		}
	}
	if err := sc.Validate(); err != nil {
		return report.Scope{}, nil, &ParseError{Input: input, Reason: err.Error()}
	}
	return sc, rest, nil
}

// ValidClusterName reports whether s can name a cluster (--cluster): a DNS name as the
// clusters: section's names are.
func ValidClusterName(s string) bool { return NameRE().MatchString(s) && len(s) <= 253 }

// ClusterString is " --cluster NAME", or "" for none: what a Re-run button types after the
// scope.
func ClusterString(cluster string) string {
	if cluster == "" {
		return ""
	}
	return " --cluster " + cluster
}

// ScopeString is the scope's options as typed, in a fixed order, each with a space before it
// (" -n a,b --project p"): what a summary's Re-run button types after "summary", read back by
// ParseScope.
func ScopeString(sc report.Scope) string {
	var parts []string
	if len(sc.Namespaces) > 0 {
		parts = append(parts, OptionArg("-n", strings.Join(sc.Namespaces, ",")))
	}
	if len(sc.Projects) > 0 {
		parts = append(parts, OptionArg("--project", strings.Join(sc.Projects, ",")))
	}
	if len(sc.Names) > 0 {
		parts = append(parts, OptionArg("--name", strings.Join(sc.Names, ",")))
	}
	if sc.Selector != "" {
		parts = append(parts, OptionArg("--selector", sc.Selector))
	}
	var out string
	for _, p := range parts {
		out += " " + p
	}
	return out
}

// OptionArg writes an option and its value so that Parse reads the value
// back: quoted when it holds a space, joined with "=" when it starts with
// "-" (which Parse takes for the next option otherwise).
func OptionArg(name, v string) string {
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

func ValidGlob(g string) bool {
	_, err := path.Match(g, "")
	return err == nil
}

// nearestOption is the long option o is at most three edits from (short
// ones, like -n, are too close to everything to suggest).
func nearestOption(o string) string {
	return textutil.NearestOne(o, scopeOptions, func(c string, d int) bool { return len(c) >= 3 && d < 4 })
}
