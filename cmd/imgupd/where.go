package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/imgupd/imgupd/diagnostics/fleet"
	"github.com/imgupd/imgupd/diagnostics/render"
	"github.com/imgupd/imgupd/diagnostics/report"
	"github.com/imgupd/imgupd/lab"
)

func newWhereCmd(io streams) *cobra.Command {
	o := &summaryOptions{}
	cmd := &cobra.Command{
		Use:   "where IMAGE[:TAG|@DIGEST]",
		Short: "Where is my tag? Every app Image Updater manages that uses the image, and whether the tag reaches it",
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
uses the image, or bad flags); 3 wrong update; 4 not deployed; 5 held back.`,
		Example: `  imgupd where ghcr.io/acme/web:1.4.2
  imgupd where ghcr.io/acme/web            # the newest tag in the registry
  imgupd where nginx:1.27 -n 'team-*'
  imgupd where ghcr.io/acme/web:1.4.2 -o json | jq '.apps[] | {app, answer}'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWhere(cmd.Context(), o, args[0], io, cmd.Root().DisplayName())
		},
	}
	formatsOf(answerWhere).flag(cmd, &o.output, "output format: %s")
	scanFlags(cmd, o)
	return cmd
}

func runWhere(ctx context.Context, o *summaryOptions, image string, io streams, command string) error {
	fail := func(err error) error { return &exitError{code: exitNoDecide, err: err} }
	out := formatsOf(answerWhere)
	if err := out.check(o.output); err != nil {
		return fail(err)
	}
	q, err := fleet.ParseImageQuery(image)
	if err != nil {
		return fail(err)
	}
	sc, scope, err := o.scanner()
	if err != nil {
		return fail(err)
	}
	prog := newProgress(io.Err)
	if prog != nil {
		sc.Progress = prog.update
		defer prog.stop()
	}
	w, err := sc.Where(ctx, scope, q)
	prog.stop()
	if err != nil {
		return fail(err)
	}
	if err := out.write(io, o.output, whereOutput{where: w, opts: render.SummaryOptions{Command: command}}); err != nil {
		return fail(err)
	}
	if len(w.Apps) == 0 {
		return &exitError{code: exitNoDecide, err: fmt.Errorf("")}
	}
	return stateExit(w.Worst())
}

// whereOutput is a "where" answer to print.
type whereOutput struct {
	where *report.Where
	opts  render.SummaryOptions
}

func (whereOutput) answerKind() answerKind { return answerWhere }

// demoWhere answers o.where on the lab fleet where-web; an image without a
// registry host is the lab registry's.
func demoWhere(ctx context.Context, o *demoOptions, io streams) error {
	fail := func(err error) error { return &exitError{code: exitNoDecide, err: err} }
	out := formatsOf(answerWhere)
	if err := out.check(o.output); err != nil {
		return fail(err)
	}
	sc, err := lab.Fleet("where-web")
	if err != nil {
		return fail(err)
	}
	env, err := lab.Start(ctx, sc)
	if err != nil {
		return fail(err)
	}
	defer env.Close()
	image := o.where
	if first, _, ok := strings.Cut(image, "/"); !ok || !strings.ContainsAny(first, ".:") && first != "localhost" {
		image = env.Vars["REGISTRY"] + "/" + image
	}
	q, err := fleet.ParseImageQuery(image)
	if err != nil {
		return fail(err)
	}
	w, err := (&fleet.Scanner{Engine: env.Engine()}).Where(ctx, report.Scope{}, q)
	if err != nil {
		return fail(err)
	}
	if err := out.write(io, o.output, whereOutput{where: w, opts: render.SummaryOptions{Command: o.command}}); err != nil {
		return fail(err)
	}
	if len(w.Apps) == 0 {
		return &exitError{code: exitNoDecide, err: fmt.Errorf("")}
	}
	return stateExit(w.Worst())
}
