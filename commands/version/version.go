// Package version is `imgupd version`: imgupd's build and the Image Updater versions it models.
package version

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/spf13/pflag"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/model/updater"
)

// Spec is version's entry in the command table.
func Spec() command.Spec {
	return command.Spec{
		Name:     "version",
		Surfaces: command.Terminal,
		Reads:    command.ReadsNothing,
		Short:    "Print imgupd's version and the Image Updater versions it models",
		Term:     Term(command.Typed(Run)),
	}
}

// Options are version's: none but -o (its build's version is the binary's, command.IO.Version).
type Options struct{}

// Term is how the terminal runs version with run (command.Typed(Run), or a test's).
func Term(run func(context.Context, Options, command.IO) (command.Answer, error)) *command.Term {
	return command.TermOf(command.AnswerPlain, 0, 0, func(*pflag.FlagSet, *Options) {}, nil, run)
}

// Answer is what `imgupd version` says: its own build and the Image Updater versions it models.
type Answer struct {
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
	// Models are the Image Updater versions whose decisions imgupd reproduces; Default is the one
	// assumed when the running one cannot be read.
	Models  []string `json:"imageUpdaterVersions"`
	Default string   `json:"imageUpdaterDefault"`
}

func (Answer) AnswerKind() command.AnswerKind { return command.AnswerPlain }

// Run is the answer: it reads nothing; the build's version is the binary's (io.Version, which
// cmd/imgupd is stamped with at link time: -X main.version).
func Run(_ context.Context, _ Options, io command.IO) (Answer, error) {
	v := Answer{Version: io.Version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Default: updater.Latest.Short()}
	for _, k := range updater.KnownVersions() {
		v.Models = append(v.Models, k.Short())
	}
	return v, nil
}

// WriteText writes the answer for a terminal.
func (v Answer) WriteText(w io.Writer) {
	fmt.Fprintf(w, "imgupd %s (%s, %s)\n", v.Version, v.GoVersion, v.Platform)
	fmt.Fprintf(w, "models Argo CD Image Updater %s (default %s)\n", strings.Join(v.Models, ", "), v.Default)
}
