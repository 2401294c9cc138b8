package labgit

import (
	"os/exec"
	"testing"
)

// TestBranchNameFastPathIsGits: every name checkBranchName accepts without a
// process, git check-ref-format accepts too, and every name it refuses, git
// refuses or labgit's own rule (no single quote) does.
func TestBranchNameFastPathIsGits(t *testing.T) {
	names := []string{
		"main", "master", "release/1.2", "feature/a-b_c", "v1.0", "a/b/c", "image-updater-main",
		".hidden", "a/.b", "a..b", "a.lock", "a/b.lock", "a/", "/a", "a//b", "a.", "@", "a@{b", "a\\b",
		"a b", "a~b", "a^b", "a:b", "a?b", "a*b", "a[b", "a'b", "-a", "a/-b", "lock.a", "..", ".", "a/./b",
		"\x7f", "é", "a\tb", "refs/heads/x", "HEAD", "@/a", "a@b", "a.lock/b",
	}
	for _, n := range names {
		got := checkBranchName(n) == nil
		want := n != "" && exec.Command("git", "check-ref-format", "refs/heads/"+n).Run() == nil
		for _, c := range n {
			if c == '\'' {
				want = false
			}
		}
		if got != want {
			t.Errorf("%q: labgit accepts %v, git %v", n, got, want)
		}
	}
}
