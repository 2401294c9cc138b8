// Package logs is the chat's `logs APP`: Image Updater's recent log lines about an Application.
package logs

import (
	"context"
	"errors"
	"strings"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/commands/diagnose"
)

// Chat asks for Image Updater's log lines about an Application.
type Chat struct {
	App       string
	Namespace string
	// Cluster is --cluster ("": the asker's default cluster, else wherever the app is).
	Cluster string
}

func (Chat) Verb() string { return "logs" }

// Spec is logs' entry in the command table.
func Spec() command.Spec {
	return command.Spec{
		Name:     "logs",
		Args:     "APP",
		Surfaces: command.Chat,
		Reads:    command.ReadsCluster,
		Chat: command.ChatSpec{
			Words:   []string{"log"},
			Options: []string{"-n NAMESPACE", "--cluster NAME"},
			Help:    "Image Updater's recent log lines about the application",
			Parse:   parse,
			Progress: func(c command.Command) string {
				l := c.(Chat)
				return "Reading Image Updater's log lines about `" + command.AppName(l.Namespace, l.App) + "`"
			},
			Handle: func(ctx context.Context, d command.Deps, cmd command.Command) command.Result {
				c := cmd.(Chat)
				return d.App(ctx, cmd, c.Cluster, c.App, c.Namespace, command.KindLogs)
			},
		},
	}
}

// parse reads `logs APP [-n NAMESPACE] [--cluster NAME]` (or `NAMESPACE/APP`): diagnose's grammar.
func parse(text string, args []string) (command.Command, error) {
	d, err := diagnose.Parse(args)
	if err != nil {
		var pe *command.ParseError
		if errors.As(err, &pe) && strings.HasPrefix(pe.Reason, "diagnose takes") {
			pe.Reason = "logs takes one Application name, e.g. `logs myapp -n team-a`"
		}
		return nil, err
	}
	dg := d.(diagnose.Chat)
	return Chat{App: dg.App, Namespace: dg.Namespace, Cluster: dg.Cluster}, nil
}
