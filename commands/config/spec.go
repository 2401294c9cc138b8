// Package config is `imgupd config`, the parent of `config check` (commands/config/check).
package config

import "github.com/imgupd/imgupd/commands/command"

// Spec is config's entry in the command table.
func Spec() command.Spec {
	return command.Spec{
		Name:     "config",
		Surfaces: command.Terminal,
		Reads:    command.ReadsNothing,
		Short:    "Check imgupd's configuration file",
	}
}
