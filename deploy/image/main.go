// Command image builds imgupd's container image without Docker: a static binary, a CA bundle, and a
// non-root user on an empty base, as an OCI image index with one image per platform, written to an OCI
// image layout or pushed to a registry. Two builds of the same tree give the same index digest.
// --rootfs writes one platform's files instead: the top-level Dockerfile builds its image from them,
// so `docker build .` and this command make images with the same files.
//
//	go run ./deploy/image --oci-layout dist/oci
//	go run ./deploy/image --push registry.example.com/you/imgupd:v0.1.0
//	go run ./deploy/image --rootfs /rootfs          # in the Dockerfile
//
// See docs/slack.md ("In the cluster") and the `image` target of the Makefile.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run parses the flags into Options and calls Run. It returns the exit status: 0, or 2 on any error,
// which is printed on stderr as one line.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var (
		opts      Options
		platforms string
		created   string
	)
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&platforms, "platforms", strings.Join(DefaultPlatforms, ","), "comma-separated `os/arch[/variant]` list to build (--rootfs: one; default $TARGETPLATFORM, else the host's)")
	fs.StringVar(&opts.Version, "version", "", "version stamped into the binary and the labels (default: $IMGUPD_VERSION, else git describe --tags --always --dirty, else dev)")
	fs.StringVar(&opts.Revision, "revision", "", "org.opencontainers.image.revision label (default: git rev-parse HEAD, omitted if unknown)")
	fs.StringVar(&created, "created", "", "image creation time and every file's mtime, Unix seconds or RFC 3339 (default: $SOURCE_DATE_EPOCH, else HEAD's commit time, else 0)")
	fs.StringVar(&opts.CABundle, "ca-bundle", DefaultCABundle, "PEM CA bundle copied to /etc/ssl/certs/ca-certificates.crt")
	fs.StringVar(&opts.OCILayout, "oci-layout", "", "write the image index as an OCI image layout in `DIR`")
	fs.StringVar(&opts.Push, "push", "", "push the image index to `REF` (credentials from the Docker config / credential helpers)")
	fs.BoolVar(&opts.Insecure, "insecure", false, "allow a plain-HTTP registry for --push")
	fs.StringVar(&opts.RootFS, "rootfs", "", "write one platform's image files (owners and modes included) to the new `DIR` instead; needs root")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "usage: go run ./deploy/image (--oci-layout DIR | --push REF | --rootfs DIR) [flags]")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintf(stderr, "image: %v\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "image: unexpected argument %q (flags only; see --help)\n", fs.Arg(0))
		return 2
	}
	opts.Platforms = splitList(platforms)
	if opts.RootFS != "" && !flagGiven(fs, "platforms") {
		opts.Platforms = nil // one platform: $TARGETPLATFORM or the host's (Options.Platforms)
	}
	if created != "" {
		t, err := parseTime(created)
		if err != nil {
			fmt.Fprintf(stderr, "image: --created: %v\n", err)
			return 2
		}
		opts.Created = t
	}
	opts.Log = stderr

	res, err := Run(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "image: %s\n", oneLine(err.Error()))
		return 2
	}
	fmt.Fprintln(stdout, res.String())
	return 0
}

func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// oneLine folds a multi-line message (a compiler's output) into one line.
func oneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var kept []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, " | ")
}
