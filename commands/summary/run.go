package summary

import (
	"context"

	"github.com/imgupd/imgupd/clusters"
	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
)

// Term is how the terminal runs summary with run (Run, or a test's).
func Term(run func(context.Context, command.ScanOptions, command.IO) (command.Answer, error)) *command.Term {
	return command.TermOf(command.AnswerSummary, 0, 0, command.ScanFlags, nil, run)
}

// Run scans the fleet in the flags' scope through the cluster io gives and summarizes it; the
// answer's exit status is the worst state's (Answer.Exit).
func Run(ctx context.Context, o command.ScanOptions, io command.IO) (command.Answer, error) {
	targets, scope, err := command.Scanners(ctx, o, io)
	if err != nil {
		return nil, err
	}
	prog := io.StartProgress("")
	if len(targets) == 1 {
		ctx = fleet.WithProgress(ctx, prog.Update)
	}
	defer prog.Stop()
	outs := command.ScanEach(ctx, targets, func(ctx context.Context, sc *fleet.Scanner) (*fleet.Result, error) {
		return sc.Scan(ctx, fleet.Everyone(scope))
	})
	prog.Stop()
	if len(targets) == 1 && targets[0].Cluster == "" {
		if outs[0].Err != nil {
			return nil, outs[0].Err
		}
		return Answer{Summary: fleet.Summarize(outs[0].Result, nil), Options: render.SummaryOptions{Command: io.Name}}, nil
	}
	merged, err := clusters.MergeScans(scope, outs, command.FailureReason)
	if err != nil {
		return nil, err
	}
	return Answer{Summary: merged.Summary(nil), Options: render.SummaryOptions{Command: io.Name}}, nil
}

// Answer is a fleet summary to print (summary, demo --summary) and how the text forms name the
// next step.
type Answer struct {
	Summary report.Summary
	Options render.SummaryOptions
}

func (Answer) AnswerKind() command.AnswerKind { return command.AnswerSummary }

// Exit is the worst state's exit status (State.ExitCode); the summary is already printed, so
// no message is added.
func (a Answer) Exit() error { return command.StateExit(a.Summary.Worst) }
