package labgit

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Commit adds one commit on top of an existing branch of repository name,
// as a push by someone else would, and returns its hash: a test changes
// the repository while a client that read it keeps running. Without
// c.When it is dated one minute after the branch's head.
func (s *Server) Commit(name, branch string, c CommitSpec) (string, error) {
	if err := checkBranchName(branch); err != nil {
		return "", fmt.Errorf("labgit: %w", err)
	}
	s.repoMu.Lock()
	defer s.repoMu.Unlock()
	b := &builder{gitDir: filepath.Join(s.reposDir(), filepath.FromSlash(repoPath(name))), home: s.homeDir()}
	head, err := b.git(nil, nil, "rev-parse", "--verify", "refs/heads/"+branch+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("labgit: repository %q branch %q: %w", name, branch, err)
	}
	at, err := b.git(nil, nil, "log", "-1", "--format=%ct", head)
	if err != nil {
		return "", fmt.Errorf("labgit: %w", err)
	}
	secs, err := strconv.ParseInt(at, 10, 64)
	if err != nil {
		return "", fmt.Errorf("labgit: commit time %q: %w", at, err)
	}
	b.from, b.clock, b.first = head, time.Unix(secs, 0).UTC(), true
	ref := "refs/heads/" + branch
	if _, err := b.commit(ref, 0, c, false); err != nil {
		return "", fmt.Errorf("labgit: %w", err)
	}
	b.stream.WriteString("done\n")
	if _, err := b.git(strings.NewReader(b.stream.String()), nil, "fast-import", "--quiet", "--done"); err != nil {
		return "", fmt.Errorf("labgit: %w", err)
	}
	return b.git(nil, nil, "rev-parse", "--verify", ref+"^{commit}")
}
