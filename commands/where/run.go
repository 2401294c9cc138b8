package where

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/imgupd/imgupd/clusters"
	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
)

// Options are `imgupd where`'s: the image and the flags of the scanning commands.
type Options struct {
	Image string
	command.ScanOptions
}

// Term is how the terminal runs where with run (Run, or a test's).
func Term(run func(context.Context, Options, command.IO) (command.Answer, error)) *command.Term {
	return command.TermOf(command.AnswerWhere, 1, 1, func(fs *pflag.FlagSet, o *Options) { command.ScanFlags(fs, &o.ScanOptions) },
		func(_ *pflag.FlagSet, o *Options, args []string) { o.Image = args[0] }, run)
}

// Run finds, through the cluster io gives, every Application in the flags' scope that uses the
// image and whether the tag reaches it: 64 for an image it cannot read; the answer's exit
// status is 2 when no Application uses it, else the worst state's (Answer.Exit).
func Run(ctx context.Context, o Options, io command.IO) (command.Answer, error) {
	q, err := fleet.ParseImageQuery(o.Image)
	if err != nil {
		return nil, command.Exit(64, err)
	}
	targets, scope, err := command.Scanners(ctx, o.ScanOptions, io)
	if err != nil {
		return nil, err
	}
	prog := io.StartProgress("")
	if len(targets) == 1 {
		ctx = fleet.WithProgress(ctx, prog.Update)
	}
	defer prog.Stop()
	outs := command.ScanEach(ctx, targets, func(ctx context.Context, sc *fleet.Scanner) (*report.Where, error) {
		return sc.Where(ctx, fleet.Everyone(scope), q)
	})
	prog.Stop()
	if len(targets) == 1 && targets[0].Cluster == "" {
		if outs[0].Err != nil {
			return nil, outs[0].Err
		}
		return Answer{Where: outs[0].Result, Options: render.SummaryOptions{Command: io.Name}}, nil
	}
	w, err := clusters.MergeWhere(outs, command.FailureReason)
	if err != nil {
		return nil, err
	}
	return Answer{Where: w, Options: render.SummaryOptions{Command: io.Name}}, nil
}

// Answer is a "where" answer to print (where, demo --where).
type Answer struct {
	Where   *report.Where
	Options render.SummaryOptions
}

func (Answer) AnswerKind() command.AnswerKind { return command.AnswerWhere }

// Exit is 2 when no Application uses the image, else the worst state's exit status; the answer
// is already printed, so no message is added.
func (a Answer) Exit() error {
	if len(a.Where.Apps) == 0 {
		return command.Exit(2, fmt.Errorf(""))
	}
	return command.StateExit(a.Where.Worst())
}
