package gitsource

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/imgupd/imgupd/model/updater"
)

// testSSHKey is a fresh ed25519 private key in OpenSSH PEM form.
func testSSHKey(t *testing.T) updater.Secret {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	return updater.Secret(pem.EncodeToMemory(blk))
}

func TestTransportAuth(t *testing.T) {
	t.Parallel()
	key := testSSHKey(t)
	ep := func(u string) *transport.Endpoint {
		e, err := transport.NewEndpoint(u)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}

	m, err := Auth{Username: "u", Password: "p"}.transportAuth(ep("https://h/r.git"))
	if b, ok := m.(*githttp.BasicAuth); err != nil || !ok || b.Username != "u" || b.Password != "p" {
		t.Errorf("https basic: %#v, %v", m, err)
	}
	if m, err := (Auth{}).transportAuth(ep("https://h/r.git")); m != nil || err != nil {
		t.Errorf("anonymous https: %#v, %v", m, err)
	}

	m, err = Auth{SSHPrivateKey: key, InsecureSkipTLS: true}.transportAuth(ep("git@h:org/r.git"))
	pk, ok := m.(*gitssh.PublicKeys)
	if err != nil || !ok || pk.User != "git" || pk.HostKeyCallback == nil {
		t.Fatalf("ssh key, insecure: %#v, %v", m, err)
	}
	m, _ = Auth{SSHPrivateKey: key}.transportAuth(ep("ssh://deploy@h/org/r.git"))
	if pk := m.(*gitssh.PublicKeys); pk.User != "deploy" || pk.HostKeyCallback != nil {
		t.Errorf("ssh key, verified: user %q, callback set %v (want go-git's known_hosts default)", pk.User, pk.HostKeyCallback != nil)
	}
	if _, err := (Auth{SSHPrivateKey: "not a key"}).transportAuth(ep("git@h:r.git")); err == nil {
		t.Error("bad key: want error")
	}
	if _, err := (Auth{}).transportAuth(ep("git@h:r.git")); !errors.Is(err, transport.ErrAuthenticationRequired) {
		t.Errorf("ssh without credentials: %v", err)
	}

	// KnownHosts binds the callback and the host key algorithms of the
	// host's entries; InsecureSkipTLS still wins.
	kh := []byte("[h]:2222 " + strings.TrimSpace(string(gossh.MarshalAuthorizedKey(publicKey(t, key)))) + "\n")
	m, err = Auth{SSHPrivateKey: key, KnownHosts: kh}.transportAuth(ep("ssh://git@h:2222/r.git"))
	if pk, ok := m.(*gitssh.PublicKeys); err != nil || !ok || pk.HostKeyCallback == nil || len(pk.HostKeyAlgorithms) != 1 ||
		pk.HostKeyAlgorithms[0] != gossh.KeyAlgoED25519 {
		t.Errorf("known hosts: %#v, %v", m, err)
	}
	m, _ = Auth{SSHPrivateKey: key, KnownHosts: kh}.transportAuth(ep("ssh://git@h/r.git"))
	if pk := m.(*gitssh.PublicKeys); pk.HostKeyCallback == nil || len(pk.HostKeyAlgorithms) != 0 {
		t.Errorf("known hosts, port 22 has no entry: algorithms %v", pk.HostKeyAlgorithms)
	}
	m, _ = Auth{SSHPrivateKey: key, KnownHosts: kh, InsecureSkipTLS: true}.transportAuth(ep("ssh://git@h:2222/r.git"))
	if pk := m.(*gitssh.PublicKeys); pk.HostKeyCallback == nil || len(pk.HostKeyAlgorithms) != 0 {
		t.Errorf("insecure with known hosts: algorithms %v", pk.HostKeyAlgorithms)
	}
	if _, err := (Auth{SSHPrivateKey: key, KnownHosts: []byte("h ssh-ed25519 !!!\n")}).transportAuth(ep("git@h:r.git")); !errors.Is(err, errBadKnownHosts) {
		t.Errorf("bad known hosts: %v", err)
	}
}
