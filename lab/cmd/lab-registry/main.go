// Command lab-registry serves a real OCI registry (go-containerregistry) on
// loopback, filled with sample repositories, for trying `imgupd simulate`
// without touching a real registry. It prints "REGISTRY=<host:port>" once
// ready and serves until interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/imgupd/imgupd/diagnostics/updater"
	labregistry "github.com/imgupd/imgupd/lab/registry"
)

func main() {
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := labregistry.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lab-registry:", err)
		os.Exit(1)
	}
	defer srv.Close()
	for repo, images := range samples() {
		if err := srv.Push(ctx, repo, images...); err != nil {
			fmt.Fprintf(os.Stderr, "lab-registry: pushing %s: %v\n", repo, err)
			os.Exit(1)
		}
	}
	fmt.Printf("REGISTRY=%s\n", srv.Host)
	<-ctx.Done()
}

func day(d string) time.Time {
	t, err := time.Parse("2006-01-02", d)
	if err != nil {
		panic(err)
	}
	return t
}

// samples are the repositories served: acme/pub is the repository of
// shared/reference/tag-selection-cases.md (picks made by the real v1.3.0),
// acme/web a multi-platform image whose newest build is arm64-only.
func samples() map[string][]labregistry.Image {
	amd := updater.Platform{OS: "linux", Arch: "amd64"}
	arm := updater.Platform{OS: "linux", Arch: "arm64"}
	return map[string][]labregistry.Image{
		"acme/pub": {
			{Tag: "0.1.0", Created: day("2026-01-01")},
			{Tag: "0.2.0", Created: day("2026-01-02")},
			{Tag: "0.10.0", Created: day("2026-01-03")},
			{Tag: "1.0.0-alpha", Created: day("2026-01-04")},
			{Tag: "1.0.0-beta.2", Created: day("2026-01-05")},
			{Tag: "1.0.0", Created: day("2026-01-06")},
			{Tag: "1.0.1", Created: day("2026-01-07")},
			{Tag: "1.1", Created: day("2026-01-08")},
			{Tag: "v1.1.5", Created: day("2026-01-09")},
			{Tag: "2020.01.01", Created: day("2025-06-01")},
			{Tag: "1.0.1-hotfix", Created: day("2026-01-10")},
			{Tag: "nightly", Created: day("2026-01-11")},
			{Tag: "dev-123", Created: day("2026-01-12"), Platforms: []updater.Platform{arm}},
			{Tag: "stable", SameAs: "1.0.1"},
		},
		"acme/web": {
			{Tag: "1.4.0", Created: day("2026-03-01"), Platforms: []updater.Platform{amd, arm}},
			{Tag: "1.5.0", Created: day("2026-04-01"), Platforms: []updater.Platform{amd, arm}},
			{Tag: "1.6.0", Created: day("2026-05-01"), Platforms: []updater.Platform{arm}},
			{Tag: "latest", SameAs: "1.6.0"},
		},
	}
}
