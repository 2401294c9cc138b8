// Package netclass classifies network-level failures (DNS, connection,
// TLS, timeouts, proxies, cancellation) from Go's typed errors. It never
// matches error strings.
//
// It also holds the one vocabulary of failure kinds the sources share.
// Kind is a typed string whose value is the name JSON and log lines carry
// (as go-containerregistry's transport.ErrorCode). The network kinds are
// defined here, once; each source (registry, gitsource, helmchart, forge)
// declares its Kind as an alias of this type (`type Kind = netclass.Kind`)
// and adds only its protocol's kinds (Unauthorized, NotFound,
// HostKeyUnknown, ...). So Classify's answer is stored in a source error as
// it is, and callers compare a source error's kind with netclass.DNS,
// netclass.TLS... whichever source failed.
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

// Kind is what went wrong, as a stable name that is safe to alert on: one
// of the network kinds below, or a source's protocol kind.
type Kind string

const (
	// None: not a network-level failure (look at the protocol's errors).
	None Kind = ""
	// DNS: the host name did not resolve.
	DNS Kind = "DNS"
	// Connect: the connection was refused, reset, or the host or network
	// unreachable.
	Connect Kind = "Connect"
	// TLS: the TLS handshake failed (unknown CA, wrong host name, or a
	// plain-HTTP server spoken to with TLS: tls.RecordHeaderError, which
	// net/http's Client turns into http.ErrSchemeMismatch). A source may
	// add the server's TLS alert (RemoteTLSAlert) to it.
	TLS Kind = "TLS"
	// Timeout: no answer in time (dial, TLS handshake, response, or the
	// caller's deadline).
	Timeout Kind = "Timeout"
	// Proxy: the configured proxy itself failed (Go's "proxyconnect"; a
	// source may add its own proxy failures).
	Proxy Kind = "Proxy"
	// Canceled: the caller canceled the context.
	Canceled Kind = "Canceled"
)

// Kinds is every network Kind, in the order the sources list them.
func Kinds() []Kind { return []Kind{DNS, Connect, TLS, Timeout, Proxy, Canceled} }

var phrases = map[Kind]string{
	DNS: "host not found (DNS)", Connect: "connection refused or host unreachable",
	TLS: "TLS handshake failed", Timeout: "timed out", Proxy: "proxy connection failed", Canceled: "canceled",
}

// Phrase is how an error message says k: as own words it (a source's
// wording of its kinds, and of a network kind it words its own way), else
// as the network kinds are worded ("timed out"), else "failed".
func (k Kind) Phrase(own map[Kind]string) string {
	if p, ok := own[k]; ok {
		return p
	}
	if p, ok := phrases[k]; ok {
		return p
	}
	return "failed"
}

// Classify returns the network Kind of err (None if it is not one) and the typed error that decided it
// (whose message says what failed without the wrappers' URL noise).
func Classify(err error) (Kind, error) {
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
