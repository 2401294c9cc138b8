// Package tags is the chat's `tags APP [ALIAS]`: which tag Image Updater would pick, and why every
// other tag was not.
package tags

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/report"
)

// Chat asks for the candidate table of an Application's images (one alias, or all).
type Chat struct {
	App       string
	Namespace string
	Alias     string
	// Cluster is --cluster ("": the asker's default cluster, else wherever the app is).
	Cluster string
}

func (Chat) Verb() string { return "tags" }

// Spec is tags' entry in the command table.
func Spec() command.Spec {
	return command.Spec{
		Name:     "tags",
		Args:     "APP [ALIAS]",
		Surfaces: command.Chat,
		Reads:    command.ReadsCluster,
		Chat: command.ChatSpec{
			Words:   []string{"candidates"},
			Options: []string{"-n NAMESPACE", "--cluster NAME"},
			Help:    "which tag Image Updater would pick, and why every other tag was not",
			Parse:   func(_ string, args []string) (command.Command, error) { return parse(args) },
			Progress: func(c command.Command) string {
				t := c.(Chat)
				return "Reading the candidate tags of `" + command.AppName(t.Namespace, t.App) + "`"
			},
			Handle: handle,
		},
	}
}

func parse(args []string) (command.Command, error) {
	t := Chat{}
	rest, err := command.TakeFlags("tags "+strings.Join(args, " "), args, &t.Namespace, &t.Cluster)
	if err != nil {
		return nil, err
	}
	if len(rest) < 1 || len(rest) > 2 {
		return nil, &command.ParseError{Input: "tags", Reason: "tags takes an Application name and optionally an image alias, e.g. `tags myapp web`"}
	}
	app, ns, err := command.AppRef("tags", rest[0])
	if err != nil {
		return nil, err
	}
	t.App = app
	if ns != "" {
		t.Namespace = ns
	}
	if len(rest) == 2 {
		if !command.AliasRE().MatchString(rest[1]) || len(rest[1]) > 253 {
			return nil, &command.ParseError{Input: "tags", Reason: fmt.Sprintf("%q is not an image alias", command.Clip(rest[1]))}
		}
		t.Alias = rest[1]
	}
	return t, nil
}

// handle diagnoses the Application for the asker and answers with its candidate tables; an alias
// the report has no table for is not found, with the aliases it has.
func handle(ctx context.Context, d command.Deps, cmd command.Command) command.Result {
	c := cmd.(Chat)
	res := d.App(ctx, cmd, c.Cluster, c.App, c.Namespace, command.KindTags)
	res.Alias = c.Alias
	if res.Kind == command.KindTags && c.Alias != "" && res.Report != nil && !slices.ContainsFunc(res.Report.Candidates, func(t report.CandidateTable) bool { return t.Alias == c.Alias }) {
		var aliases []string
		for _, t := range res.Report.Candidates {
			aliases = append(aliases, command.ChatCode(t.Alias))
		}
		res.Kind = command.KindNotFound
		res.Text = fmt.Sprintf("%s has no image alias %s with a candidate table", res.App, command.ChatCode(c.Alias))
		if len(aliases) > 0 {
			res.Text += "; it has " + strings.Join(aliases, ", ")
		}
	}
	return res
}
