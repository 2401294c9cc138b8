package gitsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/imgupd/imgupd/internal/bounded"
)

// Snapshot is a shallow, read-only copy of one branch: its last
// SnapshotDepth commits and their trees, held in memory. It has no work
// tree; files are read from the head commit's tree. It is safe for
// concurrent use.
type Snapshot struct {
	// URL is the repository URL without userinfo; Branch the branch read.
	URL, Branch string

	head      Commit
	commits   []Commit // newest first, the whole fetched history
	truncated bool     // history stops at a shallow boundary

	st   *memory.Storage
	mu   sync.Mutex // object.Tree caches lookups and is not safe for concurrent use
	tree *object.Tree
	// dirs are the directories decoded so far, by path ("" is tree).
	// go-git's Tree.FindEntry caches only paths two or more levels
	// deep, so each read of apps/NAME/file decoded the whole apps
	// directory again: for a fleet of 500 apps in one directory, a cost
	// per read that grew with the fleet.
	dirs map[string]*object.Tree
}

// lookup finds the entry at p (cleaned, not "") through the decoded
// directories. s.mu is held.
func (s *Snapshot) lookup(p string) (*object.TreeEntry, error) {
	dir, base := path.Split(p)
	t, err := s.dirTree(strings.TrimSuffix(dir, "/"))
	if err != nil {
		return nil, err
	}
	return t.FindEntry(base)
}

// dirTree is the directory at d ("" the root), decoded once. s.mu is
// held.
func (s *Snapshot) dirTree(d string) (*object.Tree, error) {
	if d == "" {
		return s.tree, nil
	}
	if t, ok := s.dirs[d]; ok {
		return t, nil
	}
	parent, base := path.Split(d)
	pt, err := s.dirTree(strings.TrimSuffix(parent, "/"))
	if err != nil {
		return nil, err
	}
	t, err := pt.Tree(base)
	if err != nil {
		return nil, err
	}
	if s.dirs == nil {
		s.dirs = map[string]*object.Tree{}
	}
	s.dirs[d] = t
	return t, nil
}

// Head is the branch's head commit.
func (s *Snapshot) Head() Commit { return s.head }

// Truncated reports whether the fetched history stops before the root
// commit (the branch has more than SnapshotDepth commits), so a commit
// missing from Commits may still exist further back.
func (s *Snapshot) Truncated() bool { return s.truncated }

// ReadFile returns the content of a file in the head commit. A leading
// "/" is the repository root, as in Image Updater's write-back targets.
// A missing path gives an *fs.PathError wrapping fs.ErrNotExist; a
// directory one wrapping ErrIsDir. Errors are *fs.PathError.
func (s *Snapshot) ReadFile(p string) ([]byte, error) {
	p = cleanPath(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if p == "" {
		return nil, &fs.PathError{Op: "read", Path: "/", Err: ErrIsDir}
	}
	ent, err := s.lookup(p)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
	}
	if !ent.Mode.IsFile() {
		return nil, &fs.PathError{Op: "read", Path: p, Err: ErrIsDir}
	}
	blob, err := object.GetBlob(s.st, ent.Hash)
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			err = object.ErrFileNotFound
		}
		return nil, &fs.PathError{Op: "read", Path: p, Err: fmt.Errorf("%w: %w", fs.ErrNotExist, err)}
	}
	r, err := blob.Reader()
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: p, Err: err}
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: p, Err: err}
	}
	return b, nil
}

// ErrIsDir is wrapped by ReadFile for a directory path.
var ErrIsDir = errors.New("is a directory")

// Exists reports whether a file or directory exists in the head commit.
func (s *Snapshot) Exists(p string) bool {
	p = cleanPath(p)
	if p == "" {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.lookup(p)
	return err == nil
}

// ListDir lists a directory of the head commit ("" or "/" is the root),
// sorted, with a "/" after subdirectory names ("apps/", "README.md"). A
// missing directory gives an *fs.PathError wrapping fs.ErrNotExist.
func (s *Snapshot) ListDir(p string) ([]string, error) {
	p = cleanPath(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tree
	if p != "" {
		ent, err := s.lookup(p)
		if err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: p, Err: fs.ErrNotExist}
		}
		if ent.Mode.IsFile() {
			return nil, &fs.PathError{Op: "readdir", Path: p, Err: ErrNotDir}
		}
		if t, err = s.dirTree(p); err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: p, Err: fmt.Errorf("%w: %w", fs.ErrNotExist, err)}
		}
	}
	out := make([]string, 0, len(t.Entries))
	for _, e := range t.Entries {
		name := e.Name
		if !e.Mode.IsFile() && e.Mode != filemode.Submodule { // not a file, not a submodule: a tree
			name += "/"
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out, nil
}

// ErrNotDir is wrapped by ListDir for a file path.
var ErrNotDir = errors.New("not a directory")

// cleanPath makes a repository-relative path: no leading "/", no "./".
func cleanPath(p string) string {
	p = path.Clean("/" + strings.TrimSpace(p))
	return strings.TrimPrefix(p, "/")
}

// Snapshot returns a shallow (SnapshotDepth commits) single-branch copy
// of the branch, fetched into memory. branch is a name ("main") or
// "refs/heads/main"; "" or "HEAD" means the remote's default branch, as
// Image Updater resolves it. Every call fetches, so the snapshot is the
// branch as it is now; Shared.Snapshot fetches a branch once for a whole
// diagnosis or scan. Errors are *Error; a missing branch is Kind
// BranchNotFound.
func (c *Client) Snapshot(ctx context.Context, url, branch string, auth Auth) (*Snapshot, error) {
	return c.fetch(ctx, url, snapshotBranch(branch), auth)
}

// snapshotBranch is the branch name Snapshot fetches ("" for the remote's
// default).
func snapshotBranch(branch string) string {
	return strings.TrimPrefix(strings.TrimSpace(branch), "refs/heads/")
}

// fetch makes the snapshot: one ref advertisement and one upload-pack
// request for the branch head with a depth limit.
func (c *Client) fetch(ctx context.Context, url, branch string, auth Auth) (*Snapshot, error) {
	c.stats.fetches.Add(1)
	ctx, cancel := c.opContext(ctx)
	defer cancel()
	const op = "fetch"
	cn, err := c.connect(op, url, auth)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Snapshot, error) {
		e := classify(op, url, cn.creds, ctxErr(ctx, err))
		e.Branch = branch
		return nil, e
	}
	sess, err := cn.tr.NewUploadPackSession(cn.ep, cn.auth)
	if err != nil {
		return fail(err)
	}
	c.countSSH(cn.ep)
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return fail(err)
	}
	if branch == "" || branch == "HEAD" {
		if branch = defaultBranch(ar); branch == "" {
			return fail(fmt.Errorf("remote HEAD names no branch: %w", plumbing.ErrReferenceNotFound))
		}
	}
	refName := plumbing.NewBranchReferenceName(branch)
	want, ok := ar.References[refName.String()]
	if !ok {
		return fail(fmt.Errorf("%s: %w", refName, plumbing.ErrReferenceNotFound))
	}

	req := packp.NewUploadPackRequestFromCapabilities(ar.Capabilities)
	req.Wants = []plumbing.Hash{want}
	req.Depth = packp.DepthCommits(SnapshotDepth)
	if err := req.Capabilities.Set(capability.Shallow); err != nil {
		return fail(err)
	}
	if ar.Capabilities.Supports(capability.NoProgress) {
		_ = req.Capabilities.Set(capability.NoProgress)
	}
	resp, err := sess.UploadPack(ctx, req)
	if err != nil {
		return fail(err)
	}
	defer resp.Close()

	st := memory.NewStorage()
	if len(resp.Shallows) > 0 {
		if err := st.SetShallow(resp.Shallows); err != nil {
			return fail(err)
		}
	}
	// The pack is read whole (bounded), its declared sizes checked, and
	// only then inflated: an endless or inflating answer stops at the
	// bounds instead of taking the memory.
	raw := &bounded.Reader{R: resp, N: MaxPackBytes + negotiationSlack, Over: &SizeLimit{What: "pack", Max: MaxPackBytes}}
	pack, err := readPack(sidebandReader(req.Capabilities, raw))
	if err != nil {
		return fail(err)
	}
	if err := checkPack(pack.reader()); err != nil {
		return fail(err)
	}
	if err := packfile.UpdateObjectStorage(st, pack.reader()); err != nil {
		return fail(err)
	}
	if err := st.SetReference(plumbing.NewHashReference(refName, want)); err != nil {
		return fail(err)
	}
	snap, err := newSnapshot(st, want)
	if err != nil {
		return fail(err)
	}
	snap.URL, snap.Branch = redactURL(url), branch
	return snap, nil
}

// sidebandReader demultiplexes the pack stream when a sideband was
// negotiated, as go-git's own fetch does.
func sidebandReader(l *capability.List, r io.Reader) io.Reader {
	switch {
	case l.Supports(capability.Sideband64k):
		return sideband.NewDemuxer(sideband.Sideband64k, r)
	case l.Supports(capability.Sideband):
		return sideband.NewDemuxer(sideband.Sideband, r)
	}
	return r
}
