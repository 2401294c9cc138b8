package netclass

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"testing"
)

// remoteAlert stands for crypto/tls's unexported alert type.
type remoteAlert uint8

func (a remoteAlert) Error() string { return fmt.Sprintf("tls: alert %d", uint8(a)) }

func TestTLSFactsOf(t *testing.T) {
	t.Parallel()
	wrap := func(err error) error { return &url.Error{Op: "Get", URL: "https://h/", Err: err} }
	for _, tc := range []struct {
		name string
		err  error
		want TLSFacts
	}{
		{"nil", nil, TLSFacts{}},
		{"record header", wrap(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), TLSFacts{PlainHTTP: true}},
		{"scheme mismatch", wrap(http.ErrSchemeMismatch), TLSFacts{PlainHTTP: true}},
		{"host name", wrap(x509.HostnameError{Host: "h", Certificate: &x509.Certificate{}}), TLSFacts{WrongName: true}},
		{"unknown CA", wrap(x509.UnknownAuthorityError{}), TLSFacts{UnknownAuthority: true}},
		{"verification", wrap(&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), TLSFacts{UnknownAuthority: true}},
		{"certificate required", wrap(&net.OpError{Op: "remote error", Err: remoteAlert(116)}), TLSFacts{RemoteAlert: true, ClientCertAlert: true}},
		{"handshake failure", wrap(&net.OpError{Op: "remote error", Err: remoteAlert(40)}), TLSFacts{RemoteAlert: true}},
		{"own alert", wrap(tls.AlertError(42)), TLSFacts{ClientCertAlert: true}},
		{"dial", wrap(&net.OpError{Op: "dial", Err: fmt.Errorf("refused")}), TLSFacts{}},
	} {
		if got := TLSFactsOf(tc.err); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
