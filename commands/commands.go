// Package commands is imgupd's chat command language, shared by the slash
// command (/imgupd ...), mentions (@imgupd ... in a thread) and direct
// messages: it parses text into typed commands and says clearly what is
// wrong with bad input.
// It is transport-neutral: no Slack types here.
package commands

import (
	"errors"
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/internal/lazyre"

	"github.com/imgupd/imgupd/internal/textutil"

	"github.com/imgupd/imgupd/report"
)

// Command is one parsed command.
type Command interface{ verb() string }

// Diagnose asks why Image Updater does not update an Application.
type Diagnose struct {
	App       string
	Namespace string // "" = the default namespace of the channel / config
	Cluster   string // "" = the only or default cluster
}

// Tags asks for the candidate table of an Application's images (one alias,
// or all).
type Tags struct {
	App       string
	Namespace string
	Alias     string
}

// Logs asks for Image Updater's log lines about an Application.
type Logs struct {
	App       string
	Namespace string
}

// Explain asks what a finding code means.
type Explain struct{ Code string }

// Summary asks for the fleet summary of the Applications in Scope (every
// managed Application when empty), filtered by what the asker may see.
type Summary struct{ Scope report.Scope }

// Help asks for the command list.
type Help struct{}

func (Diagnose) verb() string { return "diagnose" }
func (Tags) verb() string     { return "tags" }
func (Logs) verb() string     { return "logs" }
func (Explain) verb() string  { return "explain" }
func (Summary) verb() string  { return "summary" }
func (Help) verb() string     { return "help" }

// Verb is the command's verb, for logs and metrics.
func Verb(c Command) string {
	if c == nil {
		return "invalid"
	}
	return c.verb()
}

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
	mentionRE = lazyre.New(`^<@[A-Z0-9]+(\|[^>]*)?>$`)
	// Kubernetes object names (DNS-1123 subdomain) and namespaces (label).
	nameRE      = lazyre.New(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)
	namespaceRE = lazyre.New(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	codeRE      = lazyre.New(`^[A-Za-z][A-Za-z0-9_]*$`)
	aliasRE     = lazyre.New(`^[a-zA-Z0-9][a-zA-Z0-9-._]*$`)
)

// maxInput bounds what is parsed; chat messages can be long.
const maxInput = 4000

// Parse reads one command. Leading bot mentions (<@U123>) are skipped, so
// the text of an app_mention parses like the text of a slash command.
func Parse(text string) (Command, error) {
	if len(text) > maxInput {
		return nil, &ParseError{Input: text[:64] + "…", Reason: fmt.Sprintf("the command is longer than %d characters", maxInput)}
	}
	words := strings.Fields(text)
	for len(words) > 0 && mentionRE().MatchString(words[0]) {
		words = words[1:]
	}
	if len(words) == 0 {
		return Help{}, nil
	}
	verb := strings.ToLower(words[0])
	args := words[1:]
	if spec, ok := chatSpec(verb); ok {
		return spec.Chat.parse(text, args)
	}
	pe := &ParseError{Input: text, Reason: fmt.Sprintf("unknown command %q", clip(words[0]))}
	if near := nearestVerb(verb); near != "" {
		pe.Suggestion = strings.Join(append([]string{near}, args...), " ")
	} else if len(words) == 1 && nameRE().MatchString(verb) {
		// "/imgupd myapp" most likely means "diagnose myapp".
		pe.Suggestion = "diagnose " + verb
	}
	return nil, pe
}

// parseLogs reads `logs APP [-n NAMESPACE]` (or `NAMESPACE/APP`).
func parseLogs(text string, args []string) (Command, error) {
	d, err := parseDiagnose(args)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) && strings.HasPrefix(pe.Reason, "diagnose takes") {
			pe.Reason = "logs takes one Application name, e.g. `logs myapp -n team-a`"
		}
		return nil, err
	}
	dg := d.(Diagnose)
	if dg.Cluster != "" {
		return nil, &ParseError{Input: text, Reason: "logs takes no --cluster"}
	}
	return Logs{App: dg.App, Namespace: dg.Namespace}, nil
}

// parseExplain reads `explain CODE`.
func parseExplain(text string, args []string) (Command, error) {
	if len(args) != 1 {
		return nil, &ParseError{Input: text, Reason: "explain takes one finding code, e.g. `explain LIVE_IMAGE_NOT_LIVE`"}
	}
	if !codeRE().MatchString(args[0]) || len(args[0]) > 64 {
		return nil, &ParseError{Input: text, Reason: fmt.Sprintf("%q is not a finding code (letters, digits and _)", clip(args[0]))}
	}
	return Explain{Code: strings.ToUpper(args[0])}, nil
}

func parseDiagnose(args []string) (Command, error) {
	d := Diagnose{}
	rest, err := takeFlags("diagnose "+strings.Join(args, " "), args, &d.Namespace, &d.Cluster)
	if err != nil {
		return nil, err
	}
	if len(rest) != 1 {
		return nil, &ParseError{Input: "diagnose", Reason: "diagnose takes one Application name, e.g. `diagnose myapp -n team-a`"}
	}
	app, ns, err := appRef("diagnose", rest[0])
	if err != nil {
		return nil, err
	}
	d.App = app
	if ns != "" {
		d.Namespace = ns
	}
	return d, nil
}

func parseTags(args []string) (Command, error) {
	t := Tags{}
	rest, err := takeFlags("tags "+strings.Join(args, " "), args, &t.Namespace, nil)
	if err != nil {
		return nil, err
	}
	if len(rest) < 1 || len(rest) > 2 {
		return nil, &ParseError{Input: "tags", Reason: "tags takes an Application name and optionally an image alias, e.g. `tags myapp web`"}
	}
	app, ns, err := appRef("tags", rest[0])
	if err != nil {
		return nil, err
	}
	t.App = app
	if ns != "" {
		t.Namespace = ns
	}
	if len(rest) == 2 {
		if !aliasRE().MatchString(rest[1]) || len(rest[1]) > 253 {
			return nil, &ParseError{Input: "tags", Reason: fmt.Sprintf("%q is not an image alias", clip(rest[1]))}
		}
		t.Alias = rest[1]
	}
	return t, nil
}

// appRef reads "app" or "namespace/app" for a verb.
func appRef(verb, s string) (app, ns string, err error) {
	if n, a, ok := strings.Cut(s, "/"); ok {
		ns, s = n, a
		if !namespaceRE().MatchString(ns) || len(ns) > 63 {
			return "", "", &ParseError{Input: s, Reason: fmt.Sprintf("%q is not a namespace name", clip(ns))}
		}
	}
	if !nameRE().MatchString(s) || len(s) > 253 {
		reason := fmt.Sprintf("%q is not an Application name (lower-case letters, digits, - and .)", clip(s))
		pe := &ParseError{Input: s, Reason: reason}
		if low := strings.ToLower(s); nameRE().MatchString(low) {
			pe.Suggestion = verb + " " + low
		}
		return "", "", pe
	}
	return s, ns, nil
}

// takeFlags removes -n/--namespace and (when cluster is not nil) --cluster
// with their values, and returns the other words.
func takeFlags(input string, args []string, namespace, cluster *string) ([]string, error) {
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
			if !namespaceRE().MatchString(val) || len(val) > 63 {
				return nil, &ParseError{Input: input, Reason: fmt.Sprintf("%q is not a namespace name", clip(val))}
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
			if !nameRE().MatchString(val) || len(val) > 253 {
				return nil, &ParseError{Input: input, Reason: fmt.Sprintf("%q is not a cluster name", clip(val))}
			}
			*cluster = val
		case strings.HasPrefix(a, "-"):
			return nil, &ParseError{Input: input, Reason: fmt.Sprintf("unknown option %q (options: -n NAMESPACE, --cluster NAME)", clip(a))}
		default:
			rest = append(rest, a)
		}
	}
	return rest, nil
}

// nearestVerb is the verb w is at most two edits from, for "did you mean".
func nearestVerb(w string) string {
	return textutil.NearestOne(w, Verbs(), func(_ string, d int) bool { return d < 3 })
}

// clip bounds an argument echoed in an error to 64 bytes (plus "…").
func clip(s string) string { return textutil.ClipBytes(s, 64) }

// ValidClusterName reports whether s can be named by `--cluster`.
func ValidClusterName(s string) bool { return nameRE().MatchString(s) && len(s) <= 253 }
