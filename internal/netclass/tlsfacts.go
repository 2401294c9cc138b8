package netclass

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"reflect"
)

// TLSFacts is what a failed TLS handshake says about its cause, read from
// the typed errors in its chain. More than one may hold; whoever advises
// decides which counts first.
type TLSFacts struct {
	// PlainHTTP: the server answered plain HTTP to a TLS handshake
	// (tls.RecordHeaderError, or http.ErrSchemeMismatch, which net/http's
	// Client turns it into).
	PlainHTTP bool
	// WrongName: the certificate is not valid for the host name
	// (x509.HostnameError).
	WrongName bool
	// UnknownAuthority: the certificate is signed by a CA that is not
	// trusted (x509.UnknownAuthorityError, tls.CertificateVerificationError).
	UnknownAuthority bool
	// RemoteAlert: the server refused the handshake with a TLS alert (the
	// first *net.OpError in the chain is crypto/tls's "remote error").
	RemoteAlert bool
	// ClientCertAlert: a TLS alert, the server's or our own, about the
	// client certificate: 116 certificate_required (TLS 1.3), 42
	// bad_certificate, 46 certificate_unknown, 48 unknown_ca.
	ClientCertAlert bool
}

// TLSFactsOf reads the TLSFacts of err.
func TLSFactsOf(err error) TLSFacts {
	var (
		rec   tls.RecordHeaderError
		hn    x509.HostnameError
		ua    x509.UnknownAuthorityError
		cve   *tls.CertificateVerificationError
		alert *net.OpError
	)
	return TLSFacts{
		PlainHTTP:        errors.As(err, &rec) || errors.Is(err, http.ErrSchemeMismatch),
		WrongName:        errors.As(err, &hn),
		UnknownAuthority: errors.As(err, &ua) || errors.As(err, &cve),
		RemoteAlert:      errors.As(err, &alert) && alert.Op == "remote error",
		ClientCertAlert:  clientCertAlert(err),
	}
}

// clientCertAlert reports a TLS alert about the client certificate (see
// TLSFacts.ClientCertAlert).
func clientCertAlert(err error) bool {
	var local tls.AlertError
	code, ok := alertCode(RemoteTLSAlert(err))
	if !ok && errors.As(err, &local) {
		code, ok = uint8(local), true
	}
	return ok && (code == 116 || code == 42 || code == 46 || code == 48)
}

// alertCode is the TLS alert number of a remote alert: crypto/tls's alert
// type is an unexported uint8, so it is read by kind, not by text.
func alertCode(op *net.OpError) (uint8, bool) {
	if op == nil || op.Err == nil {
		return 0, false
	}
	v := reflect.ValueOf(op.Err)
	if v.Kind() != reflect.Uint8 {
		return 0, false
	}
	return uint8(v.Uint()), true
}
