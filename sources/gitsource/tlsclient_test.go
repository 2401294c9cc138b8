package gitsource

import (
	"context"
	"crypto/x509"
	"net/http"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/internal/netclass"
	labgit "github.com/imgupd/imgupd/lab/git"
	"github.com/imgupd/imgupd/model/updater"
)

// TestTLSPrivateCA reads a server whose certificate chains to a private
// CA, as with an argocd-tls-certs-cm entry for the host.
func TestTLSPrivateCA(t *testing.T) {
	t.Parallel()
	s := startLab(t, labgit.WithPrivateCA(), labgit.WithBasicAuth(writerUser, writerPass))
	otherCA, _, err := labgit.NewClientCA("another CA")
	if err != nil {
		t.Fatal(err)
	}
	url := s.RepoURL("team/app")
	base := Auth{Username: writerUser, Password: writerPass}
	with := func(f func(*Auth)) Auth { a := base; f(&a); return a }
	tests := []struct {
		name string
		auth Auth
		kind Kind // Other = success
		hint string
	}{
		{"CA replaces the system roots", with(func(a *Auth) { a.CAData, a.CAReplacesSystemRoots = s.CAPEM, true }), Other, ""},
		{"CA added to the system roots", with(func(a *Auth) { a.CAData = s.CAPEM }), Other, ""},
		{"insecure", with(func(a *Auth) { a.InsecureSkipTLS = true }), Other, ""},
		{"no CA", base, netclass.TLS, "add the CA to argocd-tls-certs-cm under the key 127.0.0.1"},
		{"another CA replaces the roots", with(func(a *Auth) { a.CAData, a.CAReplacesSystemRoots = otherCA, true }), netclass.TLS,
			"not signed by the CA in argocd-tls-certs-cm under the key 127.0.0.1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClient()
			_, err := c.LsRemote(context.Background(), url, tc.auth)
			if tc.kind != Other {
				e := wantKind(t, err, tc.kind)
				if !strings.Contains(adviceFor(e), tc.hint) {
					t.Errorf("hint = %s", adviceFor(e))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Snapshot(context.Background(), url, "main", tc.auth); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCAReplacesSystemRoots: with the flag the pool holds CAData only;
// without it CAData is added to the system roots.
func TestCAReplacesSystemRoots(t *testing.T) {
	t.Parallel()
	s := startLab(t, labgit.WithPrivateCA())
	only := x509.NewCertPool()
	only.AppendCertsFromPEM(s.CAPEM)
	tr, err := newTransport(&http.Transport{}, Auth{CAData: s.CAPEM, CAReplacesSystemRoots: true})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.TLSClientConfig.RootCAs.Equal(only) {
		t.Error("CAReplacesSystemRoots: pool is not CAData alone")
	}
	if sys, err := x509.SystemCertPool(); err == nil && !sys.Equal(x509.NewCertPool()) {
		tr, err := newTransport(&http.Transport{}, Auth{CAData: s.CAPEM})
		if err != nil {
			t.Fatal(err)
		}
		if tr.TLSClientConfig.RootCAs.Equal(only) {
			t.Error("without CAReplacesSystemRoots the system roots are gone")
		}
	}
}

// TestTLSClientCert reads a server that requires a TLS client certificate.
func TestTLSClientCert(t *testing.T) {
	t.Parallel()
	s := startLab(t, labgit.WithClientCertRequired(), labgit.WithBasicAuth(writerUser, writerPass))
	cert, key, err := s.IssueClientCert("argocd-repo-server")
	if err != nil {
		t.Fatal(err)
	}
	_, issue, err := labgit.NewClientCA("untrusted client CA")
	if err != nil {
		t.Fatal(err)
	}
	strangerCert, strangerKey, err := issue("stranger")
	if err != nil {
		t.Fatal(err)
	}
	url := s.RepoURL("team/app")
	auth := func(cert []byte, key []byte) Auth {
		return Auth{Username: writerUser, Password: writerPass, CAData: s.CAPEM, CAReplacesSystemRoots: true,
			TLSClientCert: cert, TLSClientKey: updater.Secret(key)}
	}
	tests := []struct {
		name string
		auth Auth
		kind Kind
		hint string
	}{
		{"with the certificate", auth(cert, key), Other, ""},
		{"without a certificate", auth(nil, nil), netclass.TLS, "Set tlsClientCertData and tlsClientCertKey"},
		{"certificate of an untrusted CA", auth(strangerCert, strangerKey), netclass.TLS, "refused the TLS client certificate"},
		{"certificate and key do not match", auth(cert, strangerKey), netclass.TLS, "not a valid pair"},
		{"key missing", auth(cert, nil), netclass.TLS, "not a valid pair"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClient()
			_, err := c.LsRemote(context.Background(), url, tc.auth)
			if tc.kind != Other {
				e := wantKind(t, err, tc.kind)
				if !strings.Contains(adviceFor(e), tc.hint) {
					t.Errorf("hint = %s", adviceFor(e))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Snapshot(context.Background(), url, "main", tc.auth); err != nil {
				t.Fatal(err)
			}
			pc, err := c.CanPush(context.Background(), url, tc.auth)
			if err != nil || !pc.Allowed {
				t.Errorf("CanPush = %+v, %v", pc, err)
			}
		})
	}
}
