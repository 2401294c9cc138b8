package gitsource

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"strconv"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	labgit "github.com/imgupd/imgupd/lab/git"
)

func otherHostKey(t *testing.T) gossh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func authorizedKey(k gossh.PublicKey) string {
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k)))
}

// TestSSHKnownHosts checks SSH host keys against argocd-ssh-known-hosts-cm
// lines, as Argo CD's repo-server does, against the lab's SSH server.
func TestSSHKnownHosts(t *testing.T) {
	t.Parallel()
	lab := startLab(t)
	writeKey, readKey := testSSHKey(t), testSSHKey(t)
	srv := startSSH(t, lab, labgit.WithAuthorizedKey(publicKey(t, writeKey)), labgit.WithReadOnlyKey(publicKey(t, readKey)))
	url := srv.RepoURL("team/app")
	port := strconv.Itoa(srv.Port)
	hostKey := authorizedKey(srv.HostKeys[0])
	bracketed := "[127.0.0.1]:" + port

	tests := []struct {
		name       string
		knownHosts string
		insecure   bool
		kind       Kind // Other = success
	}{
		{"the server's line", srv.KnownHostsLine() + "\n", false, Other},
		{"comments, blank lines, comma list", "# argocd-ssh-known-hosts-cm\n\ngithub.com " + authorizedKey(otherHostKey(t)) +
			"\ngit.example.com," + bracketed + " " + hostKey + "\n", false, Other},
		{"hashed entry", knownhosts.HashHostname(bracketed) + " " + hostKey + "\n", false, Other},
		{"bracketed wildcard", "[127.0.0.*]:" + port + " " + hostKey + "\n", false, Other},
		// skeema/knownhosts (Argo CD's go-git path) lets a wildcard without a
		// port match any port, as OpenSSH does.
		{"wildcard without port", "127.0.0.* " + hostKey + "\n", false, Other},
		{"empty: nothing is trusted", "", false, HostKeyUnknown},
		{"bare host matches only port 22", "127.0.0.1 " + hostKey + "\n", false, HostKeyUnknown},
		{"other port", "[127.0.0.1]:1 " + hostKey + "\n", false, HostKeyUnknown},
		{"negated pattern", "!" + bracketed + ",[127.0.0.*]:" + port + " " + hostKey + "\n", false, HostKeyUnknown},
		{"another key for the host", bracketed + " " + authorizedKey(otherHostKey(t)) + "\n", false, HostKeyMismatch},
		{"the key revoked", "@revoked * " + hostKey + "\n" + srv.KnownHostsLine() + "\n", false, HostKeyMismatch},
		{"insecure ignores the host key", "", true, Other},
		{"insecure ignores a mismatch", bracketed + " " + authorizedKey(otherHostKey(t)) + "\n", true, Other},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClient()
			auth := Auth{SSHPrivateKey: writeKey, KnownHosts: []byte(tc.knownHosts), InsecureSkipTLS: tc.insecure}
			r, err := c.LsRemote(context.Background(), url, auth)
			if tc.kind != Other {
				e := wantKind(t, err, tc.kind)
				var keyErr *knownhosts.KeyError
				var revErr *knownhosts.RevokedError
				if !errors.As(err, &keyErr) && !errors.As(err, &revErr) {
					t.Errorf("does not wrap the knownhosts error: %v", err)
				}
				fp := gossh.FingerprintSHA256(srv.HostKeys[0])
				if !strings.Contains(e.Error(), fp) || !strings.Contains(e.Error(), bracketed) {
					t.Errorf("message names neither the offered key %s nor the host: %s", fp, e)
				}
				h := adviceFor(e)
				switch tc.kind {
				case HostKeyUnknown:
					if !strings.Contains(h, "add the host key to argocd-ssh-known-hosts-cm (ssh-keyscan -p "+port+" 127.0.0.1)") {
						t.Errorf("hint: %s", h)
					}
				case HostKeyMismatch:
					if !strings.Contains(h, "the key differs from the one in argocd-ssh-known-hosts-cm: a changed or spoofed server") {
						t.Errorf("hint: %s", h)
					}
				}
				// Snapshot fails the same way.
				_, err = c.Snapshot(context.Background(), url, "main", auth)
				wantKind(t, err, tc.kind)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.DefaultBranch != "main" {
				t.Errorf("remote = %+v", r)
			}
			snap, err := c.Snapshot(context.Background(), url, "main", auth)
			if err != nil {
				t.Fatal(err)
			}
			if !snap.Exists("apps/web/values.yaml") {
				t.Error("file missing")
			}
		})
	}

	t.Run("push check", func(t *testing.T) {
		t.Parallel()
		c := newClient()
		kh := srv.KnownHosts()
		pc, err := c.CanPush(context.Background(), url, Auth{SSHPrivateKey: writeKey, KnownHosts: kh})
		if err != nil || !pc.Allowed {
			t.Errorf("write key: %+v, %v", pc, err)
		}
		if pc, err := c.CanPush(context.Background(), url, Auth{SSHPrivateKey: readKey, KnownHosts: kh}); err == nil || pc.Allowed ||
			!strings.Contains(err.Error(), "read only") {
			t.Errorf("read-only key: %+v, %v", pc, err)
		}
		_, err = c.CanPush(context.Background(), url, Auth{SSHPrivateKey: writeKey, KnownHosts: []byte{}})
		wantKind(t, err, HostKeyUnknown)
	})

	t.Run("unparsable line", func(t *testing.T) {
		t.Parallel()
		kh := srv.KnownHostsLine() + "\n" + bracketed + " ssh-ed25519 not-base64!\n"
		_, err := newClient().LsRemote(context.Background(), url, Auth{SSHPrivateKey: writeKey, KnownHosts: []byte(kh)})
		e := wantKind(t, err, Other)
		if !errors.Is(err, errBadKnownHosts) || !strings.Contains(e.Error(), "ssh_known_hosts:2") || strings.Contains(e.Error(), "imgupd-known-hosts") {
			t.Errorf("error = %v", e)
		}
		if !strings.Contains(adviceFor(e), "does not parse") {
			t.Errorf("hint = %s", adviceFor(e))
		}
	})

	t.Run("no private key", func(t *testing.T) {
		t.Parallel()
		_, err := newClient().LsRemote(context.Background(), url, Auth{KnownHosts: srv.KnownHosts()})
		e := wantKind(t, err, AuthRequired)
		if !strings.Contains(e.Error(), "not supported") {
			t.Errorf("error = %v", e)
		}
	})

	t.Cleanup(func() {
		// Refused host keys end the connection before any login.
		if n := srv.Counts(); n.HandshakeFailures == 0 || n.Connections == 0 {
			t.Errorf("counts = %+v", n)
		}
	})
}

// TestSSHHostKeyAlgorithms: a server with ed25519 and RSA host keys is
// known by only one of them; the client must ask for that type (the
// HostKeyAlgorithms of the host's known_hosts entries), or the handshake
// picks the other and fails as a mismatch.
func TestSSHHostKeyAlgorithms(t *testing.T) {
	t.Parallel()
	lab := startLab(t)
	key := testSSHKey(t)
	srv := startSSH(t, lab, labgit.WithAuthorizedKey(publicKey(t, key)), labgit.WithSSHHostKeyTypes(labgit.HostKeyEd25519, labgit.HostKeyRSA))
	lines := strings.Split(strings.TrimSpace(string(srv.KnownHosts())), "\n")
	if len(lines) != 2 {
		t.Fatalf("known hosts = %q", lines)
	}
	for _, line := range lines {
		t.Run(strings.Fields(line)[1], func(t *testing.T) {
			t.Parallel()
			if _, err := newClient().LsRemote(context.Background(), srv.RepoURL("team/app"),
				Auth{SSHPrivateKey: key, KnownHosts: []byte(line + "\n")}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
