// Package where is `imgupd where IMAGE` and the chat's `where IMAGE`: every Application Image
// Updater manages that uses the image, and whether the tag reaches it.
package where

import (
	"context"
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/report"
)

// Chat asks "where is my tag?": every Application Image Updater manages (in Scope, that the
// asker may see) whose images use Image's repository, and whether the tag reaches each.
type Chat struct {
	// Image is IMAGE[:TAG|@DIGEST] as typed.
	Image string
	Scope report.Scope
	// Cluster is --cluster ("": the asker's default cluster, else every cluster they may see).
	Cluster string
}

func (Chat) Verb() string { return "where" }

// String is the command as it is typed.
func (w Chat) String() string {
	return "where " + w.Image + command.ScopeString(w.Scope) + command.ClusterString(w.Cluster)
}

// Spec is where's entry in the command table.
func Spec() command.Spec {
	return command.Spec{
		Name:     "where",
		Args:     "IMAGE[:TAG|@DIGEST]",
		Surfaces: command.Terminal | command.Chat,
		Reads:    command.ReadsCluster,
		Short:    "Where is my tag? Every app Image Updater manages that uses the image, and whether the tag reaches it",
		Long: `where starts from an image you pushed and finds every Application Image Updater manages whose
images use its repository (after Image Updater's own normalisation: Docker Hub's library/, the
registries.conf entry's defaultns). For each it answers, in order: will Image Updater pick the tag
(or which filter drops it, which newer tag beats it), has it written it, does the app run it, and if
not, the root cause and its fix from the app's own diagnosis. Apps are grouped by answer: running,
written and deploying, will be picked next cycle, held back, blocked, wrong update, not deployed,
unknown. The fix of the first app something stops is shown; "imgupd diagnose APP -n NAMESPACE"
shows any app's full report.

Without a tag, the answer is about the newest tag in the registry (the latest build when Image
Updater's strategy reads build times, else the highest version). With a digest, about the newest
tag that points at it (the digests the diagnoses read, else those of the 100 highest versions, read
without credentials). A repository no app uses, a tag the registry does not list or a digest no tag
read has, is answered as such, with the nearest names.

It scans like "imgupd summary" (the same scope flags, one deadline, shared reads) but diagnoses
only the apps that use the repository. Nothing is written anywhere.

Exit status, by the most urgent answer: 0 running, written or due; 1 blocked; 2 unknown (or no app
uses the image); 3 wrong update; 4 not deployed; 5 held back; 6 waiting for a merge. Before any
answer: 64 bad flags, 69 the API server cannot be reached, 78 the kubeconfig is unusable or refused.`,
		Example: `  imgupd where ghcr.io/acme/web:1.4.2
  imgupd where ghcr.io/acme/web            # the newest tag in the registry
  imgupd where nginx:1.27 -n 'team-*'
  imgupd where ghcr.io/acme/web:1.4.2 -o json | jq '.apps[] | {app, answer}'`,
		Progress: command.TermProgress{Label: "scanning", Unit: "apps", Waiting: "listing Applications"},
		Term:     Term(Run),
		Chat: command.ChatSpec{
			Options: []string{"-n NAMESPACE", "--project PROJECT", "--cluster NAME"},
			Help:    "every application that uses the image, and whether the tag (without one: the newest) reaches it",
			Parse:   parse,
			Progress: func(c command.Command) string {
				return "Looking for the apps that use `" + c.(Chat).Image + "` (those you may see here)"
			},
			Handle: handle,
		},
	}
}

const usage = "`where IMAGE[:TAG|@DIGEST]`, e.g. `where ghcr.io/acme/web:1.4.2` (" + command.ScopeUsage + ")"

// parse reads `where IMAGE[:TAG|@DIGEST] [-n NS] [--project P] [--name GLOB] [--selector SEL]`.
func parse(input string, words []string) (command.Command, error) {
	var cluster string
	sc, rest, err := command.ParseScope(input, "where", words, &cluster)
	if err != nil {
		return nil, err
	}
	if len(rest) != 1 {
		return nil, &command.ParseError{Input: input, Reason: "where takes one image: " + usage}
	}
	image := unlink(rest[0])
	if _, err := fleet.ParseImageQuery(image); err != nil {
		pe := &command.ParseError{Input: input, Reason: fmt.Sprintf("%q is not an image: write REGISTRY/PATH[:TAG|@DIGEST] (no alias, version constraint or space), e.g. `where ghcr.io/acme/web:1.4.2`", command.Clip(image))}
		if low := strings.ToLower(image); low != image {
			if _, err := fleet.ParseImageQuery(low); err == nil {
				pe.Suggestion = "where " + low
			}
		}
		return nil, pe
	}
	return Chat{Image: image, Scope: sc, Cluster: cluster}, nil
}

// unlink undoes Slack's link formatting of a word it took for a URL: "<http://ghcr.io/acme/web|ghcr.io/acme/web>"
// and "<https://x>" are the text the asker typed.
func unlink(s string) string {
	if !strings.HasPrefix(s, "<") || !strings.HasSuffix(s, ">") {
		return s
	}
	in := s[1 : len(s)-1]
	if _, label, ok := strings.Cut(in, "|"); ok {
		return label
	}
	for _, p := range []string{"http://", "https://"} {
		if rest, ok := strings.CutPrefix(in, p); ok {
			return rest
		}
	}
	return s
}

// handle answers a where over the scope narrowed to what the asker may see: the scan reads,
// answers and counts nothing else, and names no repository only a hidden app uses.
func handle(ctx context.Context, d command.Deps, cmd command.Command) command.Result {
	c := cmd.(Chat)
	q, err := fleet.ParseImageQuery(c.Image)
	if err != nil {
		return command.Result{Kind: command.KindInvalid, Command: cmd, Text: err.Error()}
	}
	sctx, cancel := context.WithTimeout(ctx, d.ScanTimeout())
	defer cancel()
	w, err := d.Where(sctx, c.Cluster, c.Scope, q)
	if err != nil {
		return command.ScanFailure(d, cmd, "the Applications that use "+c.Image, err)
	}
	out := command.Result{Kind: command.KindWhere, Command: cmd, Where: w, Rule: d.Rule()}
	for _, l := range w.Apps {
		if why := d.Private(l.Cluster, l.App.Namespace, l.Project, fmt.Sprintf("Applications that use `%s`", c.Image)); why != "" {
			out.Private = why
			break
		}
	}
	return out
}
