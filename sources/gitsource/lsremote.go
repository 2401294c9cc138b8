package gitsource

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// Remote is a repository's advertised refs.
type Remote struct {
	// Refs maps full ref names ("refs/heads/main", "refs/tags/v1", and
	// "HEAD" when advertised) to commit hashes.
	Refs map[string]string
	// DefaultBranch is the branch HEAD points at ("main"), from the
	// server's HEAD symref; "" when not advertised (an empty repository,
	// or a server that does not send symrefs).
	DefaultBranch string
	// Branches are the branch names, sorted ("main", "release/1.x").
	Branches []string
}

// HasBranch reports whether the branch exists on the remote.
func (r Remote) HasBranch(name string) bool {
	_, ok := r.Refs[plumbing.NewBranchReferenceName(strings.TrimPrefix(name, "refs/heads/")).String()]
	return ok
}

// LsRemote lists the refs of the repository at url, like `git ls-remote`,
// with one request over HTTP(S). An empty repository gives an empty Remote
// and no error. Errors are *Error.
func (c *Client) LsRemote(ctx context.Context, url string, auth Auth) (Remote, error) {
	c.stats.lsRemote.Add(1)
	ctx, cancel := c.opContext(ctx)
	defer cancel()
	const op = "ls-remote"
	cn, err := c.connect(op, url, auth)
	if err != nil {
		return Remote{}, err
	}
	sess, err := cn.tr.NewUploadPackSession(cn.ep, cn.auth)
	if err != nil {
		return Remote{}, classify(op, url, cn.creds, err)
	}
	c.countSSH(cn.ep)
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return Remote{Refs: map[string]string{}}, nil
	}
	if err != nil {
		return Remote{}, classify(op, url, cn.creds, ctxErr(ctx, err))
	}
	return remoteFromAdvRefs(ar), nil
}

func remoteFromAdvRefs(ar *packp.AdvRefs) Remote {
	r := Remote{Refs: make(map[string]string, len(ar.References)+1)}
	for name, h := range ar.References {
		r.Refs[name] = h.String()
		if b, ok := strings.CutPrefix(name, "refs/heads/"); ok {
			r.Branches = append(r.Branches, b)
		}
	}
	sort.Strings(r.Branches)
	if ar.Head != nil {
		r.Refs[plumbing.HEAD.String()] = ar.Head.String()
	}
	r.DefaultBranch = defaultBranch(ar)
	return r
}

// defaultBranch reads "symref=HEAD:refs/heads/<b>" from the capabilities.
func defaultBranch(ar *packp.AdvRefs) string {
	for _, v := range ar.Capabilities.Get(capability.SymRef) {
		if target, ok := strings.CutPrefix(v, "HEAD:"); ok {
			return strings.TrimPrefix(target, "refs/heads/")
		}
	}
	return ""
}

// ctxErr prefers the context's error when it is done, so a deadline that
// surfaced as a closed connection is still classified Timeout.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return errors.Join(ctx.Err(), err)
	}
	return err
}
