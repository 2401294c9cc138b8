// Package hostfail shares, within one diagnosis or one fleet scan, the
// failure to connect to a host: a name that does not resolve, a refused
// or unreachable address, a TLS handshake that fails, a proxy that refuses
// the tunnel, no connection before the deadline. Once one request to a
// host has met such a failure, every later request to that host in the
// same scope gets the same error at once, without a request: so a fleet
// scan whose git host cannot be resolved looks it up once, not once per
// app and repository, and every app still gets the answer its own
// request would have got (the clients classify the same error value).
//
// The scope travels in the context (NewContext): the engine starts one per
// diagnosis, the fleet scan one per scan. Nothing outlives it. Transport
// applies it to HTTP; Memo.Err and Memo.Fail let a client that dials
// without net/http (SSH) do the same.
package hostfail

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/imgupd/imgupd/internal/netclass"
)

// MinTimeoutWait is how long a request must have waited for a connection
// before running out of its own time counts as the host's failure. A
// request that ran out sooner was short of time already: the next one
// tries again.
const MinTimeoutWait = time.Second

// Memo is one scope's hosts: those a connection was made to, and the
// failures met. It is safe for concurrent use.
type Memo struct {
	mu    sync.Mutex
	hosts map[string]*host
	// Shared counts the requests answered with a failure met before
	// (tests and benchmarks read it).
	Shared atomic.Int64
}

type host struct {
	// probing is closed when the first attempt has an outcome; nil once
	// it has one.
	probing chan struct{}
	ok      bool
	err     error
}

// New returns an empty Memo.
func New() *Memo { return &Memo{hosts: map[string]*host{}} }

type ctxKey struct{}

// NewContext returns ctx carrying m.
func NewContext(ctx context.Context, m *Memo) context.Context {
	return context.WithValue(ctx, ctxKey{}, m)
}

// FromContext returns the Memo ctx carries, or nil.
func FromContext(ctx context.Context) *Memo {
	m, _ := ctx.Value(ctxKey{}).(*Memo)
	return m
}

// Err returns the connection failure met for key, or nil.
func (m *Memo) Err(key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if h := m.hosts[key]; h != nil && h.err != nil {
		m.Shared.Add(1)
		return h.err
	}
	return nil
}

// Fail records err as key's connection failure when it is one that says
// nothing about the request, only about the host (Shareable, waited being
// how long the attempt waited for its connection), and reports whether it
// did. The caller knows the error came before any connection was made.
func (m *Memo) Fail(key string, err error, waited time.Duration) bool {
	if !Shareable(err, waited) {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.hosts[key]
	if h == nil {
		h = &host{}
		m.hosts[key] = h
	}
	if h.err == nil {
		h.err = err
	}
	return true
}

// Shareable reports whether err, met before a connection was made, is the
// host's rather than the request's: DNS, a refused or unreachable address,
// TLS, a proxy, a network timeout, or the request's deadline after it
// waited MinTimeoutWait or more. A cancellation is never shared.
func Shareable(err error, waited time.Duration) bool {
	class, _ := netclass.Classify(err)
	switch class {
	case netclass.DNS, netclass.Connect, netclass.TLS, netclass.Proxy:
		return true
	case netclass.Timeout:
		if errors.Is(err, context.DeadlineExceeded) {
			return waited >= MinTimeoutWait
		}
		return true
	}
	return false
}

// begin returns what a request to key should do: fail with err (a failure
// met before, or its ctx ended while it waited), probe (it is the first:
// make the connection and settle the host), or go ahead.
func (m *Memo) begin(ctx context.Context, key string) (h *host, probe bool, err error) {
	for {
		m.mu.Lock()
		h = m.hosts[key]
		switch {
		case h == nil:
			h = &host{probing: make(chan struct{})}
			m.hosts[key] = h
			m.mu.Unlock()
			return h, true, nil
		case h.err != nil:
			m.mu.Unlock()
			m.Shared.Add(1)
			return nil, false, h.err
		case h.ok:
			m.mu.Unlock()
			return h, false, nil
		}
		wait := h.probing
		m.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
}

// settle ends the first attempt: a connection was made (err nil) or err
// was met.
func (m *Memo) settle(h *host, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if h.probing == nil {
		return
	}
	if err != nil {
		h.err = err
	} else {
		h.ok = true
	}
	close(h.probing)
	h.probing = nil
}

// release ends the first attempt without an outcome (it was canceled, or
// failed for a reason that is the request's): the next request probes.
func (m *Memo) release(key string, h *host) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if h.probing == nil {
		return
	}
	if m.hosts[key] == h {
		delete(m.hosts, key)
	}
	close(h.probing)
	h.probing = nil
}

// Transport wraps next so that, for requests whose context carries a Memo,
// a host's connection failure is met once: a failure after net/http began
// to get a connection and before it had one (next must be, or wrap, an
// *http.Transport, which reports both through httptrace). The first request to a host
// goes alone; requests to the same host wait until it has a connection
// (then they all go ahead) or a failure (then they all get it). id names
// what, besides the host, decides whether a connection can be made (the
// client, its TLS trust and client certificate, its proxy): requests
// through transports with other settings do not share.
func Transport(next http.RoundTripper, id string) http.RoundTripper {
	return &transport{next: next, id: id}
}

type transport struct {
	next http.RoundTripper
	id   string
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	m := FromContext(req.Context())
	if m == nil {
		return t.next.RoundTrip(req)
	}
	key := t.id + "\x00" + req.URL.Scheme + "://" + canonicalAddr(req.URL)
	h, probe, err := m.begin(req.Context(), key)
	if err != nil {
		return nil, err
	}
	if !probe {
		return t.next.RoundTrip(req)
	}
	// The clock starts when net/http starts getting a connection: time
	// spent before (a rate limiter, say) is not the host's.
	var got atomic.Bool
	var connecting atomic.Int64
	trace := &httptrace.ClientTrace{
		GetConn: func(string) { connecting.CompareAndSwap(0, time.Now().UnixNano()) },
		GotConn: func(httptrace.GotConnInfo) {
			if got.CompareAndSwap(false, true) {
				m.settle(h, nil)
			}
		},
	}
	resp, err := t.next.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	start := connecting.Load()
	switch {
	case got.Load():
	case err == nil:
		// A round tripper that reports no connections answered.
		m.settle(h, nil)
	case start != 0 && Shareable(err, time.Since(time.Unix(0, start))):
		m.settle(h, err)
	default:
		// It failed before trying to connect, or for a reason of its own.
		m.release(key, h)
	}
	return resp, err
}

// CloseIdleConnections passes on to the wrapped transport.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// canonicalAddr is the URL's host:port, with the scheme's default port.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}
