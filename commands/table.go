package commands

import (
	"slices"
	"strings"

	"github.com/imgupd/imgupd/commands/command"
	configcmd "github.com/imgupd/imgupd/commands/config"
	configcheck "github.com/imgupd/imgupd/commands/config/check"
	"github.com/imgupd/imgupd/commands/demo"
	"github.com/imgupd/imgupd/commands/diagnose"
	"github.com/imgupd/imgupd/commands/explain"
	"github.com/imgupd/imgupd/commands/help"
	"github.com/imgupd/imgupd/commands/logs"
	"github.com/imgupd/imgupd/commands/serve"
	"github.com/imgupd/imgupd/commands/simulate"
	"github.com/imgupd/imgupd/commands/summary"
	"github.com/imgupd/imgupd/commands/tags"
	"github.com/imgupd/imgupd/commands/version"
	wherecmd "github.com/imgupd/imgupd/commands/where"
)

// The table's types are command's: each command's folder declares its Spec with them.
type (
	Spec     = command.Spec
	ChatSpec = command.ChatSpec
	Surface  = command.Surface
	Reads    = command.Reads
)

const (
	Terminal      = command.Terminal
	Chat          = command.Chat
	ReadsNothing  = command.ReadsNothing
	ReadsCluster  = command.ReadsCluster
	ReadsRegistry = command.ReadsRegistry
)

// Table is every command of imgupd, one line each, in the order /imgupd help lists the chat's:
// each command is a folder of commands/ that declares its Spec (its name, arguments, help, what
// it reads, its chat grammar, progress line and handler). Adding a command is its folder and one
// line here.
func Table() []Spec {
	return []Spec{
		diagnose.Spec(),
		wherecmd.Spec(),
		tags.Spec(),
		logs.Spec(),
		explain.Spec(),
		summary.Spec(),
		help.Spec(),
		simulate.Spec(),
		demo.Spec(),
		serve.Spec(),
		configcmd.Spec(),
		configcheck.Spec(),
		version.Spec(),
	}
}

// Lookup is the command named name ("config check").
func Lookup(name string) (Spec, bool) {
	for _, s := range Table() {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// chatSpec is the chat command word (its name or one of its Words) names, in lower case.
func chatSpec(word string) (Spec, bool) {
	for _, s := range Table() {
		if s.In(Chat) && (s.Name == word || slices.Contains(s.Chat.Words, word)) {
			return s, true
		}
	}
	return Spec{}, false
}

// Verbs are the chat's command words, in help order.
func Verbs() []string {
	var out []string
	for _, s := range Table() {
		if s.In(Chat) {
			out = append(out, s.Name)
		}
	}
	return out
}

// SpecOf is the entry of a parsed command.
func SpecOf(c Command) (Spec, bool) {
	if c == nil {
		return Spec{}, false
	}
	return Lookup(c.Verb())
}

// CommandReadsCluster reports whether a command reads the cluster (a diagnosis or a scan): in the chat it
// takes one of its asker's turns; help, explain and input that is not a command do not.
func CommandReadsCluster(c Command) bool {
	s, ok := SpecOf(c)
	return ok && s.Reads == ReadsCluster
}

// ProgressText is the line shown while a command runs.
func ProgressText(c Command) string {
	if s, ok := SpecOf(c); ok && s.Chat.Progress != nil {
		return s.Chat.Progress(c)
	}
	return "Working on it"
}

// UsageHint is the slash command's usage hint in the Slack app manifest: every chat command with
// its arguments and its first option.
func UsageHint() string {
	var parts []string
	for _, s := range Table() {
		if !s.In(Chat) {
			continue
		}
		p := s.Name
		if s.Args != "" {
			p += " " + s.Args
		}
		if len(s.Chat.Options) > 0 {
			p += " [" + s.Chat.Options[0] + "]"
		}
		// --cluster too: with several clusters, the one option that says which.
		if slices.Contains(s.Chat.Options[min(1, len(s.Chat.Options)):], "--cluster NAME") {
			p += " [--cluster NAME]"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " | ")
}

// HelpText lists the commands, for chat.
func HelpText() string {
	lines := []string{"*imgupd* explains why Argo CD Image Updater did not update an application."}
	for _, s := range Table() {
		if !s.In(Chat) {
			continue
		}
		line := "• `" + s.ChatUsage() + "`"
		if s.Chat.Or != "" {
			line += " (or `" + s.Chat.Or + "`)"
		}
		lines = append(lines, line+": "+s.Chat.Help)
	}
	lines = append(lines, "Use them as `/imgupd …` in a channel, `@imgupd …` in a thread, or on their own in a direct message with me.")
	return strings.Join(lines, "\n")
}
