package gitsource

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCanPush(t *testing.T) {
	t.Parallel()
	s := authedLab(t)
	open := startLab(t)
	tests := []struct {
		name       string
		url        string
		auth       Auth
		allowed    bool
		status     int
		kind       Kind
		wantReason string
	}{
		{"full user", s.RepoURL("team/app"), Auth{Username: writerUser, Password: writerPass}, true, http.StatusOK, Other, "push session"},
		{"read-only user", s.RepoURL("team/app"), Auth{Username: readerUser, Password: readerPass}, false, http.StatusForbidden, AuthFailed, "HTTP 403"},
		{"wrong password", s.RepoURL("team/app"), Auth{Username: writerUser, Password: "bad"}, false, http.StatusUnauthorized, AuthFailed, "HTTP 401"},
		{"no credentials", s.RepoURL("team/app"), Auth{}, false, http.StatusUnauthorized, AuthRequired, "authentication required"},
		// main is protected, yet the session opens: the rule applies only
		// when a push sends its commands (documented limitation).
		{"anonymous server, protected main", open.RepoURL("team/app"), Auth{}, true, http.StatusOK, Other, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClient()
			pc, err := c.CanPush(context.Background(), tc.url, tc.auth)
			if err != nil {
				t.Fatal(err)
			}
			if pc.Allowed != tc.allowed || pc.Status != tc.status || pc.Kind != tc.kind || !strings.Contains(pc.Reason, tc.wantReason) {
				t.Errorf("CanPush = %+v; want allowed %v status %d kind %s reason ~%q", pc, tc.allowed, tc.status, tc.kind, tc.wantReason)
			}
			if c.Stats().PushChecks != 1 {
				t.Errorf("stats = %s", c.Stats())
			}
		})
	}
	// Nothing was pushed: CanPush never sends receive-pack commands.
	if n := s.Requests().ReceivePack + open.Requests().ReceivePack; n != 0 {
		t.Errorf("receive-pack POSTs = %d, want 0", n)
	}
	head, _ := s.BranchHash("team/app", "main")
	if r, err := newClient().LsRemote(context.Background(), s.RepoURL("team/app"), Auth{Username: writerUser, Password: writerPass}); err != nil || r.Refs["refs/heads/main"] != head || len(r.Branches) != 3 {
		t.Errorf("refs changed: %v %v", r, err)
	}

	if _, err := newClient().CanPush(context.Background(), open.RepoURL("team/none"), Auth{}); err == nil {
		t.Error("unknown repository: want error")
	} else {
		wantKind(t, err, RepoNotFound)
	}
}

// TestProtectedBranchHookRejectsPush proves the lab's protected branch is
// real: CanPush says Allowed, but a push with the git CLI to main is
// rejected by the pre-receive hook, while a push to dev goes through.
func TestProtectedBranchHookRejectsPush(t *testing.T) {
	t.Parallel()
	s := authedLab(t)
	u, _ := url.Parse(s.RepoURL("team/app"))
	u.User = url.UserPassword(writerUser, writerPass)

	pc, err := newClient().CanPush(context.Background(), s.RepoURL("team/app"), Auth{Username: writerUser, Password: writerPass})
	if err != nil || !pc.Allowed {
		t.Fatalf("CanPush = %+v, %v", pc, err)
	}

	dir := t.TempDir()
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH"), "GIT_TERMINAL_PROMPT=0",
			"GIT_AUTHOR_NAME=argocd-image-updater", "GIT_AUTHOR_EMAIL=noreply@argoproj.io",
			"GIT_COMMITTER_NAME=argocd-image-updater", "GIT_COMMITTER_EMAIL=noreply@argoproj.io"}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	if out, err := git("clone", "--quiet", u.String(), "w"); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	dir = filepath.Join(dir, "w")
	if err := os.WriteFile(filepath.Join(dir, "apps/web/values.yaml"), []byte("image:\n  tag: 1.1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := git("commit", "-qam", "build: automatic update of web"); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	before, _ := s.BranchHash("team/app", "main")
	out, err := git("push", "origin", "HEAD:main")
	if err == nil || !strings.Contains(out, "GH006: Protected branch update failed for refs/heads/main") ||
		!strings.Contains(out, "pre-receive hook declined") {
		t.Errorf("push to protected main: err %v, output:\n%s", err, out)
	}
	if out, err := git("push", "--force", "origin", "HEAD:dev"); err != nil {
		t.Errorf("push to dev: %v\n%s", err, out)
	}
	if after, _ := s.BranchHash("team/app", "main"); after != before {
		t.Error("main moved")
	}
}
