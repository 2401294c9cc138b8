package diagnostics

import (
	"context"
	"testing"
	"time"
)

// lateCtx is a context whose deadline has passed while its cancellation
// has not reached it yet (the window between an ancestor's Done and its
// children's).
type lateCtx struct{ context.Context }

func (lateCtx) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

func TestOutOfTime(t *testing.T) {
	if outOfTime(context.Background()) {
		t.Error("no deadline: not out of time")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if outOfTime(ctx) {
		t.Error("an hour left: not out of time")
	}
	if !outOfTime(lateCtx{context.Background()}) {
		t.Error("deadline passed, cancellation not yet arrived: out of time")
	}
	done, stop := context.WithCancel(context.Background())
	stop()
	if !outOfTime(done) {
		t.Error("canceled: out of time")
	}
}
