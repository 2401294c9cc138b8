// Package summary is `imgupd summary` and the chat's `summary`: every Application Image Updater
// manages, at a glance.
package summary

import (
	"context"
	"fmt"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/report"
)

// Chat asks for the fleet summary of the Applications in Scope (every managed Application when
// empty), filtered by what the asker may see.
type Chat struct {
	Scope report.Scope
	// Cluster is --cluster ("": the asker's default cluster, else every cluster they may see).
	Cluster string
}

func (Chat) Verb() string { return "summary" }

// String is the command as it is typed, options in a fixed order: what a summary's Re-run
// button runs again, through the parser.
func (s Chat) String() string {
	return "summary" + command.ScopeString(s.Scope) + command.ClusterString(s.Cluster)
}

// Spec is summary's entry in the command table.
func Spec() command.Spec {
	return command.Spec{
		Name:     "summary",
		Surfaces: command.Terminal | command.Chat,
		Reads:    command.ReadsCluster,
		Short:    "Diagnose every Application Image Updater manages and summarize: counts per state, the apps that need someone",
		Long: `summary diagnoses every Application Image Updater manages (the ImageUpdater CRs' applicationRefs,
or the annotated Applications on v0.x and with useAnnotations), in one scan that shares its reads
across apps, and prints how many apps are in each state, then the apps that need someone —
blocked, wrong update, not deployed, held back, unknown — grouped by state and by the stage that
stops them, each with its root-cause code. "imgupd diagnose APP -n NAMESPACE" shows one app's
full report and its fix. Nothing is written anywhere.

The scope is every namespace unless --namespace, --project, --name or --selector narrow it (each
repeatable one matches any of its values; all given must match). The scan has one deadline: what
did not finish by then is unknown and the summary says it is partial. On a terminal, stderr shows
the progress (apps done of the total, elapsed).

Exit status, by the worst state of any app:
  0  every app up-to-date or update-on-its-way
  1  blocked
  2  unknown (or could not scan: the Applications or the CRs cannot be listed)
  3  wrong-update
  4  not-deployed
  5  held-back
  6  waiting-for-merge
Before any answer: 64 bad flags, 69 the API server cannot be reached, 78 the kubeconfig is
unusable or its credentials refused (401).`,
		Example: `  imgupd summary
  imgupd summary -n payments -n 'payments-*' --project payments
  imgupd summary --selector team=checkout -o markdown
  imgupd summary --name 'web-*' -o json | jq '.attention[].apps[].app'`,
		Progress: command.TermProgress{Label: "scanning", Unit: "apps", Waiting: "listing Applications"},
		Term:     Term(Run),
		Chat: command.ChatSpec{
			Words:   []string{"status"},
			Options: []string{"-n NAMESPACE", "--project PROJECT", "--name GLOB", "--selector LABELS", "--cluster NAME"},
			Help:    "every application Image Updater manages (that you may see here), at a glance",
			Parse:   parse,
			Progress: func(c command.Command) string {
				return "Scanning " + c.(Chat).Scope.String() + " (the apps you may see here)"
			},
			Handle: handle,
		},
	}
}

// parse reads `summary [-n NS] [--project P] [--name GLOB] [--selector SEL]`. Values
// may be lists (`-n a,b`) and options repeat; a selector with spaces is quoted (`--selector
// "tier in (web,api)"`; Slack's curly quotes count too).
func parse(input string, words []string) (command.Command, error) {
	var cluster string
	sc, rest, err := command.ParseScope(input, "summary", words, &cluster)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		pe := &command.ParseError{Input: input, Reason: fmt.Sprintf("summary takes options, not words like %q (%s)", command.Clip(rest[0]), command.ScopeUsage)}
		if len(rest) == 1 && command.NamespaceGlobRE().MatchString(rest[0]) && command.ValidGlob(rest[0]) {
			pe.Suggestion = "summary -n " + rest[0]
		}
		return nil, pe
	}
	return Chat{Scope: sc, Cluster: cluster}, nil
}

// handle scans the requested scope, narrowed before anything is read to what the asker may
// see here: the answer is the one a cluster without the other Applications would give.
func handle(ctx context.Context, d command.Deps, cmd command.Command) command.Result {
	c := cmd.(Chat)
	sctx, cancel := context.WithTimeout(ctx, d.ScanTimeout())
	defer cancel()
	res, err := d.Scan(sctx, c.Cluster, c.Scope)
	if err != nil {
		return command.ScanFailure(d, cmd, "the Applications to summarize", err)
	}
	sum := res.Summary(nil)
	out := command.Result{Kind: command.KindSummary, Command: cmd, Summary: &sum, Rule: d.Rule()}
	// Shown to the channel only when a rule for everyone here grants every app it shows.
	for _, a := range res.Apps {
		if why := d.Private(a.Cluster, a.App.Namespace, a.Project, "Applications in this summary"); why != "" {
			out.Private = why
			break
		}
	}
	return out
}
