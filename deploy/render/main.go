// Command render writes the plain manifests and the Kustomize base from the Helm chart, so that
// the chart stays the one definition of imgupd's RBAC, Deployment and configuration:
//
//	go run ./deploy/render            # make manifests: (re)write the files
//	go run ./deploy/render --check    # fail, naming the files, if they differ from the chart
//
// It runs `helm template` (--helm, else $HELM, else helm on PATH) with the chart's default
// values and writes deploy/rbac.yaml, deploy/imgupd.yaml and deploy/kustomize/base/{rbac.yaml,
// imgupd.yaml,config.yaml}; with rbacOnly=true, deploy/kustomize/rbac-only/rbac.yaml; and it copies
// the chart's Grafana dashboard to deploy/grafana/imgupd-dashboard.json. test/e2e runs --check, so an edit of the chart without the files (or
// of the files without the chart) fails CI.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run parses the flags, renders, and writes or checks. Exit status: 0 written or current, 1 out
// of date (--check), 2 any other error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var (
		root  string
		helm  string
		check bool
	)
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&root, "root", ".", "the repository root (deploy/ is under it)")
	fs.StringVar(&helm, "helm", envOr("HELM", "helm"), "the helm binary")
	fs.BoolVar(&check, "check", false, "compare the files with the chart instead of writing them")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "render: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	files, err := Render(ctx, Helm{Bin: helm, Chart: chartDir(root)})
	if err != nil {
		fmt.Fprintf(stderr, "render: %v\n", err)
		return 2
	}
	if check {
		stale, err := Stale(root, files)
		if err != nil {
			fmt.Fprintf(stderr, "render: %v\n", err)
			return 2
		}
		if len(stale) > 0 {
			for _, s := range stale {
				fmt.Fprintf(stderr, "render: %s differs from the chart (%s)\n", s.Path, s.Why)
			}
			fmt.Fprintln(stderr, "render: run `make manifests` and commit the result")
			return 1
		}
		fmt.Fprintf(stdout, "render: %d files match the chart\n", len(files))
		return 0
	}
	if err := Write(root, files); err != nil {
		fmt.Fprintf(stderr, "render: %v\n", err)
		return 2
	}
	for _, f := range files {
		fmt.Fprintln(stdout, f.Path)
	}
	return 0
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
