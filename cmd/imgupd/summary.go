package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
)

// summaryOptions are the options of `imgupd summary` and `where` (command.ScanOptions: the flags
// their folders share) and their -o.
type summaryOptions struct {
	command.ScanOptions
	output string
	// engine builds the engine the scan runs.
	engine scanEngine
}

// scanEngine builds the engine a summary or a where answer scans with.
type scanEngine func(ctx context.Context, o *summaryOptions) (*diagnostics.Engine, error)

// clusterScanEngine is the cluster's engine (kubeconfig or in-cluster), the
// default scanEngine (tests pass a lab fleet's: withScanEngine).
func clusterScanEngine(ctx context.Context, o *summaryOptions) (*diagnostics.Engine, error) {
	forges, err := parseForges(o.Forges)
	if err != nil {
		return nil, usageError(err)
	}
	eng, err := clusterEngine(o.Kube, 0, "", forges)
	if err != nil {
		return nil, clusterFailure(err)
	}
	eng.Options.ArgoCDServiceAccount = o.ArgoCDServiceAccount
	// A scan reads namespace by namespace, each read saying what it may not: only an unreachable
	// server or refused credentials stop it here.
	apps := authorizationv1.ResourceAttributes{Verb: "list", Group: "argoproj.io", Resource: "applications"}
	if err := checkCluster(ctx, eng, apps, false); err != nil {
		return nil, err
	}
	return eng, nil
}

func newSummaryCmd(io streams, engine scanEngine) *cobra.Command {
	o := &summaryOptions{engine: engine}
	cmd := fromTable("summary", &cobra.Command{
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSummary(cmd.Context(), o, io, cmd.Root().DisplayName())
		},
	})
	formatsOf(answerSummary).flag(cmd, &o.output, "output format: %s")
	scanFlags(cmd, o)
	return cmd
}

// scanFlags are the flags of the commands that scan the fleet (summary, where): the scope,
// the scan's bounds, the cluster (command.ScanFlags).
func scanFlags(cmd *cobra.Command, o *summaryOptions) { command.ScanFlags(cmd.Flags(), &o.ScanOptions) }

func runSummary(ctx context.Context, o *summaryOptions, io streams, command string) error {
	fail := failWith(exitNoDecide)
	out := formatsOf(answerSummary)
	if err := out.check(o.output); err != nil {
		return usageError(err)
	}
	sc, scope, err := o.scanner(ctx)
	if err != nil {
		return fail(err)
	}
	prog := progressOf("summary", io.Err, o.output, "")
	if prog != nil {
		ctx = fleet.WithProgress(ctx, prog.update)
		defer prog.stop()
	}
	res, err := sc.Scan(ctx, fleet.Everyone(scope))
	prog.stop()
	if err != nil {
		return fail(err)
	}
	s := fleet.Summarize(res, nil)
	if err := out.write(io, o.output, summaryOutput{summary: s, opts: render.SummaryOptions{Command: command}}); err != nil {
		return fail(err)
	}
	return stateExit(s.Worst)
}

// scanner checks the scan flags and builds the scanner and scope they ask
// for.
func (o *summaryOptions) scanner(ctx context.Context) (*fleet.Scanner, report.Scope, error) {
	if o.Concurrency <= 0 {
		return nil, report.Scope{}, usageError(fmt.Errorf("--concurrency %d: want at least 1", o.Concurrency))
	}
	if o.Deadline <= 0 {
		return nil, report.Scope{}, usageError(fmt.Errorf("--deadline %s: want a positive duration", o.Deadline))
	}
	scope := report.Scope{Namespaces: o.Namespaces, Projects: o.Projects, Names: o.Names, Selector: o.Selector}
	if err := scope.Validate(); err != nil {
		return nil, report.Scope{}, usageError(err)
	}
	eng, err := o.engine(ctx, o)
	if err != nil {
		return nil, report.Scope{}, err
	}
	return &fleet.Scanner{Engine: eng, UpdaterNamespace: o.UpdaterNamespace, Concurrency: o.Concurrency, Deadline: o.Deadline}, scope, nil
}

// summaryOutput is a summary to print and how the text forms name the
// next step.
type summaryOutput struct {
	summary report.Summary
	opts    render.SummaryOptions
}

func (summaryOutput) AnswerKind() answerKind { return answerSummary }

// failWith wraps an error in code, unless it carries its own exit status already.
func failWith(code int) func(error) error {
	return func(err error) error {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return &exitError{code: code, err: err}
	}
}

// stateExit is the exit status of a state (State.ExitCode); the output is
// already printed, so no message is added.
func stateExit(s report.State) error {
	if code := s.ExitCode(); code != 0 {
		return &exitError{code: code, err: fmt.Errorf("")}
	}
	return nil
}
