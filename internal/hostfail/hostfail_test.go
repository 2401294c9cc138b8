package hostfail

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imgupd/imgupd/internal/netclass"

	"github.com/imgupd/imgupd/lab/loopback"
)

// countingDialer counts the connections a transport tries to make.
func countingTransport(n *atomic.Int64) *http.Transport {
	d := &net.Dialer{}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		n.Add(1)
		return d.DialContext(ctx, network, addr)
	}
	return tr
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	addr, err := loopback.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

func get(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// TestRefusedHostIsDialledOnce: twenty requests at once to a refusing
// host, in one scope, make one connection attempt, and each gets the
// refusal as its own request would have (same class, its own URL).
func TestRefusedHostIsDialledOnce(t *testing.T) {
	var dials atomic.Int64
	c := &http.Client{Transport: Transport(countingTransport(&dials), "test")}
	addr := closedAddr(t)
	m := New()
	ctx := NewContext(context.Background(), m)
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = get(ctx, c, fmt.Sprintf("http://%s/repo-%d.git/info/refs", addr, i))
		}()
	}
	wg.Wait()
	if n := dials.Load(); n != 1 {
		t.Errorf("%d connection attempts, want 1", n)
	}
	for i, err := range errs {
		if class, _ := netclass.Classify(err); class != netclass.Connect {
			t.Errorf("request %d: %v (class %v), want a refused connection", i, err, class)
		}
		if want := fmt.Sprintf("repo-%d.git", i); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("request %d: %v does not name its own URL", i, err)
		}
	}
	if m.Shared.Load() != 19 {
		t.Errorf("%d answered from the memo, want 19", m.Shared.Load())
	}

	// Without a scope, or in another scope, every request tries.
	dials.Store(0)
	for range 3 {
		_ = get(context.Background(), c, "http://"+addr+"/")
	}
	_ = get(NewContext(context.Background(), New()), c, "http://"+addr+"/")
	if n := dials.Load(); n != 4 {
		t.Errorf("outside the scope: %d connection attempts, want 4", n)
	}
}

// TestReachableHostIsNotHeldBack: once a connection is made, requests to
// the host go ahead, each getting the server's own answer; other hosts
// and other transport settings are apart.
func TestReachableHostIsNotHeldBack(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	var dials atomic.Int64
	base := countingTransport(&dials)
	c := &http.Client{Transport: Transport(base, "a")}
	ctx := NewContext(context.Background(), New())
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := get(ctx, c, srv.URL+"/ok"); err != nil {
				failed.Add(1)
			}
		}()
	}
	wg.Wait()
	if failed.Load() != 0 {
		t.Fatalf("%d requests to a reachable host failed", failed.Load())
	}
	// A refusing host under the same scope does not taint the good one.
	if err := get(ctx, c, "http://"+closedAddr(t)+"/"); err == nil {
		t.Fatal("a closed port answered")
	}
	if err := get(ctx, c, srv.URL+"/ok"); err != nil {
		t.Errorf("the reachable host after another failed: %v", err)
	}
	// The same address through a transport with other settings probes
	// on its own (another closed host than the one above).
	addr, err := loopback.ClosedAddrOn("127.0.0.2")
	if err != nil {
		t.Fatal(err)
	}
	dials.Store(0)
	_ = get(ctx, c, "http://"+addr+"/")
	_ = get(ctx, &http.Client{Transport: Transport(base, "b")}, "http://"+addr+"/")
	if n := dials.Load(); n != 2 {
		t.Errorf("two transports' settings: %d attempts, want 2", n)
	}
}

// TestTLSFailureIsShared: a server whose certificate is not trusted fails
// the handshake once per scope.
func TestTLSFailureIsShared(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	var dials atomic.Int64
	c := &http.Client{Transport: Transport(countingTransport(&dials), "test")}
	ctx := NewContext(context.Background(), New())
	for i := range 5 {
		err := get(ctx, c, fmt.Sprintf("%s/v2/repo-%d/tags/list", srv.URL, i))
		if class, _ := netclass.Classify(err); class != netclass.TLS {
			t.Errorf("request %d: %v, want a TLS failure", i, err)
		}
	}
	if n := dials.Load(); n != 1 {
		t.Errorf("%d connection attempts, want 1", n)
	}
}

// TestCanceledAttemptIsNotShared: a request canceled before it connected
// says nothing about the host: the next request tries.
func TestCanceledAttemptIsNotShared(t *testing.T) {
	var dials atomic.Int64
	block := make(chan struct{})
	tr := countingTransport(&dials)
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		select {
		case <-block:
			return nil, errors.New("unreachable")
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	c := &http.Client{Transport: Transport(tr, "test")}
	scope := NewContext(context.Background(), New())
	ctx, cancel := context.WithCancel(scope)
	cancel()
	if err := get(ctx, c, srv.URL); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled request: %v", err)
	}
	close(block)
	c.Transport = Transport(countingTransport(&dials), "test") // same settings, a dialer that connects
	if err := get(scope, c, srv.URL); err != nil {
		t.Errorf("after a canceled attempt: %v", err)
	}
}

func TestShareable(t *testing.T) {
	dns := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "git.invalid", IsNotFound: true}}
	cases := []struct {
		name   string
		err    error
		waited time.Duration
		want   bool
	}{
		{"DNS", dns, 0, true},
		{"a dial error of no network class", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("x")}, 0, false},
		{"deadline after waiting", context.DeadlineExceeded, 2 * MinTimeoutWait, true},
		{"deadline at once", context.DeadlineExceeded, MinTimeoutWait / 100, false},
		{"canceled", context.Canceled, time.Minute, false},
		{"other", errors.New("401"), 0, false},
	}
	for _, c := range cases {
		if got := Shareable(c.err, c.waited); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	m := New()
	if m.Fail("k", errors.New("401"), 0) || m.Err("k") != nil {
		t.Error("a request's own failure was recorded for the host")
	}
	if !m.Fail("k", dns, 0) || m.Err("k") != dns {
		t.Error("a DNS failure was not recorded")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestFailureBeforeConnectingIsNotShared: a request that failed before
// net/http tried to connect (a rate limiter ran out of its time, say)
// says nothing about the host.
func TestFailureBeforeConnectingIsNotShared(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	var calls atomic.Int64
	inner := http.DefaultTransport.(*http.Transport).Clone()
	limited := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if calls.Add(1) == 1 {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}}
		}
		return inner.RoundTrip(r)
	})
	c := &http.Client{Transport: Transport(limited, "test")}
	ctx := NewContext(context.Background(), New())
	if err := get(ctx, c, srv.URL); err == nil {
		t.Fatal("the first request should fail")
	}
	if err := get(ctx, c, srv.URL); err != nil {
		t.Errorf("a failure before any connection attempt was shared: %v", err)
	}
}
