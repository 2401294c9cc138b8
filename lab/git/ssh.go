package labgit

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// SSHServer serves a Server's bare repositories over SSH on 127.0.0.1, as
// a git host does: public-key login for authorized keys, git-upload-pack
// and git-receive-pack run by the git CLI (so the pre-receive hooks of
// protected branches apply), and pushes refused for read-only keys with
// GitHub's message. Its exported fields are set by StartSSH and must not
// be changed. It is closed with its Server, or by Close.
type SSHServer struct {
	// Addr is "127.0.0.1:PORT".
	Addr string
	// Port is the TCP port.
	Port int
	// HostKeys are the server's public host keys, one per type, the
	// primary (first WithSSHHostKeyTypes type, ed25519 by default) first.
	HostKeys []gossh.PublicKey

	lab    *Server
	cfg    *gossh.ServerConfig
	ln     net.Listener
	stderr io.Writer
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once

	mu     sync.Mutex
	keys   map[string]bool // marshalled public key → read-only
	conns  map[net.Conn]struct{}
	counts SSHCounts
}

// SSHCounts are what reached an SSHServer since StartSSH.
type SSHCounts struct {
	// Connections is TCP connections accepted.
	Connections int
	// HandshakeFailures is connections that ended before a login: the
	// client refused the host key, offered no authorized key, or closed.
	HandshakeFailures int
	// UploadPack and ReceivePack are git-upload-pack (fetch, ls-remote)
	// and git-receive-pack (push, push check) sessions started.
	UploadPack, ReceivePack int
	// ReadOnlyRefused is git-receive-pack sessions refused for a
	// read-only key.
	ReadOnlyRefused int
}

// SSHOption configures an SSHServer.
type SSHOption func(*sshConfig)

type sshConfig struct {
	keys         map[string]bool
	hostKeyTypes []string
	hostSigners  []gossh.Signer
	stderr       io.Writer
}

// WithAuthorizedKey lets the key log in, fetch and push.
func WithAuthorizedKey(pub gossh.PublicKey) SSHOption {
	return func(c *sshConfig) { c.keys[string(pub.Marshal())] = false }
}

// WithReadOnlyKey lets the key log in and fetch; git-receive-pack is
// refused with GitHub's "The key you are authenticating with has been
// marked as read only." (a read-only deploy key).
func WithReadOnlyKey(pub gossh.PublicKey) SSHOption {
	return func(c *sshConfig) { c.keys[string(pub.Marshal())] = true }
}

// The host key types WithSSHHostKeyTypes accepts.
const (
	HostKeyEd25519 = gossh.KeyAlgoED25519  // "ssh-ed25519"
	HostKeyECDSA   = gossh.KeyAlgoECDSA256 // "ecdsa-sha2-nistp256"
	HostKeyRSA     = gossh.KeyAlgoRSA      // "ssh-rsa" (2048 bits; offered as rsa-sha2-256/512)
)

// WithSSHHostKeyTypes generates one host key of each type, the first the
// primary; the default is ed25519 only. A server offering several types
// lets a test check that a client which knows only one of them asks for
// that one (HostKeyAlgorithms from known_hosts).
func WithSSHHostKeyTypes(types ...string) SSHOption {
	return func(c *sshConfig) { c.hostKeyTypes = types }
}

// WithSSHHostKey uses signer as a host key (in addition to generated ones
// of WithSSHHostKeyTypes, and before them), e.g. to keep one host key
// across servers or to present a known "changed" key.
func WithSSHHostKey(signer gossh.Signer) SSHOption {
	return func(c *sshConfig) { c.hostSigners = append(c.hostSigners, signer) }
}

// WithSSHStderr receives git's standard error (it also goes to the client
// as the session's stderr). By default it only goes to the client.
func WithSSHStderr(w io.Writer) SSHOption { return func(c *sshConfig) { c.stderr = w } }

// StartSSH serves the server's repositories over SSH on a free port of
// 127.0.0.1 until Close (or the Server's Close). Repositories are at
// RepoURL(name), "ssh://git@127.0.0.1:PORT/<name>.git"; any user name is
// accepted, the key decides.
func (s *Server) StartSSH(opts ...SSHOption) (*SSHServer, error) {
	c := sshConfig{keys: map[string]bool{}}
	for _, o := range opts {
		o(&c)
	}
	if len(c.hostKeyTypes) == 0 && len(c.hostSigners) == 0 {
		c.hostKeyTypes = []string{HostKeyEd25519}
	}
	x := &SSHServer{lab: s, keys: c.keys, conns: map[net.Conn]struct{}{}, stderr: c.stderr}
	x.cfg = &gossh.ServerConfig{
		PublicKeyCallback: func(_ gossh.ConnMetadata, k gossh.PublicKey) (*gossh.Permissions, error) {
			m := string(k.Marshal())
			x.mu.Lock()
			_, ok := x.keys[m]
			x.mu.Unlock()
			if !ok {
				return nil, errors.New("labgit: key not authorized")
			}
			return &gossh.Permissions{Extensions: map[string]string{"key": m}}, nil
		},
		ServerVersion: "SSH-2.0-labgit",
	}
	signers := append([]gossh.Signer(nil), c.hostSigners...)
	for _, typ := range c.hostKeyTypes {
		sg, err := newHostSigner(typ)
		if err != nil {
			return nil, err
		}
		signers = append(signers, sg)
	}
	for _, sg := range signers {
		x.cfg.AddHostKey(sg)
		x.HostKeys = append(x.HostKeys, sg.PublicKey())
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("labgit: ssh listen: %w", err)
	}
	x.ln, x.Addr, x.Port = ln, ln.Addr().String(), ln.Addr().(*net.TCPAddr).Port
	x.ctx, x.cancel = context.WithCancel(context.Background())

	s.sshMu.Lock()
	if s.closed {
		s.sshMu.Unlock()
		ln.Close()
		x.cancel()
		return nil, errors.New("labgit: StartSSH on a closed server")
	}
	s.sshServers = append(s.sshServers, x)
	s.sshMu.Unlock()

	x.wg.Add(1)
	go x.accept()
	return x, nil
}

func newHostSigner(typ string) (gossh.Signer, error) {
	var key any
	var err error
	switch typ {
	case HostKeyEd25519:
		_, key, err = ed25519.GenerateKey(rand.Reader)
	case HostKeyECDSA:
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case HostKeyRSA:
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	default:
		return nil, fmt.Errorf("labgit: unknown SSH host key type %q", typ)
	}
	if err != nil {
		return nil, fmt.Errorf("labgit: host key: %w", err)
	}
	return gossh.NewSignerFromKey(key)
}

// RepoURL is the SSH clone URL of the repository name,
// "ssh://git@127.0.0.1:PORT/team/app.git".
func (x *SSHServer) RepoURL(name string) string { return x.RepoURLAt("127.0.0.1", name) }

// RepoURLAt is RepoURL under another host name ("git.corp.example"), for a
// client whose proxy or dialer maps that name to 127.0.0.1. Its host keys
// are then known as KnownHostsFor(host).
func (x *SSHServer) RepoURLAt(host, name string) string {
	return "ssh://git@" + net.JoinHostPort(host, strconv.Itoa(x.Port)) + "/" + repoPath(name)
}

// KnownHostsLine is the known_hosts line of the primary host key, as
// argocd-ssh-known-hosts-cm would hold it:
// "[127.0.0.1]:PORT ssh-ed25519 AAAA...".
func (x *SSHServer) KnownHostsLine() string {
	return knownhosts.Line([]string{x.Addr}, x.HostKeys[0])
}

// KnownHosts is one known_hosts line per host key, each ending in "\n"
// (what `ssh-keyscan -p PORT 127.0.0.1` prints, without comments).
func (x *SSHServer) KnownHosts() []byte { return x.KnownHostsFor("127.0.0.1") }

// KnownHostsFor is KnownHosts for the server reached as host:PORT.
func (x *SSHServer) KnownHostsFor(host string) []byte {
	var b strings.Builder
	addr := net.JoinHostPort(host, strconv.Itoa(x.Port))
	for _, k := range x.HostKeys {
		b.WriteString(knownhosts.Line([]string{addr}, k) + "\n")
	}
	return []byte(b.String())
}

// AuthorizeKey authorizes a key while the server runs (read-only or not);
// it replaces an earlier authorization of the same key.
func (x *SSHServer) AuthorizeKey(pub gossh.PublicKey, readOnly bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.keys[string(pub.Marshal())] = readOnly
}

// Counts returns a snapshot of the counts.
func (x *SSHServer) Counts() SSHCounts {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.counts
}

// Close stops the server, ends every session and its git process, and
// waits for them.
func (x *SSHServer) Close() {
	x.once.Do(func() {
		x.cancel()
		_ = x.ln.Close()
		x.mu.Lock()
		for c := range x.conns {
			_ = c.Close()
		}
		x.mu.Unlock()
		x.wg.Wait()
	})
}

func (x *SSHServer) count(f func(*SSHCounts)) {
	x.mu.Lock()
	f(&x.counts)
	x.mu.Unlock()
}

func (x *SSHServer) accept() {
	defer x.wg.Done()
	for {
		c, err := x.ln.Accept()
		if err != nil {
			return
		}
		x.mu.Lock()
		if x.ctx.Err() != nil {
			x.mu.Unlock()
			_ = c.Close()
			return
		}
		x.conns[c] = struct{}{}
		x.counts.Connections++
		x.wg.Add(1)
		x.mu.Unlock()
		go func() {
			defer x.wg.Done()
			x.serve(c)
			x.mu.Lock()
			delete(x.conns, c)
			x.mu.Unlock()
		}()
	}
}

func (x *SSHServer) serve(c net.Conn) {
	defer c.Close()
	conn, chans, reqs, err := gossh.NewServerConn(c, x.cfg)
	if err != nil {
		x.count(func(n *SSHCounts) { n.HandshakeFailures++ })
		return
	}
	defer conn.Close()
	go gossh.DiscardRequests(reqs)
	var wg sync.WaitGroup
	defer wg.Wait()
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(gossh.UnknownChannelType, "session only")
			continue
		}
		ch, chReqs, err := nc.Accept()
		if err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			x.session(conn.Permissions.Extensions["key"], ch, chReqs)
		}()
	}
}

// session serves one session channel: "env GIT_PROTOCOL" is kept, "exec"
// runs the git service, "shell" greets as GitHub does, the rest is refused.
func (x *SSHServer) session(key string, ch gossh.Channel, reqs <-chan *gossh.Request) {
	defer ch.Close()
	var gitProtocol string
	for req := range reqs {
		switch req.Type {
		case "env":
			name, rest := sshString(req.Payload)
			value, _ := sshString(rest)
			ok := name == "GIT_PROTOCOL"
			if ok {
				gitProtocol = value
			}
			_ = req.Reply(ok, nil)
		case "shell":
			_ = req.Reply(true, nil)
			_, _ = io.WriteString(ch.Stderr(), "Hi! You've successfully authenticated, but labgit does not provide shell access.\n")
			x.exit(ch, 1)
			return
		case "exec":
			_ = req.Reply(true, nil)
			cmd, _ := sshString(req.Payload)
			x.exit(ch, x.exec(key, cmd, gitProtocol, ch))
			return
		default:
			_ = req.Reply(false, nil)
		}
	}
}

func (x *SSHServer) exit(ch gossh.Channel, status int) {
	_, _ = ch.SendRequest("exit-status", false, binary.BigEndian.AppendUint32(nil, uint32(status)))
}

// exec runs "git-upload-pack '/team/app.git'" and the like.
func (x *SSHServer) exec(key, command, gitProtocol string, ch gossh.Channel) int {
	stderr := io.Writer(ch.Stderr())
	if x.stderr != nil {
		stderr = io.MultiWriter(stderr, x.stderr)
	}
	svc, arg, _ := strings.Cut(command, " ")
	if svc != "git-upload-pack" && svc != "git-receive-pack" {
		_, _ = fmt.Fprintf(stderr, "labgit: unknown command %q\n", svc)
		return 1
	}
	name := strings.Trim(shellUnquote(strings.TrimSpace(arg)), "/")
	if name == "" || strings.Contains(name, "..") || strings.ContainsAny(name, "\\\x00") {
		_, _ = io.WriteString(stderr, "fatal: invalid repository path\n")
		return 128
	}
	x.mu.Lock()
	readOnly := x.keys[key]
	x.mu.Unlock()
	if svc == "git-receive-pack" && readOnly {
		x.count(func(n *SSHCounts) { n.ReadOnlyRefused++ })
		_, _ = io.WriteString(stderr, "ERROR: The key you are authenticating with has been marked as read only.\n")
		return 1
	}
	x.count(func(n *SSHCounts) {
		if svc == "git-upload-pack" {
			n.UploadPack++
		} else {
			n.ReceivePack++
		}
	})
	cmd := exec.CommandContext(x.ctx, "git", strings.TrimPrefix(svc, "git-"), x.lab.RepoDir(name))
	cmd.Env = []string{"HOME=" + x.lab.homeDir(), "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	if gitProtocol != "" {
		cmd.Env = append(cmd.Env, "GIT_PROTOCOL="+gitProtocol)
	}
	cmd.Stdout, cmd.Stderr = ch, stderr
	// A pipe, not cmd.Stdin = ch: Wait must not wait for the client to
	// close its side when git exits first (an unknown repository).
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 1
	}
	if err := cmd.Start(); err != nil {
		_, _ = fmt.Fprintf(stderr, "labgit: %v\n", err)
		return 1
	}
	go func() { _, _ = io.Copy(stdin, ch); stdin.Close() }()
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() >= 0 {
			return ee.ExitCode()
		}
		return 1
	}
	return 0
}

// sshString reads one SSH wire string (uint32 length, bytes) and returns
// it and the rest.
func sshString(p []byte) (string, []byte) {
	if len(p) < 4 {
		return "", nil
	}
	n := binary.BigEndian.Uint32(p)
	if int64(n) > int64(len(p)-4) {
		return "", nil
	}
	return string(p[4 : 4+n]), p[4+n:]
}

// shellUnquote undoes git's single quoting of the path, as git-shell
// does: quoted runs lose their quotes and a backslash keeps the next
// character (git writes a quote inside the path as quote, backslash,
// quote, quote).
func shellUnquote(s string) string {
	if !strings.HasPrefix(s, "'") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				b.WriteString(s[i+1:])
				return b.String()
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 2
		case s[i] == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i += 2
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// SSHKey is a client key pair for tests and scenarios.
type SSHKey struct {
	// PrivateKeyPEM is the unencrypted private key in OpenSSH PEM form, as
	// a repository Secret's sshPrivateKey holds it.
	PrivateKeyPEM []byte
	// PublicKey is the public half, for WithAuthorizedKey or
	// WithReadOnlyKey.
	PublicKey gossh.PublicKey
}

// AuthorizedKey is the public key in authorized_keys form,
// "ssh-ed25519 AAAA...".
func (k SSHKey) AuthorizedKey() string {
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k.PublicKey)))
}

// NewSSHKey generates an ed25519 client key pair.
func NewSSHKey() (SSHKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return SSHKey{}, err
	}
	blk, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		return SSHKey{}, err
	}
	pub, err := gossh.NewPublicKey(priv.Public())
	if err != nil {
		return SSHKey{}, err
	}
	return SSHKey{PrivateKeyPEM: pem.EncodeToMemory(blk), PublicKey: pub}, nil
}
