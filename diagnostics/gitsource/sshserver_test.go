package gitsource

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os/exec"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	labgit "github.com/imgupd/imgupd/lab/git"
)

// sshGit is a minimal git SSH server for tests: it accepts one public key,
// runs git-upload-pack / git-receive-pack on the lab's bare repositories,
// and refuses git-receive-pack for keys marked read-only, with GitHub's
// message.
type sshGit struct {
	Addr     string
	lab      *labgit.Server
	cfg      *gossh.ServerConfig
	readOnly map[string]bool // by marshalled key
}

func startSSHGit(t *testing.T, lab *labgit.Server, writeKey, readKey gossh.PublicKey) *sshGit {
	t.Helper()
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	hostSigner, err := gossh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	s := &sshGit{lab: lab, readOnly: map[string]bool{string(readKey.Marshal()): true}}
	s.cfg = &gossh.ServerConfig{PublicKeyCallback: func(_ gossh.ConnMetadata, k gossh.PublicKey) (*gossh.Permissions, error) {
		m := string(k.Marshal())
		if m == string(writeKey.Marshal()) || s.readOnly[m] {
			return &gossh.Permissions{Extensions: map[string]string{"key": m}}, nil
		}
		return nil, errors.New("unknown key")
	}}
	s.cfg.AddHostKey(hostSigner)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s.Addr = ln.Addr().String()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *sshGit) serve(c net.Conn) {
	defer c.Close()
	conn, chans, reqs, err := gossh.NewServerConn(c, s.cfg)
	if err != nil {
		return
	}
	go gossh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(gossh.UnknownChannelType, "session only")
			continue
		}
		ch, chReqs, err := nc.Accept()
		if err != nil {
			continue
		}
		go s.session(conn.Permissions.Extensions["key"], ch, chReqs)
	}
}

func (s *sshGit) session(key string, ch gossh.Channel, reqs <-chan *gossh.Request) {
	defer ch.Close()
	for req := range reqs {
		if req.Type != "exec" {
			_ = req.Reply(false, nil)
			continue
		}
		_ = req.Reply(true, nil)
		status := s.exec(key, payloadString(req.Payload), ch)
		_, _ = ch.SendRequest("exit-status", false, binary.BigEndian.AppendUint32(nil, uint32(status)))
		return
	}
}

// exec runs "git-upload-pack '/team/app.git'" and the like.
func (s *sshGit) exec(key, command string, ch gossh.Channel) int {
	svc, arg, _ := strings.Cut(command, " ")
	repo := strings.Trim(arg, "'\"/")
	if svc != "git-upload-pack" && svc != "git-receive-pack" {
		_, _ = io.WriteString(ch.Stderr(), "unknown command\n")
		return 1
	}
	if svc == "git-receive-pack" && s.readOnly[key] {
		_, _ = io.WriteString(ch.Stderr(), "ERROR: The key you are authenticating with has been marked as read only.\n")
		return 1
	}
	cmd := exec.Command(svc, s.lab.RepoDir(repo))
	cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
	// A pipe, not cmd.Stdin = ch: Wait must not wait for the client to
	// close its side when git exits first (an unknown repository).
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 1
	}
	if err := cmd.Start(); err != nil {
		return 1
	}
	go func() { _, _ = io.Copy(stdin, ch); stdin.Close() }()
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		return 1
	}
	return 0
}

func payloadString(p []byte) string {
	if len(p) < 4 {
		return ""
	}
	n := binary.BigEndian.Uint32(p)
	if int(n) > len(p)-4 {
		return ""
	}
	return string(p[4 : 4+n])
}
