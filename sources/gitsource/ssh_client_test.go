package gitsource

import (
	"context"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	labgit "github.com/imgupd/imgupd/lab/git"
	"github.com/imgupd/imgupd/model/updater"
)

func publicKey(t *testing.T, priv updater.Secret) gossh.PublicKey {
	t.Helper()
	s, err := gossh.ParsePrivateKey([]byte(priv.Reveal()))
	if err != nil {
		t.Fatal(err)
	}
	return s.PublicKey()
}

// startSSH serves lab's repositories over SSH (the lab's SSH server runs
// git-upload-pack / git-receive-pack with the git CLI); it is closed with
// lab.
func startSSH(t *testing.T, lab *labgit.Server, opts ...labgit.SSHOption) *labgit.SSHServer {
	t.Helper()
	srv, err := lab.StartSSH(opts...)
	if err != nil {
		t.Fatalf("StartSSH: %v", err)
	}
	return srv
}

// TestSSH reads and checks push access over a real SSH server running
// git-upload-pack / git-receive-pack, with host-key checks skipped as
// Image Updater does for git:secret credentials.
func TestSSH(t *testing.T) {
	t.Parallel()
	lab := startLab(t)
	writeKey, readKey, strangerKey := testSSHKey(t), testSSHKey(t), testSSHKey(t)
	srv := startSSH(t, lab, labgit.WithAuthorizedKey(publicKey(t, writeKey)), labgit.WithReadOnlyKey(publicKey(t, readKey)))
	url := srv.RepoURL("team/app")
	ctx := context.Background()
	c := newClient()

	r, err := c.LsRemote(ctx, url, Auth{SSHPrivateKey: writeKey, InsecureSkipTLS: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.DefaultBranch != "main" || len(r.Branches) != 3 {
		t.Errorf("remote = %+v", r)
	}
	snap, err := c.Snapshot(ctx, url, "main", Auth{SSHPrivateKey: readKey, InsecureSkipTLS: true})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := snap.ReadFile("README.md"); string(b) != "# app v2\n" {
		t.Errorf("README = %q", b)
	}

	pc, err := c.CanPush(ctx, url, Auth{SSHPrivateKey: writeKey, InsecureSkipTLS: true})
	if err != nil || !pc.Allowed || pc.Status != 0 {
		t.Errorf("write key: %+v, %v", pc, err)
	}
	// A read-only key: the server refuses git-receive-pack with a message
	// go-git reports as untyped text, so this is an error, not a verdict.
	if pc, err := c.CanPush(ctx, url, Auth{SSHPrivateKey: readKey, InsecureSkipTLS: true}); err == nil || pc.Allowed {
		t.Errorf("read-only key: %+v, %v", pc, err)
	}
	// An unknown key: refused at login (AuthFailed).
	pc, err = c.CanPush(ctx, url, Auth{SSHPrivateKey: strangerKey, InsecureSkipTLS: true})
	if err != nil || pc.Allowed || pc.Kind != AuthFailed {
		t.Errorf("unknown key: %+v, %v", pc, err)
	}
	_, err = c.LsRemote(ctx, url, Auth{SSHPrivateKey: strangerKey, InsecureSkipTLS: true})
	wantKind(t, err, AuthFailed)
	// Unknown repository over SSH.
	_, err = c.LsRemote(ctx, srv.RepoURL("team/none"), Auth{SSHPrivateKey: writeKey, InsecureSkipTLS: true})
	wantKind(t, err, RepoNotFound)
	if st := c.Stats(); st.SSHSessions < 5 || st.HTTPRequests != 0 {
		t.Errorf("stats = %s", st)
	}
	if n := srv.Counts(); n.UploadPack < 2 || n.ReceivePack != 1 || n.ReadOnlyRefused != 1 {
		t.Errorf("server counts = %+v", n)
	}
}
