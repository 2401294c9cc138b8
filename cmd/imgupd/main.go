// Command imgupd explains why Argo CD Image Updater did not update an
// application, in a terminal and in Slack.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	applyMemoryLimit(os.LookupEnv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runAs(ctx, commandName(os.Args[0]), os.Args[1:], streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}, os.LookupEnv)
	stop()
	os.Exit(code)
}
