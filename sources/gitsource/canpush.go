package gitsource

import (
	"context"
	"net/http"
)

// PushCheck is the verdict of CanPush.
type PushCheck struct {
	// Allowed: the server opened a push session for these credentials.
	Allowed bool
	// Status is the HTTP status of the push advertisement (200, 401,
	// 403); 0 over SSH.
	Status int
	// Kind is why the push was refused (AuthRequired or AuthFailed), or
	// Other when Allowed.
	Kind Kind
	// Reason is a one-line explanation without credentials.
	Reason string
}

// CanPush decides whether these credentials may push to the repository,
// without writing anything: it requests the push (receive-pack) ref
// advertisement, which is GET <url>/info/refs?service=git-receive-pack
// over HTTP(S) and a git-receive-pack session over SSH, and closes the
// session without sending a command.
//
// Allowed proves only that the server lets these credentials open a push
// session. It does not prove that a particular push would be accepted:
// protected-branch rules, pre-receive hooks, required reviews or signed
// commits are checked only when a push sends its commands, so a push to a
// protected branch can still be rejected.
//
// A refusal of the credentials (HTTP 401/403, SSH authentication) is a
// verdict, returned with a nil error; every other failure (DNS, TLS,
// repository not found, ...) is an *Error. Over SSH a server that accepts
// the login but refuses git-receive-pack (a read-only deploy key) answers
// with text on stderr that go-git reports untyped: that is an *Error of
// Kind Other whose message carries the server's words, not a verdict.
func (c *Client) CanPush(ctx context.Context, url string, auth Auth) (PushCheck, error) {
	c.stats.pushChecks.Add(1)
	ctx, cancel := c.opContext(ctx)
	defer cancel()
	const op = "push check"
	cn, err := c.connect(op, url, auth)
	if err != nil {
		return refusal(err)
	}
	sess, err := cn.tr.NewReceivePackSession(cn.ep, cn.auth)
	if err != nil {
		return refusal(classify(op, url, cn.creds, err))
	}
	c.countSSH(cn.ep)
	_, err = sess.AdvertisedReferencesContext(ctx)
	// Close sends at most a flush packet: "no commands", never a ref update.
	_ = sess.Close()
	if err != nil {
		return refusal(classify(op, url, cn.creds, ctxErr(ctx, err)))
	}
	pc := PushCheck{Allowed: true, Kind: Other,
		Reason: "the server opened a push session for these credentials (branch protection is not checked until a push)"}
	if isHTTPURL(url) {
		pc.Status = http.StatusOK
	}
	return pc, nil
}

// refusal turns authentication failures into a verdict and passes every
// other error on.
func refusal(err error) (PushCheck, error) {
	e := classify("push check", "", Auth{}, err)
	if e.Kind == AuthRequired || e.Kind == AuthFailed {
		return PushCheck{Allowed: false, Status: e.Status, Kind: e.Kind, Reason: e.Error()}, nil
	}
	return PushCheck{}, e
}
