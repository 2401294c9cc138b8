// Package help is the chat's `help`: the chat's commands, from the command table.
package help

import (
	"context"

	"github.com/imgupd/imgupd/commands/command"
)

// Chat asks for the command list.
type Chat struct{}

func (Chat) Verb() string { return "help" }

// Spec is help's entry in the command table.
func Spec() command.Spec {
	return command.Spec{
		Name:     "help",
		Surfaces: command.Chat,
		Reads:    command.ReadsNothing,
		Chat: command.ChatSpec{
			Words: []string{"?", "-h", "--help"},
			Help:  "this list",
			Parse: func(string, []string) (command.Command, error) { return Chat{}, nil },
			Handle: func(_ context.Context, d command.Deps, cmd command.Command) command.Result {
				return command.Result{Kind: command.KindHelp, Command: cmd, Text: d.Help()}
			},
		},
	}
}
