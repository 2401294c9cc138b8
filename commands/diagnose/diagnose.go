// Package diagnose is `imgupd diagnose APP` and the chat's `diagnose APP`: why Image Updater does
// not update an Argo CD Application, and what to change.
package diagnose

import (
	"context"
	"strings"

	"github.com/imgupd/imgupd/commands/command"
)

// Chat asks, in the chat, why Image Updater does not update an Application.
type Chat struct {
	App       string
	Namespace string // "" = the default namespace of the channel / config
	Cluster   string // "" = the only or default cluster
}

func (Chat) Verb() string { return "diagnose" }

// Spec is diagnose's entry in the command table.
func Spec() command.Spec {
	return command.Spec{
		Name:     "diagnose",
		Args:     "APP",
		Surfaces: command.Terminal | command.Chat,
		Reads:    command.ReadsCluster,
		Short:    "Find why Image Updater does not update an Argo CD Application, and what to change",
		Long: `diagnose reads the cluster (with your kubeconfig, or in-cluster), the registries and git
as Image Updater would, and runs staged checks: health, target, source and mapping, live image,
registry and network, candidates, write-back, sync, history. The first failing check is the root
cause; each finding has its evidence and a fix. Nothing is written anywhere.

The report answers one question: will the tag Image Updater should pick reach the cluster, and if
not, what stops it? What imgupd could not check is listed as not verified, with what would verify it.

Exit status, by state:
  0  up-to-date or update-on-its-way   nothing stops the tag
  1  blocked                           Image Updater cannot (registry, credentials, write-back, ...)
  2  unknown                           a check that decides the answer could not be made
  3  wrong-update                      Image Updater writes something with no effect or not wanted
  4  not-deployed                      Image Updater writes, Argo CD does not deploy it
  5  held-back                         the configuration keeps newer tags out
  6  waiting-for-merge                 the pull request with the new tag is not merged yet
Before any state: 64 bad flags or arguments, 69 the API server cannot be reached, 77 RBAC forbids
reading the Application, 78 the kubeconfig is unusable or its credentials refused (401).`,
		Example: `  imgupd diagnose guestbook -n argocd
  imgupd diagnose web -n team-a --updater-namespace argocd-image-updater -o markdown
  kubectl -n argocd logs deploy/argocd-image-updater-controller --since=30m | imgupd diagnose web --updater-log -`,
		Progress: command.TermProgress{Label: "diagnosing %s", Waiting: "reading the Application"},
		Term:     Term(Run),
		Chat: command.ChatSpec{
			Words:   []string{"diag", "why"},
			Options: []string{"-n NAMESPACE", "--cluster NAME"},
			Or:      "NAMESPACE/APP",
			Help:    "staged checks, the root cause and the fix",
			Parse:   func(_ string, args []string) (command.Command, error) { return Parse(args) },
			Progress: func(c command.Command) string {
				d := c.(Chat)
				return "Diagnosing `" + command.AppName(d.Namespace, d.App) + "`"
			},
			Handle: handle,
		},
	}
}

// Parse reads `diagnose APP [-n NAMESPACE] [--cluster NAME]` (or `NAMESPACE/APP`): args are the
// words after the verb.
func Parse(args []string) (command.Command, error) {
	d := Chat{}
	rest, err := command.TakeFlags("diagnose "+strings.Join(args, " "), args, &d.Namespace, &d.Cluster)
	if err != nil {
		return nil, err
	}
	if len(rest) != 1 {
		return nil, &command.ParseError{Input: "diagnose", Reason: "diagnose takes one Application name, e.g. `diagnose myapp -n team-a`"}
	}
	app, ns, err := command.AppRef("diagnose", rest[0])
	if err != nil {
		return nil, err
	}
	d.App = app
	if ns != "" {
		d.Namespace = ns
	}
	return d, nil
}

// handle diagnoses the Application for the asker; a command naming another cluster is refused.
func handle(ctx context.Context, d command.Deps, cmd command.Command) command.Result {
	c := cmd.(Chat)
	return d.App(ctx, cmd, c.Cluster, c.App, c.Namespace, command.KindReport)
}
