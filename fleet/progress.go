package fleet

import "context"

type progressKey struct{}

// WithProgress is ctx carrying fn, which a scan or a where answer run with it calls after each
// app (done of total): the terminal's progress line, or one asker's on a Scanner many share
// (the bot's).
func WithProgress(ctx context.Context, fn func(done, total int)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// progressOf is the function WithProgress put in ctx, or nil.
func progressOf(ctx context.Context) func(done, total int) {
	fn, _ := ctx.Value(progressKey{}).(func(done, total int))
	return fn
}
