// Package version is `imgupd version`: imgupd's build and the Image Updater versions it models.
package version

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"

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
	}
}

// Options are version's: the build's version, which the binary is stamped with (main.version).
type Options struct {
	Build string
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

// Run is the answer: it reads nothing.
func Run(_ context.Context, o Options, _ command.IO) (Answer, error) {
	v := Answer{Version: o.Build, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Default: updater.Latest.Short()}
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
