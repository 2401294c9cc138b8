package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Health is what /healthz and /readyz report.
type Health struct {
	mu        sync.Mutex
	connected bool
	since     time.Time
	draining  bool
	// standby: leader election runs and another replica (leader, "" when
	// not known yet) holds the Lease.
	standby bool
	leader  string
	now     func() time.Time
}

func newHealth() *Health { return &Health{now: time.Now, since: time.Now()} }

func (h *Health) setConnected(up bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.connected != up {
		h.connected, h.since = up, h.now()
	}
}

func (h *Health) setDraining() {
	h.mu.Lock()
	h.draining = true
	h.mu.Unlock()
}

func (h *Health) setStandby(leader string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.standby, h.leader = true, leader
}

func (h *Health) setLeading() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.standby, h.leader = false, ""
}

// Ready reports whether the bot can answer commands, and why not. A
// standby is ready: it is healthy and waits for the Lease, with no socket.
func (h *Health) Ready() (bool, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.standby && h.leader != "":
		return true, "standby: replica " + h.leader + " holds the leader Lease and answers Slack"
	case h.standby:
		return true, "standby: waiting for the leader Lease"
	case h.draining:
		return false, "shutting down: finishing the commands in flight"
	case !h.connected:
		return false, fmt.Sprintf("the Slack Socket Mode connection is down (since %s)", h.since.UTC().Format(time.RFC3339))
	}
	return true, "connected to Slack since " + h.since.UTC().Format(time.RFC3339)
}

// Connected reports whether the socket is up.
func (h *Health) Connected() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.connected
}

// OpsHandler serves /healthz (the process answers), /readyz (the socket is
// up and the bot is not shutting down) and /metrics.
func OpsHandler(h *Health, m *Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		ok, why := h.Ready()
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		fmt.Fprintln(w, why)
	})
	mux.Handle("GET /metrics", m.Handler())
	return mux
}

// ServeOps serves OpsHandler on ln until ctx is done, then shuts down.
func ServeOps(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("ops server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("ops server shutdown", "error", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("ops server: %w", err)
	}
	return nil
}
