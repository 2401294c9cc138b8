package registry

import (
	"context"
	"errors"

	"github.com/imgupd/imgupd/internal/netclass"
	"github.com/imgupd/imgupd/model/advice"
)

// Facts is what the failure says, for the advice the engine gives
// (package advice): this package classifies, it does not advise.
func (e *Error) Facts() advice.Registry {
	f := advice.Registry{Kind: string(e.Kind), Op: e.Op, Host: e.Registry, Repository: e.Repository, Where: e.where(),
		Status: e.Status, RetryAfter: e.RetryAfter, CallerDeadline: e.Err != nil && isCallerDeadline(e.Err),
		TLS: netclass.TLSFactsOf(e.Err)}
	if e.List != nil {
		f.TagListOver = e.List.Over()
	}
	return f
}

// isCallerDeadline reports whether the timeout was the caller's own
// context deadline rather than a network timeout.
func isCallerDeadline(err error) bool { return errors.Is(err, context.DeadlineExceeded) }
