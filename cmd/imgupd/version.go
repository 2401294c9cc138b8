package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/imgupd/imgupd/model/updater"
)

// version is set at build time with -ldflags "-X main.version=v0.1.0".
var version = ""

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// versionOutput is what `imgupd version` says: its own build and the Image Updater versions
// it models.
type versionOutput struct {
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
	// Models are the Image Updater versions whose decisions imgupd reproduces; Default is the one
	// assumed when the running one cannot be read.
	Models  []string `json:"imageUpdaterVersions"`
	Default string   `json:"imageUpdaterDefault"`
}

func (versionOutput) answerKind() answerKind { return answerVersion }

func newVersionOutput() versionOutput {
	v := versionOutput{Version: buildVersion(), GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Default: updater.Latest.Short()}
	for _, k := range updater.KnownVersions() {
		v.Models = append(v.Models, k.Short())
	}
	return v
}

func writeVersionText(io streams, v versionOutput) error {
	fmt.Fprintf(io.Out, "imgupd %s (%s, %s)\n", v.Version, v.GoVersion, v.Platform)
	fmt.Fprintf(io.Out, "models Argo CD Image Updater %s (default %s)\n", strings.Join(v.Models, ", "), v.Default)
	return nil
}

func newVersionCmd(io streams) *cobra.Command {
	var output string
	out := formatsOf(answerVersion)
	cmd := fromTable("version", &cobra.Command{
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.check(output); err != nil {
				return usageError(err)
			}
			return out.write(io, output, newVersionOutput())
		},
	})
	out.flag(cmd, &output, "output format: %s")
	return cmd
}
