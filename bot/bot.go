// Package bot is imgupd in Slack: the Socket Mode loop (ack every envelope
// at once, drop redeliveries), the /imgupd slash command, @imgupd mentions
// in threads, direct messages, the report's buttons, delivery within Slack's rate limits,
// and the health, readiness and metrics of the process. It diagnoses
// nothing itself: commands.Service does, and present/blockkit renders.
package bot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/imgupd/imgupd/commands"
)

// Bot is one Slack connection answering commands.
type Bot struct {
	cfg    Config
	api    *slack.Client
	scopes *scopeRecorder
	health *Health
	del    *delivery
	seen   *dedup
	sem    chan struct{}
	users  *perUser

	groups *ttlCache[[]string]
	convs  *ttlCache[conversation]

	inflight sync.WaitGroup
	draining atomic.Bool
	self     atomic.Pointer[Identity]
	// work is the parent of every command's context: it outlives the
	// shutdown signal so in-flight commands finish, and is cancelled when
	// the shutdown deadline passes.
	work       context.Context
	cancelWork context.CancelFunc
}

// New builds a bot; Run connects it.
func New(c Config) *Bot {
	c = c.withDefaults()
	rec := &scopeRecorder{base: http.DefaultTransport}
	opts := []slack.Option{
		slack.OptionAppLevelToken(c.AppToken.Reveal()),
		slack.OptionHTTPClient(&http.Client{Transport: rec, Timeout: 30 * time.Second}),
	}
	if c.APIURL != "" {
		opts = append(opts, slack.OptionAPIURL(c.APIURL))
	}
	work, cancel := context.WithCancel(context.Background())
	return &Bot{
		cfg: c, api: slack.New(c.BotToken.Reveal(), opts...), scopes: rec, health: newHealth(),
		del: newDelivery(c), seen: newDedup(c.DedupTTL), sem: make(chan struct{}, c.MaxConcurrent),
		users:  &perUser{max: min(c.MaxConcurrentPerUser, c.MaxConcurrent), held: map[string]int{}},
		groups: newTTLCache[[]string](c.CacheTTL), convs: newTTLCache[conversation](c.CacheTTL),
		work: work, cancelWork: cancel,
	}
}

// Health is the bot's liveness and readiness, for OpsHandler.
func (b *Bot) Health() *Health { return b.health }

// Metrics are the bot's metrics, for OpsHandler.
func (b *Bot) Metrics() *Metrics { return b.cfg.Metrics }

// Run verifies the tokens, connects and answers commands until ctx is
// done; then it stops taking commands, finishes those in flight (up to
// ShutdownTimeout) and returns nil. It returns an error when the tokens
// are wrong or Slack refuses the connection for good.
func (b *Bot) Run(ctx context.Context) error {
	defer b.cancelWork()
	id, err := b.Verify(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped while starting: not a setup error
		}
		return err
	}
	b.self.Store(&id)
	b.cfg.Log.Info("Slack tokens verified", "team", id.Team, "team_id", id.TeamID, "bot_user", id.UserID, "scopes", id.Scopes)

	// The schedules run where the Slack connection does: in the leader only.
	var sched *scheduler
	if len(b.cfg.Schedules) > 0 {
		if sched, err = b.newScheduler(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		sched.start()
		defer func() {
			if !b.draining.Load() {
				b.cancelWork() // not a shutdown: a run in progress is abandoned
			}
			sched.stop()
		}()
	}

	smOpts := []socketmode.Option{}
	if b.cfg.PingInterval > 0 {
		smOpts = append(smOpts, socketmode.OptionPingInterval(b.cfg.PingInterval))
	}
	sm := socketmode.New(b.api, smOpts...)
	sockCtx, stopSocket := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSocket()
	sockErr := make(chan error, 1)
	go func() { sockErr <- sm.RunContext(sockCtx) }()

	stop := ctx.Done()
	var drained <-chan struct{}
	var deadline <-chan time.Time
	for {
		select {
		case <-stop:
			stop = nil
			b.draining.Store(true)
			b.health.setDraining()
			b.cfg.Log.Info("shutting down: finishing the commands in flight", "timeout", b.cfg.ShutdownTimeout.String())
			done := make(chan struct{})
			go func() {
				b.inflight.Wait()
				if sched != nil {
					sched.stop() // after the scheduled run in progress, if any
				}
				close(done)
			}()
			drained = done
			deadline = time.After(b.cfg.ShutdownTimeout)
		case <-drained:
			b.cfg.Log.Info("every command finished; disconnecting")
			return nil
		case <-deadline:
			b.cfg.Log.Warn("shutdown deadline passed: abandoning the commands still running")
			b.cancelWork()
			return nil
		case err := <-sockErr:
			b.setSocket(false)
			if b.draining.Load() {
				<-drained
				return nil
			}
			if err == nil || errors.Is(err, context.Canceled) {
				return errors.New("the Slack Socket Mode connection ended")
			}
			return tokenError("app-level token", "IMGUPD_SLACK_APP_TOKEN", err)
		case evt := <-sm.Events:
			b.onEvent(sm, evt)
		}
	}
}

// onEvent acks first, then hands the work to a goroutine.
func (b *Bot) onEvent(sm *socketmode.Client, evt socketmode.Event) {
	switch evt.Type {
	case socketmode.EventTypeConnecting:
		b.setSocket(false)
		b.cfg.Log.Debug("connecting to Slack")
		return
	case socketmode.EventTypeConnected:
		b.setSocket(true)
		b.cfg.Metrics.connections.Inc()
		b.cfg.Log.Info("Socket Mode connected")
		return
	case socketmode.EventTypeHello:
		b.setSocket(true)
		return
	case socketmode.EventTypeConnectionError, socketmode.EventTypeIncomingError, socketmode.EventTypeInvalidAuth:
		b.setSocket(false)
		b.cfg.Log.Warn("Socket Mode connection problem; slack-go reconnects with backoff", "event", string(evt.Type), "error", fmt.Sprint(evt.Data))
		return
	case socketmode.EventTypeErrorBadMessage:
		b.cfg.Log.Warn("Slack sent a frame that cannot be read; it cannot be acked")
		return
	}
	if evt.Request == nil || evt.Request.EnvelopeID == "" {
		return
	}
	req := *evt.Request
	b.cfg.Metrics.envelopes.WithLabelValues(req.Type).Inc()
	switch evt.Type {
	case socketmode.EventTypeSlashCommand:
		cmd, ok := evt.Data.(slack.SlashCommand)
		if !ok {
			b.ack(sm, req, nil)
			return
		}
		b.onSlash(sm, req, cmd)
	case socketmode.EventTypeEventsAPI:
		b.onEventsAPI(sm, req, evt.Data)
	case socketmode.EventTypeInteractive:
		cb, ok := evt.Data.(slack.InteractionCallback)
		if !ok {
			b.ack(sm, req, nil)
			return
		}
		b.onInteraction(sm, req, cb)
	default:
		b.ack(sm, req, nil)
	}
}

// setSocket records whether the Socket Mode connection is up, for /readyz
// and the imgupd_socket_connected metric.
func (b *Bot) setSocket(up bool) {
	b.health.setConnected(up)
	if up {
		b.cfg.Metrics.connected.Set(1)
	} else {
		b.cfg.Metrics.connected.Set(0)
	}
}

func (b *Bot) ack(sm *socketmode.Client, req socketmode.Request, payload any) {
	var err error
	if payload == nil {
		err = sm.Ack(req)
	} else {
		err = sm.Ack(req, payload)
	}
	if err != nil {
		b.cfg.Log.Warn("ack failed", "envelope", req.EnvelopeID, "error", err)
	}
}

// spawn runs one command's work in the background, bounded by
// MaxConcurrent, tracked for shutdown. A command that reads the cluster
// takes one of its asker's MaxConcurrentPerUser turns, running or waiting:
// past them it is answered "busy" at once. A command that waits too long for
// its turn, or panics, is still answered, counted and audited.
func (b *Bot) spawn(inv *invocation, f func(ctx context.Context)) {
	b.inflight.Add(1)
	go func() {
		defer b.inflight.Done()
		ctx, cancel := context.WithTimeout(b.work, b.cfg.CommandTimeout)
		defer cancel()
		if commands.CommandReadsCluster(inv.cmd) {
			held, ok := b.users.take(inv.pr.User)
			if !ok {
				b.busy(ctx, inv, held)
				return
			}
			user := inv.pr.User
			inv.endTurn = sync.OnceFunc(func() { b.users.release(user) })
			defer inv.endTurn()
		}
		select {
		case b.sem <- struct{}{}:
		case <-ctx.Done():
			b.fail(inv, fmt.Sprintf(":hourglass: imgupd is busy: %d commands are running and this one waited %s for its turn. Try again in a minute.",
				b.cfg.MaxConcurrent, b.cfg.CommandTimeout))
			return
		}
		defer func() { <-b.sem }()
		b.cfg.Metrics.inFlight.Inc()
		defer b.cfg.Metrics.inFlight.Dec()
		defer func() {
			// A bug in one command must not take the bot (and every other
			// command in flight) down.
			if p := recover(); p != nil {
				b.cfg.Log.Error("a command panicked; the bot goes on", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				b.fail(inv, ":boom: imgupd hit an internal error on this command; it is logged. Please report it with the time: "+
					time.Now().UTC().Format(time.RFC3339))
			}
		}()
		f(ctx)
	}()
}

// busy answers a command its asker has no turn left for, to them alone.
func (b *Bot) busy(ctx context.Context, inv *invocation, held int) {
	what := "1 command that reads the cluster"
	if held != 1 {
		what = fmt.Sprintf("%d commands that read the cluster", held)
	}
	b.reply(ctx, inv, commands.Result{Kind: commands.KindBusy, Command: inv.cmd,
		Text: fmt.Sprintf(":hourglass: imgupd is busy for you: you already have %s running or waiting (at most %d at once per person, so that one person cannot take every turn). Run this again when one has answered.",
			what, b.users.max)})
}

// perUser counts each user's commands running or waiting for a turn.
type perUser struct {
	max  int
	mu   sync.Mutex
	held map[string]int
}

// take gives the user a turn, or reports false and how many they hold.
func (p *perUser) take(user string) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.held[user]
	if n >= p.max {
		return n, false
	}
	p.held[user] = n + 1
	return n + 1, true
}

func (p *perUser) release(user string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held[user] <= 1 {
		delete(p.held, user)
		return
	}
	p.held[user]--
}

// fail answers a command that could not be carried out.
func (b *Bot) fail(inv *invocation, text string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(b.work), 30*time.Second)
	defer cancel()
	b.reply(ctx, inv, commands.Result{Kind: commands.KindError, Text: text})
}

func (b *Bot) apiError(method string, err error) {
	b.cfg.Metrics.apiErrors.WithLabelValues(method, errorCode(err)).Inc()
}

// dedup remembers envelopes for a while to drop Slack's redeliveries.
type dedup struct {
	ttl  time.Duration
	mu   sync.Mutex
	seen map[string]time.Time
	next time.Time
}

func newDedup(ttl time.Duration) *dedup { return &dedup{ttl: ttl, seen: map[string]time.Time{}} }

// first reports whether none of the keys was seen before, and remembers
// them all.
func (d *dedup) first(keys ...string) bool {
	now := time.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	if now.After(d.next) {
		for k, t := range d.seen {
			if now.Sub(t) > d.ttl {
				delete(d.seen, k)
			}
		}
		d.next = now.Add(d.ttl / 4)
	}
	fresh := true
	for _, k := range keys {
		if k == "" {
			continue
		}
		if t, ok := d.seen[k]; ok && now.Sub(t) <= d.ttl {
			fresh = false
		}
		d.seen[k] = now
	}
	return fresh
}

// ttlCache caches lookups (group members, channel names) for a while.
type ttlCache[V any] struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]ttlEntry[V]
}

type ttlEntry[V any] struct {
	v  V
	at time.Time
}

func newTTLCache[V any](ttl time.Duration) *ttlCache[V] {
	return &ttlCache[V]{ttl: ttl, m: map[string]ttlEntry[V]{}}
}

func (c *ttlCache[V]) get(ctx context.Context, key string, load func(context.Context) (V, error)) (V, error) {
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && time.Since(e.at) < c.ttl {
		return e.v, nil
	}
	v, err := load(ctx)
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	c.m[key] = ttlEntry[V]{v: v, at: time.Now()}
	c.mu.Unlock()
	return v, nil
}
