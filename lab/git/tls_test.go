package labgit

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func tlsConfigFor(t *testing.T, caPEM []byte) *tls.Config {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("bad CA PEM")
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

// TestPrivateCA: the served chain is a leaf issued by CAPEM, a distinct
// CA, trusted by the git CLI with only CAPEM as its CA file (Argo CD's
// GIT_SSL_CAINFO for an argocd-tls-certs-cm entry), also under an extra
// name.
func TestPrivateCA(t *testing.T) {
	t.Parallel()
	s := startT(t, WithCertNames("git.corp.example"))
	if err := s.CreateRepo("app", sampleSpec()); err != nil {
		t.Fatal(err)
	}
	conn, err := tls.Dial("tcp", s.Host, tlsConfigFor(t, s.CAPEM))
	if err != nil {
		t.Fatal(err)
	}
	chain := conn.ConnectionState().PeerCertificates
	conn.Close()
	blk, _ := pem.Decode(s.CAPEM)
	ca, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if len(chain) != 2 || chain[0].IsCA || !ca.IsCA || chain[0].CheckSignatureFrom(ca) != nil || !slices.Contains(chain[0].DNSNames, "git.corp.example") {
		t.Errorf("chain %d certificates, leaf CA %v, CA %v", len(chain), chain[0].IsCA, ca.IsCA)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, s.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := gitCLI(t, t.TempDir(), "-c", "http.sslCAInfo="+caFile, "ls-remote", s.RepoURL("app")); err != nil || !strings.Contains(out, "refs/heads/main") {
		t.Errorf("ls-remote with the CA: %v\n%s", err, out)
	}
	if s.ClientCAPEM != nil {
		t.Error("ClientCAPEM without WithClientCertRequired")
	}
	if _, _, err := s.IssueClientCert("x"); err == nil {
		t.Error("IssueClientCert without WithClientCertRequired")
	}
}

// TestClientCertRequired: the git CLI with the issued certificate
// (Argo CD's GIT_SSL_CERT / GIT_SSL_KEY) reads; without it, or with one of
// another CA, the handshake fails.
func TestClientCertRequired(t *testing.T) {
	t.Parallel()
	_, otherIssue, err := NewClientCA("other")
	if err != nil {
		t.Fatal(err)
	}
	extraCA, extraIssue, err := NewClientCA("extra")
	if err != nil {
		t.Fatal(err)
	}
	s := startT(t, WithClientCA(extraCA), WithBasicAuth("u", "p"))
	if err := s.CreateRepo("app", sampleSpec()); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	caFile := write("ca.pem", s.CAPEM)
	issued := func(name string, issue func(string) ([]byte, []byte, error)) []string {
		c, k, err := issue(name)
		if err != nil {
			t.Fatal(err)
		}
		return []string{"GIT_SSL_CERT=" + write(name+".crt", c), "GIT_SSL_KEY=" + write(name+".key", k)}
	}
	repo := withUser(s.RepoURL("app"), "u", "p")
	for _, tc := range []struct {
		name string
		env  []string
		ok   bool
	}{
		{"issued by the lab", issued("lab", s.IssueClientCert), true},
		{"issued by a WithClientCA CA", issued("extra", extraIssue), true},
		{"issued by another CA", issued("other", otherIssue), false},
		{"none", nil, false},
	} {
		out, err := gitCLIEnv(t, dir, append(tc.env, "GIT_SSL_CAINFO="+caFile), "ls-remote", repo)
		if ok := err == nil && strings.Contains(out, "refs/heads/main"); ok != tc.ok {
			t.Errorf("%s: ok %v, want %v: %v\n%s", tc.name, ok, tc.ok, err, out)
		}
	}
	if len(s.ClientCAPEM) == 0 {
		t.Error("no ClientCAPEM")
	}
}
