package labgit

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"log"
	"math/big"
	"net"
	"net/http"
	"sync"
	"time"
)

// WithPrivateCA serves HTTPS with a certificate issued by a freshly
// generated lab CA ("imgupd lab CA"), distinct from the leaf, as a company
// CA would issue it; Server.CAPEM is then that CA's certificate only, not
// the leaf. It is what Argo CD's argocd-tls-certs-cm holds for the host;
// clients that trust only CAPEM (Argo CD's "CA replaces the system roots")
// verify the chain. The leaf is valid for 127.0.0.1, ::1, localhost and
// the WithCertNames names.
//
// WithTLS alone serves a self-signed leaf that is its own CA; that also
// works as the only root, but is not a chain.
func WithPrivateCA() Option { return func(c *config) { c.tls, c.privateCA = true, true } }

// WithCertNames adds DNS names to the served certificate, so clients can
// reach the server under a name a proxy or dialer maps to 127.0.0.1
// ("git.corp.example"). It implies WithPrivateCA.
func WithCertNames(names ...string) Option {
	return func(c *config) {
		c.tls, c.privateCA = true, true
		c.certNames = append(c.certNames, names...)
	}
}

// WithClientCertRequired makes the HTTPS server require a TLS client
// certificate issued by a lab client CA (Server.ClientCAPEM); get one with
// IssueClientCert. A client without one, or with one the server does not
// trust, fails the TLS handshake (the server sends a "certificate
// required" or "bad certificate" alert). It implies WithPrivateCA.
func WithClientCertRequired() Option {
	return func(c *config) { c.tls, c.privateCA, c.clientCert = true, true, true }
}

// WithClientCA also accepts client certificates issued by the PEM CA
// certificates in caPEM. It implies WithClientCertRequired.
func WithClientCA(caPEM []byte) Option {
	return func(c *config) {
		WithClientCertRequired()(c)
		c.clientCAs = append(c.clientCAs, caPEM)
	}
}

// certAuthority is a CA certificate and its key.
type certAuthority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newCA(name string) (*certAuthority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: name, Organization: []string{"imgupd lab"}},
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := createCert(tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &certAuthority{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// issue signs a leaf for tmpl (its validity and serial are set here) and
// returns it as a tls.Certificate and as PEM certificate and key.
func (ca *certAuthority) issue(tmpl *x509.Certificate) (tls.Certificate, []byte, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := createCert(tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	return tls.Certificate{Certificate: [][]byte{der, ca.cert.Raw}, PrivateKey: key}, certPEM, keyPEM, nil
}

func createCert(tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, signer *ecdsa.PrivateKey) ([]byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = now.Add(-time.Hour), now.Add(10*365*24*time.Hour)
	return x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
}

// IssueClientCert returns a TLS client certificate (PEM, with the
// "imgupd lab client CA" as issuer) and its unencrypted PEM key, as
// Argo CD's repository Secret holds them in tlsClientCertData and
// tlsClientCertKey. It needs WithClientCertRequired.
func (s *Server) IssueClientCert(commonName string) (certPEM, keyPEM []byte, err error) {
	if s.clientCA == nil {
		return nil, nil, errors.New("labgit: IssueClientCert needs WithClientCertRequired")
	}
	_, certPEM, keyPEM, err = s.clientCA.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName, Organization: []string{"imgupd lab"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	return certPEM, keyPEM, err
}

// NewClientCA returns a fresh CA certificate (PEM) and a function that
// issues client certificates from it, for a client certificate the server
// does not trust (or, with WithClientCA, one it does).
func NewClientCA(name string) (caPEM []byte, issue func(commonName string) (certPEM, keyPEM []byte, err error), err error) {
	ca, err := newCA(name)
	if err != nil {
		return nil, nil, err
	}
	return ca.pem, func(cn string) ([]byte, []byte, error) {
		_, c, k, err := ca.issue(&x509.Certificate{
			Subject:     pkix.Name{CommonName: cn},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		})
		return c, k, err
	}, nil
}

// httpsServer is the lab's own HTTPS server, for the TLS options the
// shared loopback server does not offer (a CA chain, extra names, client
// certificates).
type httpsServer struct {
	srv  *http.Server
	done chan error
	once sync.Once
	log  *log.Logger
}

// startPrivateTLS serves h over HTTPS with a leaf issued by a new lab CA,
// requiring client certificates when configured.
func (s *Server) startPrivateTLS(h http.Handler) (*httpsServer, error) {
	ca, err := newCA("imgupd lab CA")
	if err != nil {
		return nil, fmt.Errorf("labgit: CA: %w", err)
	}
	leaf, _, _, err := ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "labgit", Organization: []string{"imgupd lab"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:    append([]string{"localhost"}, s.cfg.certNames...),
	})
	if err != nil {
		return nil, fmt.Errorf("labgit: certificate: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{leaf}, MinVersion: tls.VersionTLS12}
	if s.cfg.clientCert {
		if s.clientCA, err = newCA("imgupd lab client CA"); err != nil {
			return nil, fmt.Errorf("labgit: client CA: %w", err)
		}
		pool := x509.NewCertPool()
		pool.AddCert(s.clientCA.cert)
		for _, p := range s.cfg.clientCAs {
			if !pool.AppendCertsFromPEM(p) {
				return nil, errors.New("labgit: WithClientCA: no PEM certificate")
			}
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
		s.ClientCAPEM = s.clientCA.pem
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("labgit: listen: %w", err)
	}
	hs := &httpsServer{
		srv:  &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: s.cfg.errorLog},
		done: make(chan error, 1),
		log:  s.cfg.errorLog,
	}
	s.Host, s.URL, s.CAPEM = ln.Addr().String(), "https://"+ln.Addr().String(), ca.pem
	go func() { hs.done <- hs.srv.Serve(tls.NewListener(ln, cfg)) }()
	return hs, nil
}

func (h *httpsServer) Close() {
	h.once.Do(func() {
		_ = h.srv.Close()
		if err := <-h.done; err != nil && !errors.Is(err, http.ErrServerClosed) && h.log != nil {
			h.log.Printf("labgit: serve: %v", err)
		}
	})
}
