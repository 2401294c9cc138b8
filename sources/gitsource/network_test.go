package gitsource

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/internal/netclass"
	labgit "github.com/imgupd/imgupd/lab/git"
)

func TestTLS(t *testing.T) {
	t.Parallel()
	s := startLab(t, labgit.WithTLS(), labgit.WithBasicAuth(writerUser, writerPass))
	url := s.RepoURL("team/app")
	creds := Auth{Username: writerUser, Password: writerPass}
	tests := []struct {
		name string
		auth Auth
		kind Kind // Other = success
	}{
		{"with CA", Auth{Username: writerUser, Password: writerPass, CAData: s.CAPEM}, Other},
		{"without CA", creds, netclass.TLS},
		{"insecure, as Image Updater with git:secret", Auth{Username: writerUser, Password: writerPass, InsecureSkipTLS: true}, Other},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClient()
			_, err := c.LsRemote(context.Background(), url, tc.auth)
			if tc.kind != Other {
				e := wantKind(t, err, tc.kind)
				var cv *tls.CertificateVerificationError
				var ua x509.UnknownAuthorityError
				if !errors.As(err, &cv) && !errors.As(err, &ua) {
					t.Errorf("TLS error does not wrap the certificate error: %v", e)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			snap, err := c.Snapshot(context.Background(), url, "main", tc.auth)
			if err != nil {
				t.Fatal(err)
			}
			if !snap.Exists("apps/web/values.yaml") {
				t.Error("file missing")
			}
		})
	}
	// Plain HTTP to the TLS port.
	_, err := newClient().LsRemote(context.Background(), "http://"+s.Host+"/team/app.git", creds)
	if err == nil {
		t.Fatal("http to an https server: want error")
	}
	if _, err := newClient().LsRemote(context.Background(), url, Auth{CAData: []byte("not pem")}); err == nil {
		t.Error("bad CAData: want error")
	}
}

func TestNetworkFailures(t *testing.T) {
	t.Parallel()
	// A listener that accepts and never answers.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(hang.Close)
	// A port with nothing listening (one no test server can take meanwhile: a port freed by
	// closing a listener can be another test's server by the time it is dialled).
	closed := "http://" + closedAddr(t) + "/app.git"
	canceled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name string
		ctx  context.Context
		c    *Client
		url  string
		kind Kind
	}{
		{"unresolvable host", context.Background(), newClient(), "https://git.invalid/team/app.git", netclass.DNS},
		{"connection refused", context.Background(), newClient(), closed, netclass.Connect},
		{"timeout", context.Background(), New(WithTimeout(300 * time.Millisecond)), hang.URL + "/app.git", netclass.Timeout},
		{"canceled", canceled, newClient(), hang.URL + "/app.git", netclass.Canceled},
		{"file URL", context.Background(), newClient(), "file:///tmp/repo.git", UnsupportedURL},
		{"git protocol", context.Background(), newClient(), "git://example.com/repo.git", UnsupportedURL},
		{"ssh refused", context.Background(), newClient(), "ssh://git@" + strings.TrimPrefix(closed, "http://"), netclass.Connect},
		{"ssh without key", context.Background(), newClient(), "git@example.invalid:team/app.git", AuthRequired},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			auth := Auth{}
			if strings.HasPrefix(tc.name, "ssh refused") {
				auth.SSHPrivateKey = testSSHKey(t)
				auth.InsecureSkipTLS = true
			}
			_, err := tc.c.LsRemote(tc.ctx, tc.url, auth)
			wantKind(t, err, tc.kind)
		})
	}
}
