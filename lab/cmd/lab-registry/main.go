// Command lab-registry serves a real OCI registry (go-containerregistry) on
// loopback, filled with sample repositories, for trying `imgupd simulate`
// without touching a real registry. It prints "REGISTRY=<host:port>" once
// ready and serves until interrupted.
//
// -semver-tags N also serves big/app with N semver tags (0.0.0, 0.0.1, ...,
// the tags of the simulate benchmarks) and -page-size N cuts tag lists into
// Link pages of N, like Docker Hub: bench/simulate-process.sh uses both.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	labregistry "github.com/imgupd/imgupd/lab/registry"
)

func main() {
	semverTags := flag.Int("semver-tags", 0, "also serve big/app with this many semver tags")
	pageSize := flag.Int("page-size", 0, "tag list page size (0: the whole list in one answer)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var opts []labregistry.Option
	if *pageSize > 0 {
		opts = append(opts, labregistry.WithPageSize(*pageSize))
	}
	srv, err := labregistry.Start(opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lab-registry:", err)
		os.Exit(1)
	}
	defer srv.Close()
	repos := samples()
	if *semverTags > 0 {
		repos["big/app"] = semverImages(*semverTags)
	}
	for repo, images := range repos {
		if err := srv.Push(ctx, repo, images...); err != nil {
			fmt.Fprintf(os.Stderr, "lab-registry: pushing %s: %v\n", repo, err)
			os.Exit(1)
		}
	}
	fmt.Printf("REGISTRY=%s\n", srv.Host)
	<-ctx.Done()
}

// samples are the repositories served.
func samples() map[string][]labregistry.Image {
	return map[string][]labregistry.Image{
		"acme/pub": labregistry.CalibrationImages(),
		"acme/web": labregistry.MultiArchImages(),
	}
}

// semverImages are n tags i/1000 . (i/10)%100 . i%10, as in
// simulate's benchmarks.
func semverImages(n int) []labregistry.Image {
	out := make([]labregistry.Image, n)
	for i := range out {
		out[i] = labregistry.Image{Tag: fmt.Sprintf("%d.%d.%d", i/1000, (i/10)%100, i%10)}
	}
	return out
}
