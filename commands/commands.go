// Package commands is imgupd's command table (Table: one line per command, each command a folder
// of commands/ with its Spec) and the chat command language built from it, shared by the slash
// command (/imgupd ...), mentions (@imgupd ... in a thread) and direct messages: it parses text
// into typed commands and says clearly what is wrong with bad input; the access rules (Policy);
// and the chat service (Service) that carries a command out through its entry's handler.
// It is transport-neutral: no Slack types here.
package commands

import (
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/commands/diagnose"
	"github.com/imgupd/imgupd/commands/explain"
	"github.com/imgupd/imgupd/commands/help"
	"github.com/imgupd/imgupd/commands/logs"
	"github.com/imgupd/imgupd/commands/summary"
	"github.com/imgupd/imgupd/commands/tags"
	wherecmd "github.com/imgupd/imgupd/commands/where"
	"github.com/imgupd/imgupd/internal/textutil"
)

// Command is one parsed command.
type Command = command.Command

// The chat's commands, by the names the transport and its tests use; each is its folder's.
type (
	// Diagnose asks why Image Updater does not update an Application.
	Diagnose = diagnose.Chat
	// Tags asks for the candidate table of an Application's images (one alias, or all).
	Tags = tags.Chat
	// Logs asks for Image Updater's log lines about an Application.
	Logs = logs.Chat
	// Explain asks what a finding code means.
	Explain = explain.Chat
	// Summary asks for the fleet summary of the Applications in Scope (every managed
	// Application when empty), filtered by what the asker may see.
	Summary = summary.Chat
	// Where asks "where is my tag?" over the Applications the asker may see.
	Where = wherecmd.Chat
	// Help asks for the command list.
	Help = help.Chat
)

// Verb is the command's verb, for logs and metrics.
func Verb(c Command) string {
	if c == nil {
		return "invalid"
	}
	return c.Verb()
}

// ParseError is input that is not a command, with what to type instead.
type ParseError = command.ParseError

// maxInput bounds what is parsed; chat messages can be long.
const maxInput = 4000

// Parse reads one command. Leading bot mentions (<@U123>) are skipped, so
// the text of an app_mention parses like the text of a slash command.
func Parse(text string) (Command, error) {
	if len(text) > maxInput {
		return nil, &ParseError{Input: text[:64] + "…", Reason: fmt.Sprintf("the command is longer than %d characters", maxInput)}
	}
	words := strings.Fields(text)
	for len(words) > 0 && command.MentionRE().MatchString(words[0]) {
		words = words[1:]
	}
	if len(words) == 0 {
		return Help{}, nil
	}
	verb := strings.ToLower(words[0])
	args := words[1:]
	if spec, ok := chatSpec(verb); ok {
		return spec.Chat.Parse(text, args)
	}
	pe := &ParseError{Input: text, Reason: fmt.Sprintf("unknown command %q", clip(words[0]))}
	if near := nearestVerb(verb); near != "" {
		pe.Suggestion = strings.Join(append([]string{near}, args...), " ")
	} else if len(words) == 1 && command.NameRE().MatchString(verb) {
		// "/imgupd myapp" most likely means "diagnose myapp".
		pe.Suggestion = "diagnose " + verb
	}
	return nil, pe
}

// nearestVerb is the verb w is at most two edits from, for "did you mean".
func nearestVerb(w string) string {
	return textutil.NearestOne(w, Verbs(), func(_ string, d int) bool { return d < 3 })
}

// clip bounds an argument echoed in an error to 64 bytes (plus "…").
func clip(s string) string { return command.Clip(s) }

// ValidClusterName reports whether s can be named by `--cluster`.
func ValidClusterName(s string) bool { return command.NameRE().MatchString(s) && len(s) <= 253 }
