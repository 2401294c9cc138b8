package labgit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sshEnv is the GIT_SSH_COMMAND Argo CD's repo-server uses for a
// repository with an SSH key: strict host key checking against its
// ssh_known_hosts file.
func sshEnv(t *testing.T, key SSHKey, knownHosts []byte) []string {
	t.Helper()
	dir := t.TempDir()
	keyFile, khFile := filepath.Join(dir, "key"), filepath.Join(dir, "ssh_known_hosts")
	if err := os.WriteFile(keyFile, key.PrivateKeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(khFile, knownHosts, 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"GIT_SSH_COMMAND=ssh -i " + keyFile + " -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=yes" +
		" -o UserKnownHostsFile=" + khFile + " -o GlobalKnownHostsFile=/dev/null -F /dev/null"}
}

func newKey(t *testing.T) SSHKey {
	t.Helper()
	k, err := NewSSHKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestSSHWithOpenSSH clones, pushes and is refused over SSH with the git
// CLI and OpenSSH, as Argo CD's repo-server runs them.
func TestSSHWithOpenSSH(t *testing.T) {
	t.Parallel()
	s := startT(t)
	if err := s.CreateRepo("team/app", sampleSpec()); err != nil {
		t.Fatal(err)
	}
	writer, reader, stranger := newKey(t), newKey(t), newKey(t)
	srv, err := s.StartSSH(WithAuthorizedKey(writer.PublicKey), WithReadOnlyKey(reader.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	url := srv.RepoURL("team/app")
	if want := "ssh://git@" + srv.Addr + "/team/app.git"; url != want {
		t.Errorf("RepoURL = %q, want %q", url, want)
	}
	if line := srv.KnownHostsLine(); !strings.HasPrefix(line, "["+strings.Replace(srv.Addr, ":", "]:", 1)+" ssh-ed25519 AAAA") {
		t.Errorf("KnownHostsLine = %q", line)
	}
	if !strings.HasPrefix(writer.AuthorizedKey(), "ssh-ed25519 AAAA") {
		t.Errorf("AuthorizedKey = %q", writer.AuthorizedKey())
	}

	dir := t.TempDir()
	env := sshEnv(t, writer, srv.KnownHosts())
	if out, err := gitCLIEnv(t, dir, env, "clone", "--quiet", url, "w"); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	w := filepath.Join(dir, "w")
	if b, err := os.ReadFile(filepath.Join(w, "apps/web/values.yaml")); err != nil || string(b) != "image:\n  tag: 1.0.0\n" {
		t.Errorf("values.yaml = %q, %v", b, err)
	}
	if out, err := gitCLIEnv(t, w, env, "commit", "--allow-empty", "-q", "-m", "x"); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	if out, err := gitCLIEnv(t, w, env, "push", "-q", "origin", "HEAD:refs/heads/feature"); err != nil {
		t.Errorf("push to feature: %v\n%s", err, out)
	}
	if out, err := gitCLIEnv(t, w, env, "push", "-q", "origin", "HEAD:main"); err == nil || !strings.Contains(out, "GH006: Protected branch update failed") {
		t.Errorf("push to protected main: %v\n%s", err, out)
	}
	if h, _ := s.BranchHash("team/app", "feature"); h == "" {
		t.Error("feature branch not created")
	}

	// A read-only key fetches but cannot push.
	renv := sshEnv(t, reader, srv.KnownHosts())
	if out, err := gitCLIEnv(t, dir, renv, "ls-remote", url); err != nil || !strings.Contains(out, "refs/heads/main") {
		t.Errorf("read-only ls-remote: %v\n%s", err, out)
	}
	if out, err := gitCLIEnv(t, w, renv, "push", "-q", "origin", "HEAD:refs/heads/other"); err == nil || !strings.Contains(out, "marked as read only") {
		t.Errorf("read-only push: %v\n%s", err, out)
	}
	// An unknown key, an empty known_hosts, another host key.
	if out, err := gitCLIEnv(t, dir, sshEnv(t, stranger, srv.KnownHosts()), "ls-remote", url); err == nil || !strings.Contains(out, "Permission denied") {
		t.Errorf("unknown key: %v\n%s", err, out)
	}
	if out, err := gitCLIEnv(t, dir, sshEnv(t, writer, nil), "ls-remote", url); err == nil || !strings.Contains(out, "Host key verification failed") {
		t.Errorf("empty known_hosts: %v\n%s", err, out)
	}
	other, err := s.StartSSH(WithAuthorizedKey(writer.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	kh := strings.Replace(string(other.KnownHosts()), other.Addr[strings.LastIndex(other.Addr, ":"):], srv.Addr[strings.LastIndex(srv.Addr, ":"):], 1)
	if out, err := gitCLIEnv(t, dir, sshEnv(t, writer, []byte(kh)), "ls-remote", url); err == nil || !strings.Contains(out, "HOST IDENTIFICATION HAS CHANGED") {
		t.Errorf("other host key: %v\n%s", err, out)
	}
	// An unknown repository.
	if out, err := gitCLIEnv(t, dir, env, "ls-remote", srv.RepoURL("team/none")); err == nil || !strings.Contains(out, "does not appear to be a git repository") {
		t.Errorf("unknown repository: %v\n%s", err, out)
	}
	n := srv.Counts()
	if n.UploadPack < 3 || n.ReceivePack != 2 || n.ReadOnlyRefused != 1 || n.HandshakeFailures < 2 {
		t.Errorf("counts = %+v", n)
	}
}

func TestSSHHostKeyTypes(t *testing.T) {
	t.Parallel()
	s := startT(t)
	srv, err := s.StartSSH(WithSSHHostKeyTypes(HostKeyEd25519, HostKeyECDSA))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(srv.KnownHostsFor("git.corp.example"))), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], " ssh-ed25519 ") || !strings.Contains(lines[1], " ecdsa-sha2-nistp256 ") ||
		!strings.HasPrefix(lines[0], "[git.corp.example]:") {
		t.Errorf("known hosts = %q", lines)
	}
	if _, err := s.StartSSH(WithSSHHostKeyTypes("ssh-dss")); err == nil {
		t.Error("unknown host key type accepted")
	}
	s.Close()
	if _, err := s.StartSSH(); err == nil {
		t.Error("StartSSH after Close succeeded")
	}
}

func TestShellUnquote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"'/team/app.git'": "/team/app.git", "/team/app.git": "/team/app.git", `'a'\''b'`: "a'b", `'x'\!'y'`: "x!y",
	} {
		if got := shellUnquote(in); got != want {
			t.Errorf("shellUnquote(%q) = %q, want %q", in, got, want)
		}
	}
}
