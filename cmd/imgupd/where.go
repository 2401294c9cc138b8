package main

import (
	"context"
	"fmt"
	"strings"

	wherecmd "github.com/imgupd/imgupd/commands/where"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/present/render"
)

// whereOutput is a "where" answer to print: where's answer (commands/where), and demo --where's.
type whereOutput = wherecmd.Answer

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
	if err := out.write(io, o.output, whereOutput{Where: w, Options: render.SummaryOptions{Command: o.command}}); err != nil {
		return fail(err)
	}
	if len(w.Apps) == 0 {
		return &exitError{code: exitNoDecide, err: fmt.Errorf("")}
	}
	return stateExit(w.Worst())
}
