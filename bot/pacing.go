package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"golang.org/x/time/rate"
)

// delivery sends to Slack: one queue per channel (messages to a channel go
// out one at a time, in order, paced by a limiter), and every call waits
// out Slack's Retry-After on 429 and retries.
type delivery struct {
	rate       rate.Limit
	burst      int
	maxRetries int
	metrics    *Metrics

	mu       sync.Mutex
	channels map[string]*channelQueue
	// blocked holds, per Web API method, when Slack allows it again
	// (Slack's limits are per method and workspace).
	blocked map[string]time.Time
}

type channelQueue struct {
	turn    chan struct{} // a one-slot semaphore: waiting senders queue on it in order
	limiter *rate.Limiter
	used    time.Time
}

func newDelivery(c Config) *delivery {
	return &delivery{rate: c.ChannelRate, burst: c.ChannelBurst, maxRetries: c.MaxRetries, metrics: c.Metrics,
		channels: map[string]*channelQueue{}, blocked: map[string]time.Time{}}
}

func (d *delivery) queue(channel string) *channelQueue {
	d.mu.Lock()
	defer d.mu.Unlock()
	q := d.channels[channel]
	if q == nil {
		q = &channelQueue{turn: make(chan struct{}, 1), limiter: rate.NewLimiter(d.rate, d.burst)}
		d.channels[channel] = q
		// Forget queues idle for an hour, so the map does not grow forever.
		for id, o := range d.channels {
			if len(o.turn) == 0 && time.Since(o.used) > time.Hour && id != channel {
				delete(d.channels, id)
			}
		}
	}
	q.used = time.Now()
	return q
}

// post runs a message-posting call in the channel's queue, paced.
func (d *delivery) post(ctx context.Context, channel, method string, call func(context.Context) error) error {
	q := d.queue(channel)
	select {
	case q.turn <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("%s to %s: waiting in the channel's queue: %w", method, channel, ctx.Err())
	}
	defer func() { <-q.turn }()
	if err := q.limiter.Wait(ctx); err != nil {
		return fmt.Errorf("%s to %s: %w", method, channel, err)
	}
	return d.call(ctx, method, call)
}

// call runs one Web API call, retrying after Retry-After on 429.
func (d *delivery) call(ctx context.Context, method string, call func(context.Context) error) error {
	for attempt := 0; ; attempt++ {
		if err := d.waitUnblocked(ctx, method); err != nil {
			return err
		}
		err := call(ctx)
		if err == nil {
			return nil
		}
		var rl *slack.RateLimitedError
		if !errors.As(err, &rl) {
			d.metrics.apiErrors.WithLabelValues(method, errorCode(err)).Inc()
			return err
		}
		d.metrics.apiErrors.WithLabelValues(method, "ratelimited").Inc()
		if attempt >= d.maxRetries {
			return fmt.Errorf("%s: still rate limited after %d retries: %w", method, attempt, err)
		}
		wait := rl.RetryAfter
		if wait <= 0 {
			wait = time.Second
		}
		d.block(method, wait)
		d.metrics.rateLimited.WithLabelValues(method).Add(wait.Seconds())
	}
}

func (d *delivery) block(method string, wait time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if until := time.Now().Add(wait); until.After(d.blocked[method]) {
		d.blocked[method] = until
	}
}

func (d *delivery) waitUnblocked(ctx context.Context, method string) error {
	d.mu.Lock()
	until := d.blocked[method]
	d.mu.Unlock()
	wait := time.Until(until)
	if wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: waiting %s for Slack's Retry-After: %w", method, wait.Round(time.Second), ctx.Err())
	}
}

// errorCode is the Slack error code of a failed call, for metrics.
func errorCode(err error) string {
	var se slack.SlackErrorResponse
	if errors.As(err, &se) {
		return se.Err
	}
	var sc slack.StatusCodeError
	if errors.As(err, &sc) {
		return fmt.Sprintf("http_%d", sc.Code)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return "timeout"
	}
	return "transport"
}

// isSlackError reports whether err is one of Slack's error codes.
func isSlackError(err error, codes ...string) bool {
	var se slack.SlackErrorResponse
	return errors.As(err, &se) && slices.Contains(codes, se.Err)
}
