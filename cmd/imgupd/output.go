package main

import (
	"encoding/json"
	"fmt"
	goio "io"
	"strings"

	"github.com/spf13/cobra"
)

// format is one value of a command's -o flag: its name, a note for the
// help (what it is, when it applies) and how a value of T prints in it.
type format[T any] struct {
	name  string
	note  string
	write func(io streams, v T) error
}

// formats is a command's output table, as GitHub CLI's exporter: a command
// declares its formats once, and the -o flag's help, its shell completion,
// its validation and the writing all come from that declaration. The first
// format is the default.
type formats[T any] []format[T]

// names are the formats' names, in declared order.
func (fs formats[T]) names() []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.name
	}
	return out
}

// list reads "text, json, markdown or blockkit".
func (fs formats[T]) list(withNotes bool) string {
	items := make([]string, len(fs))
	for i, f := range fs {
		items[i] = f.name
		if withNotes && f.note != "" {
			items[i] += " (" + f.note + ")"
		}
	}
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// flag defines -o/--output on cmd into p: the default is the first format,
// the help is usage with its %s replaced by every format and its note
// ("text, json or blockkit (the Slack payload)"), and shell completion
// offers the names.
func (fs formats[T]) flag(cmd *cobra.Command, p *string, usage string) {
	cmd.Flags().StringVarP(p, "output", "o", fs[0].name, fmt.Sprintf(usage, fs.list(true)))
	// The flag is defined just above, so registering cannot fail.
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return fs.names(), cobra.ShellCompDirectiveNoFileComp
	})
}

// lookup is the format named name.
func (fs formats[T]) lookup(name string) (format[T], error) {
	for _, f := range fs {
		if f.name == name {
			return f, nil
		}
	}
	return format[T]{}, &formatError{name: name, want: fs.list(false)}
}

// check refuses a name that is not a format; commands call it before any
// work, so a misspelt -o reads nothing (no cluster, no registry).
func (fs formats[T]) check(name string) error {
	_, err := fs.lookup(name)
	return err
}

// write prints v in the format named name, through a shownWriter: JSON
// formats (json, blockkit) with JSON's escapes, the others with the
// terminal's (see shownWriter), so that no control sequence reaches the
// terminal whatever a renderer missed.
func (fs formats[T]) write(io streams, name string, v T) error {
	f, err := fs.lookup(name)
	if err != nil {
		return err
	}
	out := newShownWriter(io.Out, shownModeOf(f.name))
	io.Out = out
	err = f.write(io, v)
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
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
