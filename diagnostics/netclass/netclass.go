// Package netclass classifies network-level failures (DNS, connection,
// TLS, timeouts, proxies, cancellation) from Go's typed errors. The registry
// and git sources share it and add their protocol-specific classes on top.
// It never matches error strings.
package netclass

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"syscall"
)

// Class is a network failure class.
type Class int

const (
	// None: not a network-level failure (look at the protocol's errors).
	None Class = iota
	Canceled
	Timeout
	DNS
	TLS
	Connect
	// Proxy: the configured proxy itself failed (Go's "proxyconnect").
	Proxy
)

// Classify returns the class of err and the typed error that decided it
// (whose message says what failed without the wrappers' URL noise).
func Classify(err error) (Class, error) {
	var (
		dnsErr   *net.DNSError
		netErr   net.Error
		opErr    *net.OpError
		certErr  *tls.CertificateVerificationError
		uaErr    x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		invErr   x509.CertificateInvalidError
		recErr   tls.RecordHeaderError
		alertErr tls.AlertError
	)
	switch {
	case err == nil:
		return None, nil
	case ProxyConnect(err) != nil:
		return Proxy, ProxyConnect(err)
	case errors.Is(err, context.Canceled):
		return Canceled, err
	case errors.Is(err, context.DeadlineExceeded):
		return Timeout, err
	case errors.As(err, &dnsErr):
		return DNS, dnsErr
	case errors.As(err, &certErr):
		return TLS, certErr
	case errors.As(err, &uaErr):
		return TLS, uaErr
	case errors.As(err, &hostErr):
		return TLS, hostErr
	case errors.As(err, &invErr):
		return TLS, invErr
	case errors.As(err, &recErr):
		return TLS, recErr
	case errors.As(err, &alertErr):
		return TLS, alertErr
	case errors.Is(err, http.ErrSchemeMismatch):
		return TLS, http.ErrSchemeMismatch
	case errors.As(err, &netErr) && netErr.Timeout():
		return Timeout, err
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		if errors.As(err, &opErr) {
			return Connect, opErr
		}
		return Connect, err
	}
	return None, nil
}

// ProxyConnect returns the transport's "proxyconnect" *net.OpError in err's
// chain (the proxy, not the server, failed), or nil.
func ProxyConnect(err error) *net.OpError {
	for err != nil {
		var op *net.OpError
		if !errors.As(err, &op) {
			return nil
		}
		if op.Op == "proxyconnect" {
			return op
		}
		err = op.Err
	}
	return nil
}

// RemoteTLSAlert returns the *net.OpError that crypto/tls reports an alert
// from the server with (Op "remote error"), e.g. certificate_required when
// a client certificate is missing, or nil. Classify does not cover it:
// the alert's own type is unexported.
func RemoteTLSAlert(err error) *net.OpError {
	for err != nil {
		var op *net.OpError
		if !errors.As(err, &op) {
			return nil
		}
		if op.Op == "remote error" {
			return op
		}
		err = op.Err
	}
	return nil
}
