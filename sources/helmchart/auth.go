package helmchart

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"errors"

	"github.com/imgupd/imgupd/model/updater"
)

// Auth is how Argo CD authenticates to and trusts the repository of a
// source: the matching repository (or repo-creds) Secret, plus the CA that
// argocd-tls-certs-cm holds for the repository's host name.
type Auth struct {
	// Username and Password are the Secret's username and password: HTTP
	// basic credentials for a classic repository, registry credentials
	// for OCI.
	Username string
	Password updater.Secret
	// CAData is the PEM CA bundle of argocd-tls-certs-cm under the host
	// name (without port). Like Argo CD (helm --ca-file), it REPLACES the
	// system roots for this repository; it is not added to them.
	CAData []byte
	// Insecure is the Secret's insecure: skip TLS verification.
	Insecure bool
	// PlainHTTP is the Secret's insecureOCIForceHttp: OCI without TLS at
	// all. Classic repositories take their scheme from repoURL instead.
	PlainHTTP bool
	// PassCredentials is the Application's spec.source.helm.passCredentials:
	// send the credentials with a chart archive download even when the
	// archive is on another scheme/host than the repository.
	PassCredentials bool
	// ClientCert and ClientKey are the Secret's tlsClientCertData and
	// tlsClientCertKey (PEM). Like Argo CD, they are used only when both
	// are set.
	ClientCert []byte
	ClientKey  updater.Secret
}

func (a Auth) hasCreds() bool { return a.Username != "" || !a.Password.IsEmpty() }

func (a Auth) summary() authSummary {
	return authSummary{
		creds: a.hasCreds(), ca: len(a.CAData) > 0, insecure: a.Insecure, plainHTTP: a.PlainHTTP,
		clientCert: len(a.ClientCert) > 0 && !a.ClientKey.IsEmpty(), passCreds: a.PassCredentials,
	}
}

// secrets are the values no error text may contain: the password, the
// key, and the Authorization header they make, should a server echo it.
func (a Auth) secrets() []string {
	basic := base64.StdEncoding.EncodeToString([]byte(a.Username + ":" + a.Password.Reveal()))
	return []string{a.Password.Reveal(), a.ClientKey.Reveal(), basic}
}

// fingerprint keys a Shared scope's charts, so that a chart read with one
// set of credentials is not handed out for another. It stays in memory.
func (a Auth) fingerprint() [32]byte {
	h := sha256.New()
	field := func(b []byte) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	field([]byte(a.Username))
	field([]byte(a.Password.Reveal()))
	field(a.CAData)
	field(a.ClientCert)
	field([]byte(a.ClientKey.Reveal()))
	flags := []byte{0, 0, 0}
	for i, f := range []bool{a.Insecure, a.PlainHTTP, a.PassCredentials} {
		if f {
			flags[i] = 1
		}
	}
	field(flags)
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

var (
	errNoCAPEM       = errors.New("the CA data holds no PEM certificate")
	errBadClientCert = errors.New("the TLS client certificate and key are not a valid PEM pair")
)

// tlsConfig is Argo CD's newTLSConfig: InsecureSkipVerify from insecure,
// RootCAs = only the given CA, and the client certificate when both
// certificate and key are set.
func (a Auth) tlsConfig() (*tls.Config, error) {
	tc := &tls.Config{InsecureSkipVerify: a.Insecure} //nolint:gosec // the repository Secret asked for it
	if len(a.CAData) > 0 {
		pool := x509.NewCertPool()
		// Argo CD ignores a bundle without certificates and then trusts
		// nothing; failing here says why instead of an opaque unknown-CA.
		if !pool.AppendCertsFromPEM(a.CAData) {
			return nil, errNoCAPEM
		}
		tc.RootCAs = pool
	}
	if len(a.ClientCert) > 0 && !a.ClientKey.IsEmpty() {
		// tls.X509KeyPair's own message is not shown: it is generic, and
		// the key is secret.
		cert, err := tls.X509KeyPair(a.ClientCert, []byte(a.ClientKey.Reveal()))
		if err != nil {
			return nil, errBadClientCert
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}
