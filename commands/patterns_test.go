package commands

import "github.com/imgupd/imgupd/commands/command"

// The grammar's patterns (command's), by the names this package's tests use.
var (
	mentionRE       = command.MentionRE
	nameRE          = command.NameRE
	namespaceRE     = command.NamespaceRE
	codeRE          = command.CodeRE
	aliasRE         = command.AliasRE
	namespaceGlobRE = command.NamespaceGlobRE
	nameGlobRE      = command.NameGlobRE
)
