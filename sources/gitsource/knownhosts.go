package gitsource

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	skeema "github.com/skeema/knownhosts"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// errBadKnownHosts is wrapped when Auth.KnownHosts does not parse.
var errBadKnownHosts = errors.New("the SSH known hosts (argocd-ssh-known-hosts-cm ssh_known_hosts) do not parse")

// knownHostsName stands for the temporary file in messages.
const knownHostsName = "ssh_known_hosts"

// knownHostsDB is Auth.KnownHosts parsed as Argo CD's repo-server parses
// its ssh_known_hosts file: with skeema/knownhosts over
// golang.org/x/crypto/ssh/knownhosts.
type knownHostsDB struct {
	*skeema.HostKeyDB
}

// newKnownHostsDB parses known_hosts text. Both libraries read only
// files, so the text goes through a temporary file that is removed before
// returning (the lines are public keys, not secrets).
func newKnownHostsDB(data []byte) (*knownHostsDB, error) {
	f, err := os.CreateTemp("", "imgupd-known-hosts-")
	if err != nil {
		return nil, fmt.Errorf("known hosts: %w", err)
	}
	name := f.Name()
	defer os.Remove(name)
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, fmt.Errorf("known hosts: %w", werr)
	}
	db, err := skeema.NewDB(name)
	if err != nil {
		msg := strings.ReplaceAll(err.Error(), name, knownHostsName)
		return nil, fmt.Errorf("%w: %s", errBadKnownHosts, msg)
	}
	return &knownHostsDB{db}, nil
}

// callback checks host keys and, on failure, says which key the server
// offered (hostKeyError wraps the *knownhosts.KeyError or RevokedError).
func (db *knownHostsDB) callback(hostPort string) gossh.HostKeyCallback {
	cb := db.HostKeyCallback()
	return func(hostname string, remote net.Addr, key gossh.PublicKey) error {
		err := cb(hostname, remote, key)
		if err == nil {
			return nil
		}
		if hostname == "" {
			hostname = hostPort
		}
		return &hostKeyError{host: hostname, offered: key, err: err}
	}
}

// hostKeyError is a host key refused by Auth.KnownHosts.
type hostKeyError struct {
	host    string // host:port as dialed
	offered gossh.PublicKey
	err     error
}

func (e *hostKeyError) Unwrap() error { return e.err }

// Error names the host, the key it offered and what the known hosts
// hold for it, e.g. "[127.0.0.1]:2222 offered ssh-ed25519
// SHA256:...; ssh_known_hosts has no entry for [127.0.0.1]:2222".
func (e *hostKeyError) Error() string {
	host := knownhosts.Normalize(e.host)
	var b strings.Builder
	fmt.Fprintf(&b, "%s offered %s %s; ", host, e.offered.Type(), gossh.FingerprintSHA256(e.offered))
	var (
		keyErr *knownhosts.KeyError
		revErr *knownhosts.RevokedError
	)
	switch {
	case errors.As(e.err, &revErr):
		fmt.Fprintf(&b, "%s line %d marks that key @revoked", knownHostsName, revErr.Revoked.Line)
	case errors.As(e.err, &keyErr) && len(keyErr.Want) == 0:
		fmt.Fprintf(&b, "%s has no entry for %s (knownhosts: key is unknown)", knownHostsName, host)
	case errors.As(e.err, &keyErr):
		b.WriteString(knownHostsName + " lists other keys for it: ")
		for i, w := range keyErr.Want {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "line %d %s %s", w.Line, w.Key.Type(), gossh.FingerprintSHA256(w.Key))
		}
		b.WriteString(" (knownhosts: key mismatch)")
	default:
		b.WriteString(e.err.Error())
	}
	return b.String()
}

// sshHostPort is the host:port go-git dials for an SSH endpoint.
func sshHostPort(ep *transport.Endpoint) string {
	port := ep.Port
	if port <= 0 {
		port = 22
	}
	return net.JoinHostPort(ep.Host, strconv.Itoa(port))
}

// knownHostsLines counts the lines that are neither blank nor comments.
func knownHostsLines(data []byte) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) > 0 && l[0] != '#' {
			n++
		}
	}
	return n
}
