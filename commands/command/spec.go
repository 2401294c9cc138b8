// Package command is what every command of imgupd shares, for the terminal and the chat alike:
// its entry in the table (Spec: name, arguments, help, flags, what it reads, its chat grammar,
// progress line and handler), a parsed chat command (Command), the chat's answer (Result), what
// a chat handler is given (Deps), the terminal's I/O (IO) and the grammar's pieces (ParseError,
// the name patterns, the scope options). Each command is a folder of commands/ that declares its
// Spec; commands.Table lists them. It is a package apart so that the folders and the table can
// both use it without an import cycle.
package command

import (
	"context"
	"strings"
)

// Surface says where a command can be typed: in a terminal (imgupd …), in
// the chat (/imgupd …, @imgupd …, a direct message), or both.
type Surface uint8

const (
	Terminal Surface = 1 << iota
	Chat
)

// Reads says what a command reads to answer.
type Reads string

const (
	// ReadsNothing: the catalogue, a configuration file, the embedded lab.
	ReadsNothing Reads = "nothing"
	// ReadsCluster: the Kubernetes API (Argo CD's and Image Updater's objects) and, through the
	// diagnosis, the registries and git. In the chat such a command takes one of its asker's turns.
	ReadsCluster Reads = "cluster"
	// ReadsRegistry: a registry only (and the cluster only for a Secret the flags name).
	ReadsRegistry Reads = "registry"
)

// Spec is one command of imgupd, for the terminal and the chat alike: both the cobra commands
// (cmd/imgupd) and the chat grammar and help (commands.Parse, commands.HelpText) are built from
// the table of Specs (commands.Table), and so are the Slack manifest's usage hint
// (commands.UsageHint) and shell completion.
type Spec struct {
	// Name is the command's words: "diagnose", "config check".
	Name string
	// Args are its arguments as usage shows them: "APP", "IMAGE[:TAG|@DIGEST]" ("" for none).
	Args string
	// Surfaces are where it can be typed.
	Surfaces Surface
	// Reads is what it reads.
	Reads Reads
	// Short, Long and Example are the terminal's help (cobra's Short, Long and Example).
	Short, Long, Example string
	// ArgValues are the values its argument completes to in a shell, read offline (explain: the
	// finding codes); nil when they cannot be known without the cluster (APP) or at all (IMAGE).
	ArgValues func() []string
	// Progress is its progress line on a terminal's stderr while it runs (zero: none).
	Progress TermProgress
	// Term is how the terminal runs it, flags included (nil: cmd/imgupd has a constructor of
	// its own for it).
	Term *Term
	// Chat is the command in the chat (for a command with Surfaces&Chat).
	Chat ChatSpec
}

// TermProgress is a terminal command's progress line on stderr, shown in text and Markdown
// only ("diagnosing team-a/web 3s · Registry and network", "scanning 12/40 apps 5s").
type TermProgress struct {
	// Label is what it does; a %s in it is what it works on (diagnose: NAMESPACE/APP).
	Label string
	// Unit is what it counts ("apps"), "" when it counts nothing.
	Unit string
	// Waiting is what it says before its first count or stage.
	Waiting string
}

// ChatSpec is a command's chat grammar, help, progress line and handler.
type ChatSpec struct {
	// Words are other words for it the parser accepts: "diag", "why".
	Words []string
	// Options are its options as /imgupd help shows them: "-n NAMESPACE", "--cluster NAME".
	Options []string
	// Or is another way to write it: "NAMESPACE/APP".
	Or string
	// Help is its line in /imgupd help.
	Help string
	// Parse reads its arguments (input is the whole text, for errors).
	Parse func(input string, args []string) (Command, error)
	// Progress is the line shown while it runs (the slash command's immediate answer); nil: none.
	Progress func(Command) string
	// Handle carries the command out for an asker the access rules admit here: d holds what the
	// chat service shares (the asker's access, the Applications, the engine, the fleet scan).
	Handle func(ctx context.Context, d Deps, c Command) Result
}

// In reports whether the command can be typed on surface.
func (s Spec) In(surface Surface) bool { return s.Surfaces&surface != 0 }

// Use is the command's usage line for cobra: its last word and its arguments ("check --config FILE").
func (s Spec) Use() string {
	words := strings.Fields(s.Name)
	use := words[len(words)-1]
	if s.Args != "" {
		use += " " + s.Args
	}
	return use
}

// ChatUsage is the command as /imgupd help shows it: "diagnose APP [-n NAMESPACE] [--cluster NAME]".
func (s Spec) ChatUsage() string {
	use := s.Name
	if s.Args != "" {
		use += " " + s.Args
	}
	for _, o := range s.Chat.Options {
		use += " [" + o + "]"
	}
	return use
}

// Command is one parsed chat command; Verb is its entry's name in the table.
type Command interface{ Verb() string }

// AppName is "namespace/app", or the app alone when no namespace was given.
func AppName(ns, app string) string {
	if ns == "" {
		return app
	}
	return ns + "/" + app
}
