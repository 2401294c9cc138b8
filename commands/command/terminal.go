package command

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// IO is a terminal command's I/O: what Run may read (In: --updater-log -) and where it may say
// how far it is (Err: the progress line). What it answers is its return value, which one
// registry of exporters (cmd/imgupd) prints in the format asked for.
type IO struct {
	In  io.Reader
	Err io.Writer
	// Progress starts the command's progress line on what (StartProgress); nil: none.
	Progress func(what string) Progress
	// Cluster is how it reaches the cluster (diagnose, summary, where); nil for the others.
	Cluster Cluster
	// Clusters are the configuration's clusters (--cluster NAME; summary and where over every
	// one); nil or none without a clusters: section.
	Clusters ClusterSet
	// Name is the binary as its user types it ("imgupd", "kubectl imgupd" as a kubectl plugin),
	// for the next steps an answer names.
	Name string
	// Version is the binary's build version (version).
	Version string
	// Lab is the embedded lab (demo); nil for the others.
	Lab Lab
	// Config is the configuration file as the binary reads it (config check); nil for the others.
	Config ConfigFile
	// Output is the format asked for (-o), already one of the command's; Formats, when set, are
	// the formats that print an answer of kind k, so that Run refuses before any work an answer
	// the format cannot print (IO.Prints).
	Output  string
	Formats func(k AnswerKind) []string
}

// Prints says whether the format asked for (Output) prints an answer of kind k: true when the
// binary says nothing of its formats.
func (io IO) Prints(k AnswerKind) bool {
	if io.Formats == nil {
		return true
	}
	return slices.Contains(io.Formats(k), io.Output)
}

// An Answer is what a terminal command prints: one typed value (a report, a fleet summary, a
// "where" answer, the catalogue, a simulation, a checked configuration, the demo's scenario
// list, the version), whatever the format.
type Answer interface{ AnswerKind() AnswerKind }

// AnswerKind names a kind of answer; each command declares the kinds it produces, and the
// exporters say which kinds they write.
type AnswerKind string

const (
	AnswerReport     AnswerKind = "report"     // diagnose, demo --scenario
	AnswerSummary    AnswerKind = "summary"    // summary, demo --summary
	AnswerWhere      AnswerKind = "where"      // where, demo --where
	AnswerCatalogue  AnswerKind = "catalogue"  // explain
	AnswerSimulation AnswerKind = "simulation" // simulate
	AnswerConfig     AnswerKind = "config"     // config check
	AnswerScenarios  AnswerKind = "scenarios"  // demo
	// AnswerPlain is an answer that writes its own text (TextWriter) and is, in JSON, itself:
	// version, and any small answer that needs no renderer of its own.
	AnswerPlain AnswerKind = "plain"
)

// TextWriter is an answer of kind AnswerPlain: how it reads in a terminal.
type TextWriter interface {
	Answer
	WriteText(w io.Writer)
}

// OrList is "A", "A or B", "A, B or C".
func OrList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// ExitError is a terminal command's failure with the exit status it means (docs/cli.md: 64 a
// flag or argument it does not take, 2 it could not decide, 1 a finding...).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Exit is err with the exit status code.
func Exit(code int, err error) error { return &ExitError{Code: code, Err: err} }

// Exiter is an answer whose exit status follows it once it is printed (nil: 0).
type Exiter interface{ Exit() error }

// Term is how the terminal runs a command: cmd/imgupd makes the cobra command from it (its
// usage and help from the Spec, -o from the exporters of its answer's kind), so a command with a
// Term needs no constructor of its own.
type Term struct {
	// MinArgs and MaxArgs bound its arguments (MaxArgs -1: no bound).
	MinArgs, MaxArgs int
	// Answer is the kind of answer it prints; its -o formats are the exporters' for that kind.
	Answer AnswerKind
	// NoArgsWith is the bool flag which, set, makes it take no arguments ("all": explain --all);
	// "" for none.
	NoArgsWith string
	// OutputHelp is -o's help, with %s for the formats ("output format: %s").
	OutputHelp string
	// Bind defines its flags (all but -o) on fs and returns its run, which reads the values they
	// get once parsed, and its arguments.
	Bind func(fs *pflag.FlagSet) func(ctx context.Context, args []string, io IO) (Answer, error)
}

// TermOf is the Term of a command with options O: flags defines its flags into the options,
// args puts its arguments (and what only the parsed flags say) into them, run is its Run (a test
// passes its own, to see the options the flags make).
func TermOf[O any](answer AnswerKind, minArgs, maxArgs int, flags func(*pflag.FlagSet, *O), args func(*pflag.FlagSet, *O, []string), run func(context.Context, O, IO) (Answer, error)) *Term {
	return &Term{MinArgs: minArgs, MaxArgs: maxArgs, Answer: answer, OutputHelp: "output format: %s",
		Bind: func(fs *pflag.FlagSet) func(context.Context, []string, IO) (Answer, error) {
			var o O
			flags(fs, &o)
			return func(ctx context.Context, a []string, io IO) (Answer, error) {
				if args != nil {
					args(fs, &o, a)
				}
				return run(ctx, o, io)
			}
		}}
}

// Typed makes a Run that returns its own answer type the run a Term takes: an error is no
// answer (not a typed nil in the interface).
func Typed[O any, A Answer](run func(context.Context, O, IO) (A, error)) func(context.Context, O, IO) (Answer, error) {
	return func(ctx context.Context, o O, io IO) (Answer, error) {
		a, err := run(ctx, o, io)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
}
