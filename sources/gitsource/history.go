package gitsource

import (
	"container/heap"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Commit is one commit of a Snapshot.
type Commit struct {
	Hash        string
	AuthorName  string
	AuthorEmail string
	When        time.Time // author date
	Message     string
	// Files are the paths the commit changed against its first parent,
	// sorted; for a root commit, every path. nil when the parent lies
	// beyond the fetched history (the shallow boundary).
	Files []string
}

// Commits returns up to n commits of the fetched history, newest first
// (by commit date, as `git log`); n <= 0 means all of it (at most about
// SnapshotDepth commits per line of history).
func (s *Snapshot) Commits(n int) ([]Commit, error) {
	if n <= 0 || n > len(s.commits) {
		n = len(s.commits)
	}
	out := make([]Commit, n)
	copy(out, s.commits[:n])
	return out, nil
}

// LastCommitBy returns the newest fetched commit whose author email is
// authorEmail (case-insensitive), e.g. Image Updater's
// "noreply@argoproj.io", or nil when none is in the fetched history (see
// Truncated: an older one may exist).
func (s *Snapshot) LastCommitBy(authorEmail string) (*Commit, error) {
	for i := range s.commits {
		if strings.EqualFold(s.commits[i].AuthorEmail, authorEmail) {
			c := s.commits[i]
			return &c, nil
		}
	}
	return nil, nil
}

// Contains reports whether the commit is in the fetched history. hash is
// a full hash or an unambiguous prefix of at least 7 hex digits. false
// does not prove absence from the branch when Truncated.
func (s *Snapshot) Contains(hash string) bool {
	hash = strings.ToLower(strings.TrimSpace(hash))
	if len(hash) < 7 || len(hash) > 40 || strings.Trim(hash, "0123456789abcdef") != "" {
		return false
	}
	found := 0
	for _, c := range s.commits {
		if strings.HasPrefix(c.Hash, hash) {
			found++
		}
	}
	return found == 1
}

// newSnapshot walks the fetched history from head.
func newSnapshot(st *memory.Storage, head plumbing.Hash) (*Snapshot, error) {
	hc, err := object.GetCommit(st, head)
	if err != nil {
		return nil, fmt.Errorf("head commit %s: %w", head, err)
	}
	tree, err := hc.Tree()
	if err != nil {
		return nil, fmt.Errorf("head tree: %w", err)
	}
	shallow := map[plumbing.Hash]bool{}
	sh, err := st.Shallow()
	if err != nil {
		return nil, err
	}
	for _, h := range sh {
		shallow[h] = true
	}
	s := &Snapshot{st: st, tree: tree}
	if s.commits, s.truncated, err = walk(st, hc, shallow); err != nil {
		return nil, err
	}
	s.head = s.commits[0]
	return s, nil
}

// walk lists every fetched commit reachable from head, newest commit date
// first, stopping at shallow commits (whose parents were not fetched).
func walk(st *memory.Storage, head *object.Commit, shallow map[plumbing.Hash]bool) ([]Commit, bool, error) {
	seen := map[plumbing.Hash]bool{head.Hash: true}
	q := &commitQueue{head}
	truncated := false
	var out []Commit
	for q.Len() > 0 {
		c := heap.Pop(q).(*object.Commit)
		cm, err := toCommit(st, c, shallow[c.Hash])
		if err != nil {
			return nil, false, err
		}
		out = append(out, cm)
		if shallow[c.Hash] {
			truncated = truncated || c.NumParents() > 0
			continue
		}
		for _, ph := range c.ParentHashes {
			if seen[ph] {
				continue
			}
			seen[ph] = true
			p, err := object.GetCommit(st, ph)
			if errors.Is(err, plumbing.ErrObjectNotFound) {
				truncated = true
				continue
			}
			if err != nil {
				return nil, false, err
			}
			heap.Push(q, p)
		}
	}
	return out, truncated, nil
}

// toCommit converts a commit, with its changed paths when the first
// parent was fetched.
func toCommit(st *memory.Storage, c *object.Commit, isShallow bool) (Commit, error) {
	out := Commit{
		Hash: c.Hash.String(), AuthorName: c.Author.Name, AuthorEmail: c.Author.Email,
		When: c.Author.When, Message: strings.TrimRight(c.Message, "\n"),
	}
	tree, err := c.Tree()
	if err != nil {
		return Commit{}, fmt.Errorf("tree of %s: %w", c.Hash, err)
	}
	var parentTree *object.Tree
	switch {
	case c.NumParents() == 0:
		parentTree = &object.Tree{}
	case isShallow:
		return out, nil
	default:
		p, err := object.GetCommit(st, c.ParentHashes[0])
		if err != nil {
			return out, nil // beyond the fetched history
		}
		if parentTree, err = p.Tree(); err != nil {
			return out, nil
		}
	}
	changes, err := object.DiffTree(parentTree, tree)
	if err != nil {
		return out, nil // Files are best effort
	}
	out.Files = make([]string, 0, len(changes))
	for _, ch := range changes {
		name := ch.To.Name
		if name == "" {
			name = ch.From.Name
		}
		out.Files = append(out.Files, name)
	}
	sort.Strings(out.Files)
	return out, nil
}

// commitQueue is a max-heap on commit date.
type commitQueue []*object.Commit

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	if !q[i].Committer.When.Equal(q[j].Committer.When) {
		return q[i].Committer.When.After(q[j].Committer.When)
	}
	return q[i].Hash.String() < q[j].Hash.String()
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(*object.Commit)) }
func (q *commitQueue) Pop() any {
	old := *q
	c := old[len(old)-1]
	*q = old[:len(old)-1]
	return c
}
