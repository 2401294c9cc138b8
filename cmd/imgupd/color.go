package main

import (
	"fmt"
	goio "io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// terminal is what the text output may do where it goes: wrap to a width
// and paint. It is decided once per run, after the flags are read
// (decideTerminal), from --color, NO_COLOR, COLUMNS and whether standard
// output is a terminal; the zero value (tests, files, pipes) wraps nothing
// and paints nothing.
type terminal struct {
	// width wraps text at this many columns (0: no wrapping).
	width int
	// color paints marks, states and headings (ANSI SGR).
	color bool
}

// Values of --color.
const (
	colorAuto   = "auto"
	colorAlways = "always"
	colorNever  = "never"
)

// addColorFlag defines the persistent --color flag on root.
func addColorFlag(root *cobra.Command) {
	root.PersistentFlags().String("color", colorAuto, "colour in text output: auto (on a terminal, unless NO_COLOR is set), always or never")
	// The flag is defined just above, so registering cannot fail.
	_ = root.RegisterFlagCompletionFunc("color", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{colorAuto, colorAlways, colorNever}, cobra.ShellCompDirectiveNoFileComp
	})
}

// withTerminal gives io a terminal to be decided and the function that
// decides it for the command about to run (its --color, the environment,
// io.Out).
func withTerminal(io streams, lookupEnv func(string) (string, bool)) (streams, func(cmd *cobra.Command) error) {
	t := &terminal{}
	io.term = t
	return io, func(cmd *cobra.Command) error {
		mode, err := cmd.Flags().GetString("color")
		if err != nil {
			return usageError(fmt.Errorf("--color: %w", err))
		}
		got, err := decideTerminal(mode, isTerminal(io.Out), lookupEnv)
		if err != nil {
			return usageError(err)
		}
		*t = got
		return nil
	}
}

// terminalOut describes standard output when it is a terminal.
type terminalOut struct {
	tty   bool
	width int // its columns, 0 when not known
}

// isTerminal describes w: a terminal (and its width) or not.
func isTerminal(w goio.Writer) terminalOut {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return terminalOut{}
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return terminalOut{tty: true}
	}
	return terminalOut{tty: true, width: width}
}

// decideTerminal is what the text output does: the width is the
// terminal's, else COLUMNS, else none; colour is --color's, with auto
// meaning a terminal, NO_COLOR empty or unset (no-color.org: any value
// turns it off) and TERM not dumb.
func decideTerminal(mode string, out terminalOut, lookupEnv func(string) (string, bool)) (terminal, error) {
	var t terminal
	switch {
	case out.tty && out.width > 0:
		t.width = out.width
	default:
		if c, ok := lookupEnv("COLUMNS"); ok && strings.TrimSpace(c) != "" {
			n, err := strconv.Atoi(strings.TrimSpace(c))
			if err != nil || n < 0 {
				return terminal{}, fmt.Errorf("COLUMNS=%q: want a number of columns", c)
			}
			t.width = n
		}
	}
	switch mode {
	case colorAlways:
		t.color = true
	case colorNever:
	case colorAuto:
		noColor, _ := lookupEnv("NO_COLOR")
		termName, _ := lookupEnv("TERM")
		t.color = out.tty && noColor == "" && termName != "dumb"
	default:
		return terminal{}, fmt.Errorf("--color %q: want %s, %s or %s", mode, colorAuto, colorAlways, colorNever)
	}
	return t, nil
}

// textWidth is the width text wraps at (0: none).
func (s streams) textWidth() int {
	if s.term == nil {
		return 0
	}
	return s.term.width
}

// colored says whether text may be painted.
func (s streams) colored() bool { return s.term != nil && s.term.color }
