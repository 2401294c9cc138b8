// Package slacklab is a local fake Slack for end-to-end tests and benchmarks of
// the imgupd bot.
//
// It is slack-go's slacktest server extended with the Web API methods the bot
// uses (every route is registered through a slacktest.Binder, so it wins over
// slacktest's defaults) and with its own Socket Mode websocket, which keeps one
// current connection, sends WebSocket pings like Slack does, records every ack
// and never loses frames after a reconnect.
//
// A test points slack-go at it with
//
//	api := slack.New(botToken, slack.OptionAPIURL(srv.APIURL()), slack.OptionAppLevelToken(appToken))
//	client := socketmode.New(api)
//
// then pushes envelopes built by SlashCommand, AppMention and BlockAction with
// Send, and inspects Acks, Calls and Messages.
package slacklab

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack/slacktest"
)

// Fixed identities of the fake workspace, bot and app.
const (
	TeamID     = "T0TESTTEAM"
	TeamDomain = "acme"
	BotUserID  = "U0BOTUSER1"
	BotID      = "B0BOTID0001"
	AppID      = "A0TESTAPP01"
)

// ErrClosed is returned by the waiting methods once the server is closed.
var ErrClosed = errors.New("slacklab: server closed")

// Channel is a conversation known to the fake workspace. IsMPIM is a group direct message
// (its Name is then "mpdm-…", as Slack names them); IsExtShared a Slack Connect channel.
type Channel struct {
	ID, Name                  string
	IsMember, IsPrivate, IsIM bool
	IsMPIM, IsExtShared       bool
}

// Config configures a Server. The zero value is usable: empty tokens accept
// any non-empty token.
type Config struct {
	// BotToken (xoxb-…) is the only token Web API calls may carry; another
	// one answers invalid_auth, none answers not_authed. Empty accepts any.
	BotToken string
	// AppToken (xapp-…) is the only Bearer token apps.connections.open
	// accepts; another one answers invalid_auth, none answers not_authed.
	// Empty accepts any.
	AppToken string
	// Scopes are sent as the X-OAuth-Scopes header ("a, b") on every Web API
	// answer. nil leaves the header out.
	Scopes []string
	// Channels are the known conversations. Posting to an unknown one answers
	// channel_not_found, to one with IsMember=false not_in_channel.
	Channels []Channel
	// Groups maps a user group ID (S…) to its member user IDs, served by
	// usergroups.users.list.
	Groups map[string][]string
	// PingInterval is how often the server sends a WebSocket ping on the
	// current connection (default 5s). A first ping goes out on connect.
	PingInterval time.Duration
}

// Ack is one frame the client wrote on the websocket, normally a Socket Mode
// ack {"envelope_id":"…","payload":{…}}.
type Ack struct {
	EnvelopeID string
	Payload    json.RawMessage // nil when the ack carries no payload
	At         time.Time       // when the server read it
	Raw        string          // the frame as received
}

// Server is a running fake Slack. All methods are safe for concurrent use.
type Server struct {
	cfg  Config
	ts   *slacktest.Server
	base string // "http://host:port"
	done chan struct{}

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every state change
	closed  bool

	// Socket Mode.
	conns   int
	cur     *wsConn
	open    map[*wsConn]struct{}
	tickets int
	acks    []Ack
	sentAt  map[string]time.Time
	pongs   int

	// Web API.
	calls   []Call
	msgs    []*Message
	byKey   map[string]*Message // channel + "|" + ts
	tsUsed  map[string]bool
	tsSeq   int
	rate    map[string]*rateRule
	fail    map[string]*failRule
	latency time.Duration
}

type wsConn struct {
	c    *websocket.Conn
	wmu  sync.Mutex // serialises data frame writes
	done chan struct{}
}

// Start starts a fake Slack on a random local port.
func Start(cfg Config) *Server {
	if cfg.PingInterval <= 0 {
		cfg.PingInterval = 5 * time.Second
	}
	s := &Server{
		cfg:     cfg,
		done:    make(chan struct{}),
		changed: make(chan struct{}),
		open:    map[*wsConn]struct{}{},
		sentAt:  map[string]time.Time{},
		byKey:   map[string]*Message{},
		tsUsed:  map[string]bool{},
		rate:    map[string]*rateRule{},
		fail:    map[string]*failRule{},
	}
	s.ts = slacktest.NewTestServer(s.routes)
	s.base = "http://" + s.ts.ServerAddr
	s.ts.Start()
	return s
}

// APIURL is the value for slack.OptionAPIURL; it ends with "/".
func (s *Server) APIURL() string { return s.base + "/" }

// Close closes every websocket connection and stops the server. Pending
// waits return ErrClosed.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.done)
	conns := make([]*wsConn, 0, len(s.open))
	for c := range s.open {
		conns = append(conns, c)
	}
	s.cur = nil
	s.notifyLocked()
	s.mu.Unlock()
	for _, c := range conns {
		_ = c.c.Close()
	}
	s.ts.Stop()
}

// notifyLocked wakes every waiter. s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitFor blocks until cond (called with s.mu held) is true, ctx ends or the
// server is closed.
func (s *Server) waitFor(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ok, closed, ch := cond(), s.closed, s.changed
		s.mu.Unlock()
		switch {
		case ok:
			return nil
		case closed:
			return ErrClosed
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}

// routes registers every route on slacktest. It runs as a slacktest.Binder,
// before slacktest's defaults, so these handlers win.
func (s *Server) routes(c slacktest.Customize) {
	c.Handle("/apps.connections.open", s.api("apps.connections.open", authApp, s.appsConnectionsOpen))
	c.Handle("/link/", slacktest.Websocket(s.serveWS))
	c.Handle("/ws", slacktest.Websocket(s.serveWS)) // replaces slacktest's lossy /ws
	c.Handle("/response/", s.responseURL)
	for method, h := range map[string]apiHandler{
		"auth.test":             s.authTest,
		"chat.postMessage":      s.postMessage,
		"chat.postEphemeral":    s.postEphemeral,
		"chat.update":           s.update,
		"reactions.add":         s.reactionsAdd,
		"reactions.remove":      s.reactionsRemove,
		"conversations.info":    s.conversationsInfo,
		"usergroups.users.list": s.usergroupsUsersList,
		"users.info":            s.usersInfo,
	} {
		c.Handle("/"+method, s.api(method, authBot, h))
	}
	c.Handle("/", s.notFound)
}

// --- Socket Mode ---------------------------------------------------------

// serveWS runs one websocket connection: it becomes the current connection,
// gets pinged, and everything it sends is recorded as an Ack.
func (s *Server) serveWS(c *websocket.Conn) {
	wc := &wsConn{c: c, done: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.conns++
	s.cur = wc
	s.open[wc] = struct{}{}
	s.notifyLocked()
	s.mu.Unlock()

	defer func() {
		close(wc.done)
		s.mu.Lock()
		delete(s.open, wc)
		if s.cur == wc {
			s.cur = nil
		}
		s.notifyLocked()
		s.mu.Unlock()
	}()

	c.SetPongHandler(func(string) error {
		s.mu.Lock()
		s.pongs++
		s.notifyLocked()
		s.mu.Unlock()
		return nil
	})
	go s.ping(wc)

	for {
		typ, data, err := c.ReadMessage()
		if err != nil {
			return
		}
		if typ != websocket.TextMessage {
			continue
		}
		a := Ack{At: time.Now(), Raw: string(data)}
		var v struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(data, &v) == nil {
			a.EnvelopeID, a.Payload = v.EnvelopeID, v.Payload
		}
		s.mu.Lock()
		s.acks = append(s.acks, a)
		s.notifyLocked()
		s.mu.Unlock()
	}
}

// ping sends a WebSocket ping now and then every PingInterval until the
// connection ends.
func (s *Server) ping(wc *wsConn) {
	t := time.NewTicker(s.cfg.PingInterval)
	defer t.Stop()
	for {
		if err := wc.c.WriteControl(websocket.PingMessage, []byte("slacklab"), time.Now().Add(time.Second)); err != nil {
			return
		}
		select {
		case <-wc.done:
			return
		case <-t.C:
		}
	}
}

// Connections is the number of websocket connections opened so far.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// WaitConnections waits until at least n connections were opened and the
// latest one is open (it is the current connection, ready for Send).
func (s *Server) WaitConnections(ctx context.Context, n int) error {
	return s.waitFor(ctx, func() bool { return s.conns >= n && s.cur != nil })
}

// Send writes frame as one text frame to the current connection, waiting for
// one if none is open. It does not retry on another connection if the write
// fails. If frame carries an envelope_id, SentAt records when it was written.
func (s *Server) Send(ctx context.Context, frame string) error {
	var wc *wsConn
	if err := s.waitFor(ctx, func() bool { wc = s.cur; return wc != nil }); err != nil {
		return err
	}
	var env struct {
		EnvelopeID string `json:"envelope_id"`
	}
	_ = json.Unmarshal([]byte(frame), &env)

	wc.wmu.Lock()
	defer wc.wmu.Unlock()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	_ = wc.c.SetWriteDeadline(deadline)

	now := time.Now()
	recorded := false
	if env.EnvelopeID != "" {
		s.mu.Lock()
		if _, seen := s.sentAt[env.EnvelopeID]; !seen {
			s.sentAt[env.EnvelopeID], recorded = now, true
		}
		s.mu.Unlock()
	}
	err := wc.c.WriteMessage(websocket.TextMessage, []byte(frame))
	if err != nil && recorded {
		s.mu.Lock()
		delete(s.sentAt, env.EnvelopeID)
		s.mu.Unlock()
	}
	return err
}

// Drop closes the current connection abruptly (TCP close, no close frame),
// like a dropped socket.
func (s *Server) Drop() {
	s.mu.Lock()
	wc := s.cur
	s.cur = nil
	s.notifyLocked()
	s.mu.Unlock()
	if wc != nil {
		_ = wc.c.Close()
	}
}

// SendDisconnect sends a {"type":"disconnect","reason":reason,…} frame on the
// current connection; slack-go then reconnects.
func (s *Server) SendDisconnect(ctx context.Context, reason string) error {
	return s.Send(ctx, mustJSON(map[string]any{
		"type":       "disconnect",
		"reason":     reason,
		"debug_info": map[string]any{"host": "slacklab"},
	}))
}

// Acks returns every frame received from clients, in arrival order.
func (s *Server) Acks() []Ack {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.acks)
}

// WaitAck waits for the first ack of envelopeID.
func (s *Server) WaitAck(ctx context.Context, envelopeID string) (Ack, error) {
	var a Ack
	err := s.waitFor(ctx, func() bool {
		i := slices.IndexFunc(s.acks, func(x Ack) bool { return x.EnvelopeID == envelopeID })
		if i >= 0 {
			a = s.acks[i]
		}
		return i >= 0
	})
	return a, err
}

// AckCount is how many acks of envelopeID were received.
func (s *Server) AckCount(envelopeID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, a := range s.acks {
		if a.EnvelopeID == envelopeID {
			n++
		}
	}
	return n
}

// SentAt is when Send first wrote a frame carrying envelopeID (zero if never).
// Ack.At minus SentAt is the bot's ack latency.
func (s *Server) SentAt(envelopeID string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sentAt[envelopeID]
}

// mustJSON marshals v, which must be marshalable.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("slacklab: " + err.Error())
	}
	return string(b)
}

// bearer returns the token of an "Authorization: Bearer …" header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) >= 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}
