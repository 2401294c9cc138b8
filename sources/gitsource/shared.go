package gitsource

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/imgupd/imgupd/internal/flight"
	"github.com/imgupd/imgupd/internal/hostfail"
)

// Shared reads each repository once for everyone in one scope, one
// diagnosis or one fleet scan: one ls-remote per repository and
// credentials, one snapshot per repository, branch and credentials, one
// push check per repository and credentials. Concurrent callers share one
// request. Failures are shared too: within the scope a repository that
// could not be read is not asked again, and every caller gets the same
// *Error. Only a failure that was its caller's own (its deadline ran out,
// it was canceled) is left for the next caller to try again.
//
// Over HTTP(S) a host whose connection failed is met once per scope by the
// Client's transports (see the scope the engine puts in the context);
// Shared does the same for SSH: a host that could not be dialled is not
// dialled again in the scope, and every repository on it gets the error
// its own dial would have got.
//
// Make one per diagnosis or scan with Client.Share and drop it with the
// scope: it holds every snapshot it read. Read the answers, do not change
// them (a Remote's maps are shared). It is safe for concurrent use.
type Shared struct {
	c     *Client
	ls    flight.Group[Remote]
	snaps flight.Group[*Snapshot]
	push  flight.Group[PushCheck]
}

// Share returns a new, empty scope over the Client.
func (c *Client) Share() *Shared { return &Shared{c: c} }

// repoKey identifies a repository (after NormalizeURL), a branch and the
// credentials and settings that reach it. The credentials enter only as
// a SHA-256.
func repoKey(url, branch string, auth Auth) string {
	return NormalizeURL(url) + "\x00" + branch + "\x00" + auth.withURLUserinfo(url).identity()
}

// LsRemote is Client.LsRemote, once per repository and credentials in
// the scope.
func (s *Shared) LsRemote(ctx context.Context, url string, auth Auth) (Remote, error) {
	const op = "ls-remote"
	r, err := s.ls.Do(ctx, repoKey(url, "", auth), func() (Remote, error) {
		return viaSSHHost(ctx, op, url, "", auth, func() (Remote, error) { return s.c.LsRemote(ctx, url, auth) })
	})
	return r, waitErr(ctx, op, url, "", auth, err)
}

// Snapshot is Client.Snapshot, once per repository, branch and
// credentials in the scope.
func (s *Shared) Snapshot(ctx context.Context, url, branch string, auth Auth) (*Snapshot, error) {
	const op = "fetch"
	branch = snapshotBranch(branch)
	fetched := false
	snap, err := s.snaps.Do(ctx, repoKey(url, branch, auth), func() (*Snapshot, error) {
		fetched = true
		return viaSSHHost(ctx, op, url, branch, auth, func() (*Snapshot, error) { return s.c.Snapshot(ctx, url, branch, auth) })
	})
	if err == nil && !fetched {
		s.c.stats.cacheHits.Add(1)
	}
	return snap, waitErr(ctx, op, url, branch, auth, err)
}

// CanPush is Client.CanPush, once per repository and credentials in the
// scope.
func (s *Shared) CanPush(ctx context.Context, url string, auth Auth) (PushCheck, error) {
	const op = "push check"
	pc, err := s.push.Do(ctx, repoKey(url, "", auth), func() (PushCheck, error) {
		return viaSSHHost(ctx, op, url, "", auth, func() (PushCheck, error) { return s.c.CanPush(ctx, url, auth) })
	})
	return pc, waitErr(ctx, op, url, "", auth, err)
}

// viaSSHHost runs call, unless the URL is SSH and its host could not be
// dialled before in the scope of ctx: then it fails as call would have,
// without dialling. A failure of call that is its caller's own (ctx ended)
// is marked transient, so that the scope does not keep it.
func viaSSHHost[V any](ctx context.Context, op, url, branch string, auth Auth, call func() (V, error)) (V, error) {
	memo, key := hostfail.FromContext(ctx), sshHostKey(url, auth)
	if memo != nil && key != "" {
		if cause := memo.Err(key); cause != nil {
			var zero V
			e := classify(op, url, auth.withURLUserinfo(url), cause)
			e.Branch = branch
			return zero, e
		}
	}
	start := time.Now()
	v, err := call()
	if err == nil {
		return v, nil
	}
	if ctx.Err() != nil {
		return v, flight.Transient(err)
	}
	var e *Error
	if memo != nil && key != "" && errors.As(err, &e) && dialFailure(e.Err) {
		memo.Fail(key, e.Err, time.Since(start))
	}
	return v, err
}

// waitErr classifies the error of a caller whose context ended while it
// waited for another caller's request (the computation's own errors are
// *Error already).
func waitErr(ctx context.Context, op, url, branch string, auth Auth, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	e = classify(op, url, auth.withURLUserinfo(url), ctxErr(ctx, err))
	e.Branch = branch
	return e
}

// sshHostKey is the scope's key for an SSH URL's host (with the proxy it
// is reached through), or "" for other URLs.
func sshHostKey(url string, auth Auth) string {
	ep, err := transport.NewEndpoint(strings.TrimSpace(url))
	if err != nil || ep.Protocol != "ssh" {
		return ""
	}
	port := ep.Port
	if port == 0 {
		port = 22
	}
	return "git-ssh\x00" + net.JoinHostPort(ep.Host, strconv.Itoa(port)) + "\x00" + auth.Proxy
}

// dialFailure: err happened while dialling, before any SSH exchange (a
// name that does not resolve, a refused or unreachable address, a dial
// timeout).
func dialFailure(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
