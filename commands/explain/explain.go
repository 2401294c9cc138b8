// Package explain is `imgupd explain CODE|--all` and the chat's `explain CODE`: what a finding code
// means and what to change.
package explain

import (
	"context"
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/report"
)

// Chat asks, in the chat, what a finding code means.
type Chat struct{ Code string }

func (Chat) Verb() string { return "explain" }

// Spec is explain's entry in the command table.
func Spec() command.Spec {
	return command.Spec{
		Name:     "explain",
		Args:     "CODE",
		Surfaces: command.Terminal | command.Chat,
		Reads:    command.ReadsNothing,
		Short:    "Explain a finding code: what it means and what to change",
		Example: `  imgupd explain LIVE_IMAGE_NOT_LIVE
  imgupd explain --all -o markdown > docs/findings.md`,
		ArgValues: Codes,
		Term:      Term(TermRun),
		Chat: command.ChatSpec{
			Help:   "what a finding code means and what to change",
			Parse:  parse,
			Handle: handle,
		},
	}
}

// parse reads `explain CODE`.
func parse(text string, args []string) (command.Command, error) {
	if len(args) != 1 {
		return nil, &command.ParseError{Input: text, Reason: "explain takes one finding code, e.g. `explain LIVE_IMAGE_NOT_LIVE`"}
	}
	if !command.CodeRE().MatchString(args[0]) || len(args[0]) > 64 {
		return nil, &command.ParseError{Input: text, Reason: fmt.Sprintf("%q is not a finding code (letters, digits and _)", command.Clip(args[0]))}
	}
	return Chat{Code: strings.ToUpper(args[0])}, nil
}

// handle answers with the code's catalogue entry, or the nearest code.
func handle(_ context.Context, _ command.Deps, cmd command.Command) command.Result {
	c := cmd.(Chat)
	e, ok := report.Lookup(c.Code)
	if !ok {
		return command.Result{Kind: command.KindNotFound, Command: cmd, Text: fmt.Sprintf("`%s` is not a finding code%s", c.Code, nearestCode(c.Code))}
	}
	return command.Result{Kind: command.KindExplain, Command: cmd, Entry: &e}
}

func nearestCode(code string) string {
	best := textutil.NearestOne(code, Codes(), func(_ string, d int) bool { return d < 4 })
	if best == "" {
		return "; `help` lists the commands, docs/findings.md every code"
	}
	return fmt.Sprintf("; did you mean `%s`?", best)
}

// Codes are the finding codes, in the catalogue's order (and for the argument's completion).
func Codes() []string {
	var out []string
	for _, e := range report.Catalogue() {
		out = append(out, string(e.Code))
	}
	return out
}
