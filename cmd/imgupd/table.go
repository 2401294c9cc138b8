package main

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/commands/command"
)

// fromTable is cmd, the command table's entry name (commands.Table) in cobra: cmd says what runs it
// (Args, RunE), the table its usage, help, examples and argument completion; the caller adds its
// flags and subcommands.
func fromTable(name string, cmd *cobra.Command) *cobra.Command {
	s, ok := commands.Lookup(name)
	if !ok || !s.In(commands.Terminal) {
		// A constructor naming an entry the table lacks: every test of the binary finds it.
		panic("imgupd: " + name + " is not a terminal command of commands.Table")
	}
	cmd.Use, cmd.Short, cmd.Long, cmd.Example = s.Use(), s.Short, s.Long, s.Example
	if s.Args != "" && !strings.HasPrefix(s.Args, "-") {
		cmd.ValidArgsFunction = completeArgs(s)
	}
	return cmd
}

// completeArgs completes a command's argument with the values the table knows offline (explain:
// the finding codes), and offers no file names for the others (an Application, an image).
func completeArgs(s commands.Spec) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if s.ArgValues == nil || len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, v := range s.ArgValues() {
			if strings.HasPrefix(v, strings.ToUpper(toComplete)) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// cmdEnv is what the commands' constructors are given.
type cmdEnv struct {
	v         *viper.Viper
	io        streams
	lookupEnv func(string) (string, bool)
}

// fromTerm is the cobra command of a table entry with a Term (commands/command.Term): its usage
// and help are the table's, its flags the Term's, -o the exporters' of its answer's kind; run
// (nil: the Term's) is what runs it, so that a test can call it. The answer is printed, then its
// exit status (command.Exiter) follows.
func fromTerm(s commands.Spec, io streams, run func(context.Context, []string, command.IO) (command.Answer, error)) *cobra.Command {
	var output string
	out := formatsOf(s.Term.Answer)
	cmd := fromTable(s.Name, &cobra.Command{Args: argsOf(s.Term)})
	bound := s.Term.Bind(cmd.Flags())
	if run == nil {
		run = bound
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := out.check(output); err != nil {
			return usageError(err)
		}
		cio := io.command()
		cio.Name = cmd.Root().DisplayName()
		cio.Output, cio.Formats = output, func(k command.AnswerKind) []string { return formatsOf(k).names() }
		cio.Progress = func(what string) command.Progress {
			if p := progressOf(s.Name, io.Err, output, what); p != nil {
				return p
			}
			return nil
		}
		a, err := run(cmd.Context(), args, cio)
		if err != nil {
			return commandExit(err)
		}
		// An answer printed as another (command.ExitAs: demo's report, summary) is that one's kind.
		shown := a
		if x, ok := a.(command.ExitAs); ok {
			shown = x.Answer
		}
		if err := formatsOf(shown.AnswerKind()).write(io, output, shown); err != nil {
			return &exitError{code: exitNoDecide, err: err}
		}
		if x, ok := a.(command.Exiter); ok {
			return commandExit(x.Exit())
		}
		return nil
	}
	out.flag(cmd, &output, s.Term.OutputHelp)
	return cmd
}

// argsOf is cobra's check of a Term's arguments, with cobra's own words for each case; with
// its NoArgsWith flag set, it takes none.
func argsOf(t *command.Term) cobra.PositionalArgs {
	if t.NoArgsWith != "" {
		base := argsOf(&command.Term{MinArgs: t.MinArgs, MaxArgs: t.MaxArgs})
		return func(cmd *cobra.Command, args []string) error {
			if set, _ := cmd.Flags().GetBool(t.NoArgsWith); set {
				return cobra.NoArgs(cmd, args)
			}
			return base(cmd, args)
		}
	}
	switch {
	case t.MinArgs == 0 && t.MaxArgs == 0:
		return cobra.NoArgs
	case t.MinArgs == t.MaxArgs:
		return cobra.ExactArgs(t.MinArgs)
	case t.MaxArgs < 0:
		return cobra.MinimumNArgs(t.MinArgs)
	}
	return cobra.RangeArgs(t.MinArgs, t.MaxArgs)
}

// commandExit is a command's error as the exit status it says (command.ExitError), else 2.
func commandExit(err error) error {
	if err == nil {
		return nil
	}
	var ce *command.ExitError
	if errors.As(err, &ce) {
		return &exitError{code: ce.Code, err: ce.Err}
	}
	return &exitError{code: exitNoDecide, err: err}
}

// terminalCommands are the constructors of the table's top-level terminal commands that have
// no Term (commands/command.Term), by name.
func terminalCommands() map[string]func(env cmdEnv) *cobra.Command {
	return map[string]func(env cmdEnv) *cobra.Command{
		"serve": func(e cmdEnv) *cobra.Command { return newServeCmd(e.v, e.io, e.lookupEnv) },
	}
}
