package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/commands/explain"
)

// newExplainCmd is `imgupd explain` (commands/explain) in cobra; runF runs it (nil: explain.Run),
// so that a test can call it with the options the flags make.
func newExplainCmd(io streams, runF func(context.Context, explain.Options, command.IO) (explain.Answer, error)) *cobra.Command {
	if runF == nil {
		runF = explain.Run
	}
	var o explain.Options
	var output string
	cmd := fromTable("explain", &cobra.Command{
		Args: func(cmd *cobra.Command, args []string) error {
			if o.All {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := formatsOf(answerCatalogue)
			if err := out.check(output); err != nil {
				return usageError(err)
			}
			if !o.All {
				o.Code = args[0]
			}
			a, err := runF(cmd.Context(), o, io.command())
			if err != nil {
				return usageError(err) // only an unknown code
			}
			return out.write(io, output, a)
		},
	})
	explain.Flags(cmd.Flags(), &o)
	formatsOf(answerCatalogue).flag(cmd, &output, explain.OutputHelp)
	return cmd
}
