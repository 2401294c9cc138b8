package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/imgupd/imgupd/present/phrase"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"

	"github.com/imgupd/imgupd/clusters"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/present/blockkit"
	"github.com/imgupd/imgupd/report"
)

// Clock is the time the schedules run by; tests give a fake one.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Results of a scheduled run (imgupd_summary_runs_total's result label).
const (
	runPosted    = "posted"    // a new message: the first run, a new channel, or a lost message
	runDigest    = "digest"    // the daily digest's new message
	runUpdated   = "updated"   // the states changed: the message updated in place
	runUnchanged = "unchanged" // nothing written to Slack
	runError     = "error"     // the scan or the message failed
)

// scheduleRunBudget bounds a run's Slack writes and state save after its scan.
const scheduleRunBudget = 2 * time.Minute

// scheduler runs the schedules while the bot leads. Its state is only touched by its own
// goroutine.
type scheduler struct {
	b      *Bot
	list   []*compiledSchedule
	fleet  commands.FleetScanner
	store  StateStore
	clock  Clock
	states map[string]ScheduleState
	nextAt map[string]time.Time

	stopOnce sync.Once
	stopCh   chan struct{}
	done     chan struct{}
}

// newScheduler loads the schedules' state; an error is a setup error (the store's RBAC).
func (b *Bot) newScheduler(ctx context.Context) (*scheduler, error) {
	list, err := compileSchedules(b.cfg.Schedules)
	if err != nil {
		return nil, &SetupError{What: "scheduled summaries", Msg: "a schedule does not parse", Err: err}
	}
	if b.cfg.Service == nil || b.cfg.Service.Fleet == nil && len(b.cfg.Service.Clusters) == 0 {
		return nil, &SetupError{What: "scheduled summaries", Msg: "schedules are configured but the bot has no fleet scanner"}
	}
	states, err := b.cfg.State.Load(ctx)
	if err != nil {
		return nil, err
	}
	if p, ok := b.cfg.State.(interface {
		Prune(context.Context, []string) error
	}); ok {
		if err := p.Prune(ctx, scheduleNames(list)); err != nil {
			b.cfg.Log.Warn("could not forget the state of schedules no longer configured", "error", err)
		}
	}
	s := &scheduler{b: b, list: list, fleet: b.cfg.Service.Fleet, store: b.cfg.State, clock: b.cfg.Clock, states: states,
		nextAt: map[string]time.Time{}, stopCh: make(chan struct{}), done: make(chan struct{})}
	now := s.clock.Now()
	for _, c := range list {
		from := now
		if st, ok := states[c.Name]; ok && !st.LastRun.IsZero() && st.LastRun.Before(now) {
			from = st.LastRun // a run missed while no replica led is made at once
		}
		s.nextAt[c.Name] = c.next(from)
	}
	return s, nil
}

// start runs the loop until stop.
func (s *scheduler) start() {
	names := scheduleNames(s.list)
	s.b.cfg.Log.Info("running the scheduled summaries", "schedules", names)
	go func() {
		defer close(s.done)
		s.loop()
	}()
}

// stop ends the loop after the run in progress, if any, and waits for it. The apps' states
// it exposed go with it: a replica that no longer leads shows none (the new leader's scans do).
func (s *scheduler) stop() {
	s.stopOnce.Do(func() { close(s.stopCh) })
	<-s.done
	s.b.cfg.Metrics.appStates.reset()
}

// cluster is the cluster label of the scans' metrics: serve --cluster, else DefaultClusterLabel.
func (s *scheduler) cluster() string {
	if c := s.b.cfg.Service.Cluster; c != "" {
		return c
	}
	return DefaultClusterLabel
}

func (s *scheduler) loop() {
	for {
		select {
		case <-s.stopCh:
			return
		default:
		}
		now := s.clock.Now()
		var due []*compiledSchedule
		first := time.Time{}
		for _, c := range s.list {
			at := s.nextAt[c.Name]
			if !at.After(now) {
				due = append(due, c)
			} else if first.IsZero() || at.Before(first) {
				first = at
			}
		}
		if len(due) == 0 {
			if first.IsZero() {
				<-s.stopCh // no schedule ever runs again (an expression with no next time)
				return
			}
			select {
			case <-s.stopCh:
				return
			case <-s.clock.After(first.Sub(now)):
			}
			continue
		}
		for _, c := range due {
			select {
			case <-s.stopCh:
				return
			default:
			}
			s.run(c, now)
			s.nextAt[c.Name] = c.next(now)
		}
	}
}

// run makes one run of a schedule: scan, remember, summarize, write what changed, alert, save.
func (s *scheduler) run(c *compiledSchedule, now time.Time) {
	b := s.b
	log := b.cfg.Log.With("schedule", c.Name)
	started := time.Now()
	ctx, cancel := context.WithTimeout(b.work, fleet.DefaultDeadline+scheduleRunBudget)
	defer cancel()
	st := s.states[c.Name]
	result := runError
	defer func() {
		b.cfg.Metrics.summaryDuration.WithLabelValues(c.Name).Set(time.Since(started).Seconds())
		if result == "abandoned" {
			return
		}
		b.cfg.Metrics.summaryRuns.WithLabelValues(c.Name, result).Inc()
		b.cfg.Metrics.summaryLastRun.WithLabelValues(c.Name).Set(float64(now.Unix()))
		if result != runError {
			b.cfg.Metrics.summaryLastSuccess.WithLabelValues(c.Name).Set(float64(now.Unix()))
		}
	}()

	// Posted for the whole channel: only what everyone there may see is read and counted.
	scanStarted := time.Now()
	var res *fleet.Result
	var across *clusters.Scan
	var err error
	if len(b.cfg.Service.Clusters) > 0 {
		// Several clusters: each the channel's rules grant (of the schedule's), in parallel;
		// one that cannot be read is one unknown line.
		if across, err = b.cfg.Service.ChannelScan(ctx, c.Channel, c.Clusters, c.Scope); err == nil {
			res = across.Result
		}
	} else {
		res, err = s.fleet.Scan(ctx, b.cfg.Service.Policy.ChannelScope(c.Channel, c.Scope))
	}
	if b.work.Err() != nil {
		result = "abandoned" // shutting down: the next leader makes this run
		return
	}
	scanResult := "ok"
	switch {
	case err != nil:
		scanResult = "error"
	case res.Partial:
		scanResult = "partial"
	}
	b.cfg.Metrics.scanDuration.WithLabelValues(s.cluster(), scanResult).Observe(time.Since(scanStarted).Seconds())
	if err != nil {
		log.Error("scheduled summary: the scan failed", "error", err)
		st.LastRun = now
		s.save(ctx, c, st, log)
		return
	}
	shown := res
	transitions := st.Memory.Observe(shown, now)
	b.cfg.Metrics.appStates.record(c.Name, s.cluster(), shown, &st.Memory, now)
	sum := fleet.Summarize(shown, &st.Memory)
	if across != nil {
		sum = across.Summary(&st.Memory)
	}
	for _, sc := range sum.Counts {
		b.cfg.Metrics.summaryApps.WithLabelValues(c.Name, string(sc.State)).Set(float64(sc.Count))
	}
	p := blockkit.Summary(sum, blockkit.SummaryOptions{Title: "Image Updater · " + c.Name, Buttons: true})
	msg := p.Message

	result, err = s.write(ctx, c, &st, sum.Hash, msg, p.Thread, now)
	if err != nil {
		log.Error("scheduled summary: writing to Slack failed", "result", result, "error", err)
		result = runError
	}
	if c.AlertsOn() {
		s.alert(ctx, c, transitions, shown, log)
	}
	st.LastRun = now
	s.save(ctx, c, st, log)
	log.Info("scheduled summary", "result", result, "apps", sum.Total, "need_attention", sum.NeedAttention(), "worst", string(sum.Worst),
		"partial", sum.Partial, "transitions", len(transitions), "duration_ms", time.Since(started).Milliseconds())
}

func (s *scheduler) save(ctx context.Context, c *compiledSchedule, st ScheduleState, log *slog.Logger) {
	s.states[c.Name] = st
	// The state must be saved even when the run ran out of time: a message posted and not
	// remembered would be posted again by the next run.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
	defer cancel()
	if err := s.store.Save(sctx, c.Name, st); err != nil {
		log.Error("scheduled summary: saving its state failed; the next run (or the next leader) may post again", "error", err)
		s.b.cfg.Metrics.summaryStateErrors.Inc()
	}
}

// write brings the schedule's message and thread to the summary with as few Slack writes as it
// takes: nothing when the states did not change and no digest is due; a new message the first
// time, in a new channel, for the daily digest or when the old one is gone; else chat.update of
// the message and of each page whose content changed (new pages are posted as replies; pages
// no longer needed are emptied, kept for later).
func (s *scheduler) write(ctx context.Context, c *compiledSchedule, st *ScheduleState, hash string, msg blockkit.Message, thread []blockkit.Message, now time.Time) (string, error) {
	day := c.day(now)
	fresh := st.MessageTS == "" || st.ChannelSpec != c.Channel
	switch {
	case fresh:
		return runPosted, s.postNew(ctx, c, st, hash, msg, thread, day)
	case c.Digest == DigestDaily && st.DigestDay != day:
		return runDigest, s.postNew(ctx, c, st, hash, msg, thread, day)
	case hash == st.Hash:
		return runUnchanged, nil
	}
	if err := s.b.updateMessage(ctx, st.Channel, st.MessageTS, msg); err != nil {
		if isSlackError(err, "message_not_found", "cant_update_message", "channel_not_found", "edit_window_closed") {
			s.b.cfg.Log.Warn("the scheduled summary's message is gone; posting a new one", "schedule", c.Name, "error", errorCode(err))
			return runPosted, s.postNew(ctx, c, st, hash, msg, thread, day)
		}
		return runUpdated, err
	}
	st.Hash = hash
	var errs []error
	for i, m := range thread {
		h := pageHash(m)
		if i < len(st.Thread) {
			if st.Thread[i].Hash == h {
				continue
			}
			err := s.b.updateMessage(ctx, st.Channel, st.Thread[i].TS, m)
			if err == nil {
				st.Thread[i].Hash = h
				continue
			}
			if !isSlackError(err, "message_not_found", "cant_update_message") {
				errs = append(errs, err)
				continue
			}
			st.Thread = st.Thread[:i] // that reply is gone: post this page and the next ones anew
		}
		_, ts, err := s.b.postIn(ctx, st.Channel, st.MessageTS, m)
		if err != nil {
			errs = append(errs, err)
			break
		}
		st.Thread = append(st.Thread, Page{TS: ts, Hash: h})
	}
	empty := emptyPage()
	eh := pageHash(empty)
	for i := len(thread); i < len(st.Thread); i++ {
		if st.Thread[i].Hash == eh {
			continue
		}
		if err := s.b.updateMessage(ctx, st.Channel, st.Thread[i].TS, empty); err != nil {
			errs = append(errs, err)
			continue
		}
		st.Thread[i].Hash = eh
	}
	return runUpdated, errors.Join(errs...)
}

// postNew posts the summary as a new message and its pages in its thread, and remembers them.
func (s *scheduler) postNew(ctx context.Context, c *compiledSchedule, st *ScheduleState, hash string, msg blockkit.Message, thread []blockkit.Message, day string) error {
	ch, ts, err := s.b.postIn(ctx, c.Channel, "", msg)
	if err != nil {
		return err
	}
	st.ChannelSpec, st.Channel, st.MessageTS, st.Thread, st.Hash, st.DigestDay = c.Channel, ch, ts, nil, hash, day
	for _, m := range thread {
		_, rts, err := s.b.postIn(ctx, ch, ts, m)
		if err != nil {
			return err
		}
		st.Thread = append(st.Thread, Page{TS: rts, Hash: pageHash(m)})
	}
	return nil
}

// alert posts one message per app that went bad or recovered.
func (s *scheduler) alert(ctx context.Context, c *compiledSchedule, transitions []report.Transition, shown *fleet.Result, log *slog.Logger) {
	byApp := map[string]report.AppResult{}
	for _, a := range shown.Apps {
		byApp[a.Key()] = a
	}
	var more []string
	posted := 0
	for _, t := range transitions {
		bad, recovered := t.Alerting()
		if !bad && !recovered {
			continue
		}
		if posted >= maxAlertsPerRun {
			// An alert storm (a registry down, a bad CR) must not take minutes of a channel's
			// pace: the rest goes in one message, the summary has them all.
			more = append(more, fmt.Sprintf("`%s` %s → %s", t.Key(), phrase.Title(t.From), phrase.Title(t.To)))
			kind := "alert"
			if recovered {
				kind = "recovery"
			}
			s.b.cfg.Metrics.summaryAlerts.WithLabelValues(c.Name, kind).Inc()
			continue
		}
		posted++
		r, ok := byApp[t.Key()]
		if !ok {
			r = report.AppResult{Cluster: t.Cluster, App: t.App, State: t.To, Code: t.Code}
		}
		kind := "alert"
		if recovered {
			kind = "recovery"
		}
		m := blockkit.Alert(t, r)
		ch := s.alertChannel(ctx, c, r, log)
		_, _, err := s.b.postIn(ctx, ch, "", m)
		if err != nil && ch != c.Channel {
			log.Warn("the alert channel refused the alert; posting it in the schedule's channel", "app", t.App.String(), "channel", ch, "error", errorCode(err))
			_, _, err = s.b.postIn(ctx, c.Channel, "", m)
		}
		if err != nil {
			log.Error("scheduled summary: posting an alert failed", "app", t.App.String(), "kind", kind, "error", err)
			continue
		}
		s.b.cfg.Metrics.summaryAlerts.WithLabelValues(c.Name, kind).Inc()
	}
	if len(more) > 0 {
		text := fmt.Sprintf(":rotating_light: %d more apps changed in this run of %s (the summary lists them all): %s", len(more), c.Name, strings.Join(more, ", "))
		if r := []rune(text); len(r) > blockkit.MaxSectionText-100 {
			text = string(r[:blockkit.MaxSectionText-100]) + "…"
		}
		if _, _, err := s.b.postIn(ctx, c.Channel, "", blockkit.Notice(text)); err != nil {
			log.Error("scheduled summary: posting the grouped alerts failed", "count", len(more), "error", err)
		}
	}
}

// maxAlertsPerRun is how many alerts one run posts one by one; more go in one message.
const maxAlertsPerRun = 10

// alertChannel is where an app's alert goes: the channel its imgupd.io/alert-channel annotation
// names, when the rules that admit everyone there grant the app; else the schedule's channel.
func (s *scheduler) alertChannel(ctx context.Context, c *compiledSchedule, r report.AppResult, log *slog.Logger) string {
	apps := s.b.cfg.Service.AppsOf(r.Cluster)
	if apps == nil {
		return c.Channel
	}
	app, err := apps.Application(ctx, r.App.Namespace, r.App.Name)
	if err != nil || app == nil {
		return c.Channel
	}
	want := app.Annotations[AlertChannelAnnotation]
	if want == "" || want == c.Channel {
		return c.Channel
	}
	project := r.Project
	if project == "" {
		project = app.Spec.Project
	}
	if project == "" {
		project = "default"
	}
	if !commands.ValidChannel(want) || !s.b.cfg.Service.Policy.ChannelVisible(want)(commands.Scope{Namespace: r.App.Namespace, Project: project, Cluster: r.Cluster}) {
		log.Warn("an Application's alert channel is not granted this app by the access rules; alerting in the schedule's channel",
			"app", r.App.String(), "annotation", AlertChannelAnnotation, "channel", want)
		return c.Channel
	}
	return want
}

// postIn posts a message in a channel (thread "" = top level), in the channel's queue, and
// returns the channel ID and ts Slack answers.
func (b *Bot) postIn(ctx context.Context, channel, thread string, m blockkit.Message) (string, string, error) {
	opts := msgOptions(m, thread)
	var ch, ts string
	err := b.del.post(ctx, channel, "chat.postMessage", func(ctx context.Context) error {
		var err error
		ch, ts, err = b.api.PostMessageContext(ctx, channel, opts...)
		return err
	})
	if err != nil {
		return "", "", fmt.Errorf("chat.postMessage to %s: %w", channel, err)
	}
	if ch == "" {
		ch = channel
	}
	return ch, ts, nil
}

// updateMessage rewrites one of the bot's messages in place (chat.update), in the channel's queue.
func (b *Bot) updateMessage(ctx context.Context, channel, ts string, m blockkit.Message) error {
	opts := []slack.MsgOption{slack.MsgOptionText(m.Text, false), slack.MsgOptionBlocks(m.Blocks.BlockSet...)}
	err := b.del.post(ctx, channel, "chat.update", func(ctx context.Context) error {
		_, _, _, err := b.api.UpdateMessageContext(ctx, channel, ts, opts...)
		return err
	})
	if err != nil {
		return fmt.Errorf("chat.update of %s in %s: %w", ts, channel, err)
	}
	return nil
}

// emptyPage replaces a thread reply the summary no longer needs.
func emptyPage() blockkit.Message {
	return blockkit.Notice("_(Nothing more here: the summary above is shorter now.)_")
}

func pageHash(m blockkit.Message) string {
	data, _ := json.Marshal(m)
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:8])
}
