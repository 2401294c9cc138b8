package bot

import (
	"log/slog"
	"time"

	"golang.org/x/time/rate"

	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/internal/secret"
)

// Secret is a token. It never prints: every fmt verb, JSON, text and slog
// show "[redacted]". Reveal returns the value for the one place that sends
// it. It is the module's one secret type (package internal/secret), with
// the bot's mask.
type Secret = secret.Secret[secret.Redacted]

// DefaultMaxConcurrentPerUser is how many commands that read the cluster one person may have
// running or waiting at once, by default.
const DefaultMaxConcurrentPerUser = 2

// Config is what the bot needs. Tokens come from the environment or the
// configuration file, never from the command line.
type Config struct {
	// BotToken (xoxb-…) calls the Web API; AppToken (xapp-…, scope
	// connections:write) opens the Socket Mode connection.
	BotToken, AppToken Secret
	// APIURL overrides https://slack.com/api/ (tests, proxies).
	APIURL string

	// Service carries out the commands; its Policy is the access control.
	Service *commands.Service

	// MaxConcurrent bounds the commands carried out at once; more wait
	// (default 16).
	MaxConcurrent int
	// MaxConcurrentPerUser bounds the commands that read the cluster one
	// person may have running or waiting at once; more are answered "busy"
	// (default 2; at most MaxConcurrent).
	MaxConcurrentPerUser int
	// CommandTimeout bounds one command, delivery included (default 2 min).
	CommandTimeout time.Duration
	// ProgressAfter is how long a slash command's fleet answer (summary, where) runs before its
	// "Scanning …" note says how far the scan is (default 5 s); ProgressEvery the time before it
	// says so again (default 25 s). See progressNote.
	ProgressAfter, ProgressEvery time.Duration
	// ShutdownTimeout bounds the wait for in-flight commands on shutdown
	// (default 25 s, under Kubernetes' default 30 s grace period).
	ShutdownTimeout time.Duration
	// ChannelRate and ChannelBurst pace messages to one channel (default
	// 1 per second with bursts of 4, as Slack allows for chat.postMessage).
	ChannelRate  rate.Limit
	ChannelBurst int
	// MaxRetries bounds the retries of one Slack call after a 429 (default 5).
	MaxRetries int
	// DedupTTL is how long an envelope is remembered to drop redeliveries
	// (default 15 min).
	DedupTTL time.Duration
	// CacheTTL is how long user group members and channel names are
	// cached (default 5 min).
	CacheTTL time.Duration
	// PingInterval is how long Socket Mode waits for Slack's ping before
	// it reconnects (default slack-go's 30 s).
	PingInterval time.Duration

	// Schedules are the scheduled summaries (checked with ValidateSchedules); the bot runs
	// them while it runs, so with leader election only the leader does. They scan with
	// Service.Fleet and keep their state in State (default: in memory, lost on restart; in a
	// cluster a ConfigMapStore); Clock drives them (default: the real clock).
	Schedules []Schedule
	State     StateStore
	Clock     Clock

	// Log receives the bot's operational log; Audit one JSON line per
	// command. Both default to discarding.
	Log, Audit *slog.Logger
	// Metrics default to a fresh registry.
	Metrics *Metrics
	// MaxAppSeries bounds the apps with a series of imgupd_app_state (default
	// DefaultMaxAppSeries); the others are counted in imgupd_app_state_dropped_total.
	MaxAppSeries int
}

func (c Config) withDefaults() Config {
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = 16
	}
	if c.MaxConcurrentPerUser <= 0 {
		c.MaxConcurrentPerUser = DefaultMaxConcurrentPerUser
	}
	if c.CommandTimeout <= 0 {
		c.CommandTimeout = 2 * time.Minute
	}
	if c.ProgressAfter <= 0 {
		c.ProgressAfter = 5 * time.Second
	}
	if c.ProgressEvery <= 0 {
		c.ProgressEvery = 25 * time.Second
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = 25 * time.Second
	}
	if c.ChannelRate <= 0 {
		c.ChannelRate = 1
	}
	if c.ChannelBurst <= 0 {
		c.ChannelBurst = 4
	}
	if c.MaxRetries <= 0 {
		c.MaxRetries = 5
	}
	if c.DedupTTL <= 0 {
		c.DedupTTL = 15 * time.Minute
	}
	if c.CacheTTL <= 0 {
		c.CacheTTL = 5 * time.Minute
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Audit == nil {
		c.Audit = slog.New(slog.DiscardHandler)
	}
	if c.Metrics == nil {
		c.Metrics = NewMetrics()
	}
	c.Metrics.SetMaxAppSeries(c.MaxAppSeries)
	if c.State == nil {
		c.State = &MemoryStore{}
	}
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	return c
}
