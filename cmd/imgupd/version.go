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

func newVersionCmd(io streams) *cobra.Command {
	return fromTable("version", &cobra.Command{
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var known []string
			for _, v := range updater.KnownVersions() {
				known = append(known, v.Short())
			}
			fmt.Fprintf(io.Out, "imgupd %s (%s, %s/%s)\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			fmt.Fprintf(io.Out, "models Argo CD Image Updater %s (default %s)\n", strings.Join(known, ", "), updater.Latest.Short())
			return nil
		},
	})
}
