package main

import (
	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/sources/forge"
)

// forgeFlagHelp documents --forge for the commands that take it.
const forgeFlagHelp = command.ForgeHelp

// parseForges reads --forge values (command.ParseForges): "github:ghe.corp.example",
// "gitlab:git.corp.example=https://git.corp.example/api/v4".
func parseForges(vals []string) ([]forge.Endpoint, error) { return command.ParseForges(vals) }
