package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
)

func newWhereCmd(io streams, engine scanEngine) *cobra.Command {
	o := &summaryOptions{engine: engine}
	cmd := fromTable("where", &cobra.Command{
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWhere(cmd.Context(), o, args[0], io, cmd.Root().DisplayName())
		},
	})
	formatsOf(answerWhere).flag(cmd, &o.output, "output format: %s")
	scanFlags(cmd, o)
	return cmd
}

func runWhere(ctx context.Context, o *summaryOptions, image string, io streams, command string) error {
	fail := failWith(exitNoDecide)
	out := formatsOf(answerWhere)
	if err := out.check(o.output); err != nil {
		return usageError(err)
	}
	q, err := fleet.ParseImageQuery(image)
	if err != nil {
		return usageError(err)
	}
	sc, scope, err := o.scanner(ctx)
	if err != nil {
		return fail(err)
	}
	prog := progressOf("where", io.Err, o.output, "")
	if prog != nil {
		ctx = fleet.WithProgress(ctx, prog.update)
		defer prog.stop()
	}
	w, err := sc.Where(ctx, fleet.Everyone(scope), q)
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

func (whereOutput) AnswerKind() answerKind { return answerWhere }

// demoWhere answers o.where on the lab fleet where-web; an image without a
// registry host is the lab registry's.
func demoWhere(ctx context.Context, o *demoOptions, io streams) error {
	fail := failWith(exitNoDecide)
	out := formatsOf(answerWhere)
	if err := out.check(o.output); err != nil {
		return usageError(err)
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
	w, err := (&fleet.Scanner{Engine: env.Engine()}).Where(ctx, fleet.Query{}, q)
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
