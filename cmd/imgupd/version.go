package main

import (
	"context"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/imgupd/imgupd/commands/command"
	versioncmd "github.com/imgupd/imgupd/commands/version"
)

// version is set at build time with -ldflags "-X main.version=v0.1.0".
var version = ""

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// newVersionCmd is `imgupd version` (commands/version) in cobra; runF runs it (nil:
// versioncmd.Run), so that a test can call it with the options the flags make.
func newVersionCmd(io streams, runF func(context.Context, versioncmd.Options, command.IO) (versioncmd.Answer, error)) *cobra.Command {
	if runF == nil {
		runF = versioncmd.Run
	}
	var output string
	out := formatsOf(answerPlain)
	cmd := fromTable("version", &cobra.Command{
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.check(output); err != nil {
				return usageError(err)
			}
			a, err := runF(cmd.Context(), versioncmd.Options{Build: buildVersion()}, io.command())
			if err != nil {
				return &exitError{code: exitNoDecide, err: err}
			}
			return out.write(io, output, a)
		},
	})
	out.flag(cmd, &output, "output format: %s")
	return cmd
}
