package main

import (
	"fmt"
	goio "io"

	"github.com/spf13/cobra"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/internal/jsonindent"
)

// An answer is what a command prints: one typed value (a report, a fleet
// summary, a "where" answer, the catalogue, a simulation, a checked
// configuration, the demo's scenario list), whatever the format; its kind
// names it (command.Answer, command.AnswerKind).
type (
	answer     = command.Answer
	answerKind = command.AnswerKind
)

// The kinds of answer, by the names the exporters use (each command declares its own).
const (
	answerReport     = command.AnswerReport     // reportOutput: diagnose, demo --scenario
	answerSummary    = command.AnswerSummary    // summaryOutput: summary, demo --summary
	answerWhere      = command.AnswerWhere      // whereOutput: where, demo --where
	answerCatalogue  = command.AnswerCatalogue  // explain.Answer: explain
	answerSimulation = command.AnswerSimulation // simulateOutput: simulate
	answerConfig     = command.AnswerConfig     // configcheck.Answer: config check
	answerScenarios  = command.AnswerScenarios  // scenarioList: demo
	answerPlain      = command.AnswerPlain      // a command.TextWriter: version, …
)

// exporter is one output format, for every answer it can write: its name
// (the -o value), how the terminal is kept safe from what it writes
// (shownWriter's mode) and, per answer kind, a note for the help and how
// that answer prints.
type exporter struct {
	name    string
	mode    shownMode
	answers map[answerKind]export
}

// export is how one format writes one kind of answer.
type export struct {
	note  string // what the format is, for -o's help ("the Slack payload"), or ""
	write func(io streams, a answer) error
}

// exportAs is an export of answers of type T.
func exportAs[T answer](note string, write func(io streams, v T) error) export {
	return export{note: note, write: func(io streams, a answer) error {
		v, ok := a.(T)
		if !ok {
			return fmt.Errorf("internal error: %T is not the answer this format was declared for", a)
		}
		return write(io, v)
	}}
}

// exporters is the registry of output formats, in the order help lists
// them; the first is the default. Adding a format is one exporter, in its
// own file (export_<name>.go), and one line here.
func exporters() []exporter {
	return []exporter{textExporter(), jsonExporter(), markdownExporter(), blockkitExporter()}
}

// format is one value of a command's -o flag.
type format struct {
	name  string
	note  string
	mode  shownMode
	write func(io streams, a answer) error
}

// formats are the formats of one kind of answer, as GitHub CLI's exporter:
// the -o flag's help, its shell completion, its validation and the writing
// all come from the registry. The first format is the default.
type formats []format

// formatsOf are the formats the registry has for answers of kind k.
func formatsOf(k answerKind) formats {
	var fs formats
	for _, e := range exporters() {
		if x, ok := e.answers[k]; ok {
			fs = append(fs, format{name: e.name, note: x.note, mode: e.mode, write: x.write})
		}
	}
	return fs
}

// names are the formats' names, in the registry's order.
func (fs formats) names() []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.name
	}
	return out
}

// list reads "text, json, markdown or blockkit".
func (fs formats) list(withNotes bool) string {
	items := make([]string, len(fs))
	for i, f := range fs {
		items[i] = f.name
		if withNotes && f.note != "" {
			items[i] += " (" + f.note + ")"
		}
	}
	return orList(items)
}

// orList is "A", "A or B", "A, B or C".
func orList(items []string) string { return command.OrList(items) }

// flag defines -o/--output on cmd into p: the default is the first format,
// the help is usage with its %s replaced by every format and its note
// ("text, json or blockkit (the Slack payload)"), and shell completion
// offers the names.
func (fs formats) flag(cmd *cobra.Command, p *string, usage string) {
	cmd.Flags().StringVarP(p, "output", "o", fs[0].name, fmt.Sprintf(usage, fs.list(true)))
	// The flag is defined just above, so registering cannot fail.
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return fs.names(), cobra.ShellCompDirectiveNoFileComp
	})
}

// lookup is the format named name.
func (fs formats) lookup(name string) (format, error) {
	for _, f := range fs {
		if f.name == name {
			return f, nil
		}
	}
	return format{}, &formatError{name: name, want: fs.list(false)}
}

// check refuses a name that is not a format; commands call it before any
// work, so a misspelt -o reads nothing (no cluster, no registry).
func (fs formats) check(name string) error {
	_, err := fs.lookup(name)
	return err
}

// write prints a in the format named name, through a shownWriter: JSON
// formats (json, blockkit) with JSON's escapes, the others with the
// terminal's (see shownWriter), so that no control sequence reaches the
// terminal whatever a renderer missed.
func (fs formats) write(io streams, name string, a answer) error {
	f, err := fs.lookup(name)
	if err != nil {
		return err
	}
	out := newShownWriter(io.Out, f.mode)
	// In text on a terminal that may be painted, the renderers' own colour
	// sequences (render.StyleAt) pass; every other ESC is still shown.
	out.colors = f.mode == shownText && io.colored()
	io.Out = out
	err = f.write(io, a)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// formatError is an -o value that is not one of the command's formats.
type formatError struct {
	name string // what was asked
	want string // the formats, "text, json or markdown"
}

func (e *formatError) Error() string {
	return fmt.Sprintf("--output %q: want %s", e.name, e.want)
}

// writeJSON is the JSON every -o json prints: indented by two spaces, one
// trailing newline.
func writeJSON(w goio.Writer, v any) error {
	return jsonindent.Encode(w, v, "  ")
}
