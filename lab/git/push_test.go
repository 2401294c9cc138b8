package labgit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommitAddsToABranch: Commit puts a commit on top of a branch's head,
// after the repository was created, as someone else's push would; a clone
// sees it, with the files it changed and the ones it left alone.
func TestCommitAddsToABranch(t *testing.T) {
	t.Parallel()
	s := startT(t)
	if err := s.CreateRepo("team/app", sampleSpec()); err != nil {
		t.Fatal(err)
	}
	before, err := s.BranchHash("team/app", "main")
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Commit("team/app", "main", CommitSpec{Message: "fix the tag", Files: map[string]string{"apps/web/values.yaml": "image:\n  tag: 1.1.0\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := s.BranchHash("team/app", "main"); after != h || h == before {
		t.Fatalf("head %s after Commit returned %s (before %s)", after, h, before)
	}
	dir := t.TempDir()
	if out, err := gitCLI(t, dir, "clone", "--quiet", s.RepoURL("team/app"), "w"); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	w := filepath.Join(dir, "w")
	if b, _ := os.ReadFile(filepath.Join(w, "apps/web/values.yaml")); string(b) != "image:\n  tag: 1.1.0\n" {
		t.Errorf("values.yaml = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(w, "README.md")); string(b) != "hello\n" {
		t.Errorf("README.md = %q: a file the commit did not touch changed", b)
	}
	out, _ := gitCLI(t, w, "log", "--format=%an %aI %s", "-2")
	want := "Lab Admin 2026-01-01T00:02:00+00:00 fix the tag\nargocd-image-updater 2026-01-01T00:01:00+00:00 build: automatic update of web\n"
	if out != want {
		t.Errorf("log:\n%s\nwant:\n%s", out, want)
	}
	if _, err := s.Commit("team/app", "nope", CommitSpec{Files: map[string]string{"a": "b"}}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("a missing branch: %v", err)
	}
}
