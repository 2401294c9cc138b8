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

// samples are the repositories served.
func samples() map[string][]labregistry.Image {
	return map[string][]labregistry.Image{
		"acme/pub": labregistry.CalibrationImages(),
		"acme/web": labregistry.MultiArchImages(),
	}
}
