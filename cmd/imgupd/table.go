package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/imgupd/imgupd/commands"
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
	// scanEngine builds the engine of summary and where.
	scanEngine scanEngine
}

// terminalCommands are the constructors of the table's top-level terminal commands, by name
// (config builds config check).
func terminalCommands() map[string]func(env cmdEnv) *cobra.Command {
	return map[string]func(env cmdEnv) *cobra.Command{
		"diagnose": func(e cmdEnv) *cobra.Command { return newDiagnoseCmd(e.io) },
		"where":    func(e cmdEnv) *cobra.Command { return newWhereCmd(e.io, e.scanEngine) },
		"explain":  func(e cmdEnv) *cobra.Command { return newExplainCmd(e.io, nil) },
		"summary":  func(e cmdEnv) *cobra.Command { return newSummaryCmd(e.io, e.scanEngine) },
		"simulate": func(e cmdEnv) *cobra.Command { return newSimulateCmd(e.v, e.io) },
		"demo":     func(e cmdEnv) *cobra.Command { return newDemoCmd(e.io) },
		"serve":    func(e cmdEnv) *cobra.Command { return newServeCmd(e.v, e.io, e.lookupEnv) },
		"config":   func(e cmdEnv) *cobra.Command { return newConfigCmd(e.v, e.io, e.lookupEnv) },
		"version":  func(e cmdEnv) *cobra.Command { return newVersionCmd(e.io, nil) },
	}
}
