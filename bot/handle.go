package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/present/blockkit"
)

// Reactions on a mention or a direct message: working, then the outcome.
const (
	reactWorking = "eyes"
	reactHealthy = "white_check_mark"
	reactBroken  = "x"
	reactUnknown = "grey_question"
	reactDenied  = "no_entry"
	reactPrivate = "lock"      // answered to the asker alone: the channel is not told how it went
	reactBusy    = "hourglass" // the asker already has as many commands running as one person may
)

// invocation is one command being answered, wherever it came from.
type invocation struct {
	// endTurn gives the asker's turn back (see Bot.spawn); the answer is ready when it is
	// delivered, so a person who reads it and runs the command again is not told "busy".
	endTurn  func()
	via      string // slash, mention, dm, button
	envelope string
	text     string // what the user typed (or the button's command)
	pr       commands.Principal
	channel  string
	thread   string // the thread to answer in ("" = top level)
	respURL  string // slash commands and buttons: for ephemeral answers
	mention  string // the mention's or direct message's ts, for reactions
	// inThread is true when the command came from inside an existing thread (a reply, or a
	// message in one): only there does Slack show an ephemeral message in the thread.
	inThread bool
	// kindKnown is false when what Slack sent does not say what kind of conversation this is
	// (a mention; a private channel named "privategroup"): the bot looks it up.
	kindKnown bool
	// fromEphemeral is true for a click on a message only the clicker sees: its answer is
	// theirs alone too.
	fromEphemeral bool
	start         time.Time
	cmd           commands.Command // nil until parsed, or when the input is not a command
}

// onSlash acks at once: a parse error or help in the ack itself, else a
// progress note; the work runs in the background.
func (b *Bot) onSlash(sm *socketmode.Client, req socketmode.Request, sc slack.SlashCommand) {
	if !b.seen.first("env:" + req.EnvelopeID) {
		b.cfg.Metrics.duplicates.Inc()
		b.ack(sm, req, nil)
		return
	}
	inv := &invocation{via: "slash", envelope: req.EnvelopeID, text: sc.Text, channel: sc.ChannelID, respURL: sc.ResponseURL, start: time.Now(),
		pr: commands.Principal{User: sc.UserID, UserName: sc.UserName, Channel: sc.ChannelID}}
	inv.kindKnown = classify(&inv.pr, sc.ChannelName)
	cmd, err := commands.Parse(sc.Text)
	inv.cmd = cmd
	switch {
	case err != nil:
		res := invalid(err)
		b.ack(sm, req, ephemeralPayload(blockkit.Notice(res.Text)))
		b.finish(inv, res, nil)
	case b.draining.Load():
		res := commands.Result{Kind: commands.KindError, Text: restarting}
		b.ack(sm, req, ephemeralPayload(blockkit.Notice(res.Text)))
		b.finish(inv, res, nil)
	default:
		b.ack(sm, req, ephemeralPayload(blockkit.Progress(commands.ProgressText(cmd))))
		b.spawn(inv, func(ctx context.Context) { b.run(ctx, inv) })
	}
}

// onEventsAPI acks, drops redeliveries and bot messages, and answers
// mentions in their thread and direct messages in the conversation.
func (b *Bot) onEventsAPI(sm *socketmode.Client, req socketmode.Request, data any) {
	ev, ok := data.(slackevents.EventsAPIEvent)
	var inv *invocation
	if ok {
		inv = b.eventInvocation(req.EnvelopeID, ev.InnerEvent.Data)
	}
	if inv != nil && b.draining.Load() {
		// Not acked: Slack delivers the event again, to the next instance.
		b.cfg.Log.Info("shutting down: "+inv.via+" left unacked for Slack to redeliver", "envelope", req.EnvelopeID)
		return
	}
	b.ack(sm, req, nil)
	if !ok {
		return
	}
	var eventID string
	if cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent); ok {
		eventID = cb.EventID
	}
	if !b.seen.first("env:"+req.EnvelopeID, prefixed("event:", eventID)) {
		b.cfg.Metrics.duplicates.Inc()
		b.cfg.Log.Debug("dropped a redelivered event", "event_id", eventID, "retry_attempt", req.RetryAttempt)
		return
	}
	if inv != nil {
		b.answer(inv)
	}
}

// eventInvocation turns an inner event into the command to answer: a
// mention (answered in its thread), or a person's message in a direct
// message with the bot (answered in the conversation, in its thread if it
// was a thread reply). Anything else — the bot's own messages, edits and
// other subtypes, other events — is nil.
func (b *Bot) eventInvocation(envelope string, data any) *invocation {
	self := b.self.Load()
	fromSelf := func(user string) bool { return self != nil && user == self.UserID }
	switch m := data.(type) {
	case *slackevents.AppMentionEvent:
		if m.BotID != "" || m.User == "" || fromSelf(m.User) {
			return nil
		}
		thread := m.ThreadTimeStamp
		if thread == "" {
			thread = m.TimeStamp
		}
		inv := &invocation{via: "mention", envelope: envelope, text: m.Text, channel: m.Channel, thread: thread, mention: m.TimeStamp, start: time.Now(),
			inThread: m.ThreadTimeStamp != "", pr: commands.Principal{User: m.User, Channel: m.Channel}}
		inv.kindKnown = classify(&inv.pr, "")
		return inv
	case *slackevents.MessageEvent:
		if m.ChannelType != "im" || m.SubType != "" || m.BotID != "" || m.User == "" || fromSelf(m.User) {
			return nil
		}
		return &invocation{via: "dm", envelope: envelope, text: m.Text, channel: m.Channel, thread: m.ThreadTimeStamp, mention: m.TimeStamp, start: time.Now(),
			inThread: m.ThreadTimeStamp != "", kindKnown: true, pr: commands.Principal{User: m.User, Channel: m.Channel, DM: true}}
	}
	return nil
}

// onInteraction answers the report's buttons in the report's thread.
func (b *Bot) onInteraction(sm *socketmode.Client, req socketmode.Request, cb slack.InteractionCallback) {
	if b.draining.Load() {
		b.cfg.Log.Info("shutting down: interaction left unacked", "envelope", req.EnvelopeID)
		return
	}
	b.ack(sm, req, nil)
	if cb.Type != slack.InteractionTypeBlockActions || len(cb.ActionCallback.BlockActions) == 0 {
		return
	}
	a := cb.ActionCallback.BlockActions[0]
	if !b.seen.first("env:"+req.EnvelopeID, prefixed("action:"+cb.User.ID+":", a.ActionTs)) {
		b.cfg.Metrics.duplicates.Inc()
		return
	}
	verb := map[string]string{blockkit.ActionRerun: "diagnose", blockkit.ActionTags: "tags", blockkit.ActionLogs: "logs", blockkit.ActionExplain: "explain",
		blockkit.ActionSummaryRerun: "summary"}[a.ActionID]
	if verb == "" {
		return
	}
	text := verb + " " + a.Value
	if a.ActionID == blockkit.ActionSummaryRerun {
		// The value is the summary's scope as JSON: typed back as the command, so the same
		// strict parser checks it (a forged value is refused, not run).
		text = summaryButtonText(a.Value)
	}
	channel := cb.Channel.ID
	if channel == "" {
		channel = cb.Container.ChannelID
	}
	thread := cb.Message.ThreadTimestamp
	if thread == "" {
		thread = cb.Message.Timestamp
	}
	if thread == "" {
		thread = cb.Container.MessageTs
	}
	// Decided for the one who clicks, wherever the message came from.
	inv := &invocation{via: "button", envelope: req.EnvelopeID, text: text, channel: channel, thread: thread, respURL: cb.ResponseURL, start: time.Now(),
		inThread: cb.Message.ThreadTimestamp != "", fromEphemeral: cb.Container.IsEphemeral,
		pr: commands.Principal{User: cb.User.ID, UserName: cb.User.Name, Channel: channel}}
	inv.kindKnown = classify(&inv.pr, cb.Channel.Name)
	b.answer(inv)
}

// answer parses and runs a mention's or a button's command in the
// background (a slash command is parsed before its ack).
func (b *Bot) answer(inv *invocation) {
	// Parsed first (it reads nothing): spawn needs to know whether it takes one of the asker's turns.
	cmd, err := commands.Parse(inv.text)
	inv.cmd = cmd
	b.spawn(inv, func(ctx context.Context) {
		b.react(ctx, inv, reactWorking, true)
		if err != nil {
			b.reply(ctx, inv, invalid(err))
			return
		}
		b.run(ctx, inv)
	})
}

// reply delivers a result and finishes the invocation.
func (b *Bot) reply(ctx context.Context, inv *invocation, res commands.Result) {
	if inv.endTurn != nil {
		inv.endTurn()
	}
	b.finish(inv, res, b.deliver(ctx, inv, res))
}

const restarting = "imgupd is restarting; run the command again in a minute."

func invalid(err error) commands.Result {
	text := err.Error()
	var pe *commands.ParseError
	if errors.As(err, &pe) {
		text = pe.Error()
	}
	return commands.Result{Kind: commands.KindInvalid, Text: text + "\n\n" + commands.HelpText()}
}

// run carries out the parsed command and delivers the answer.
func (b *Bot) run(ctx context.Context, inv *invocation) {
	pr, err := b.principal(ctx, inv.pr, inv.kindKnown)
	if err != nil {
		b.cfg.Log.Warn("cannot resolve the asker's groups or channel; rules that need them do not apply", "user", inv.pr.User, "error", err)
	}
	inv.pr = pr
	if inv.via == "slash" && inv.respURL != "" && fleetAnswer(inv.cmd) {
		ctx = fleet.WithProgress(ctx, b.progressNote(ctx, inv))
	}
	res := b.cfg.Service.Handle(ctx, pr, inv.cmd)
	if err != nil && res.Kind == commands.KindDenied {
		// The refusal may come from a lookup that failed, not from the rules.
		res.Text += "\n_(imgupd could not check everything the rules name: " + errorCode(err) + "; an admin sees the details in its log.)_"
	}
	b.cfg.Metrics.observeReport(res.Report)
	b.reply(ctx, inv, res)
}

// finish counts, reacts and audits.
func (b *Bot) finish(inv *invocation, res commands.Result, deliverErr error) {
	verb := commands.Verb(inv.cmd)
	b.cfg.Metrics.commands.WithLabelValues(verb, res.Outcome()).Inc()
	b.cfg.Metrics.commandDuration.WithLabelValues(verb).Observe(time.Since(inv.start).Seconds())
	if inv.mention != "" {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(b.work), 10*time.Second)
		defer cancel()
		b.react(ctx, inv, reactWorking, false)
		b.react(ctx, inv, outcomeReaction(res, deliverErr), true)
	}
	b.audit(inv, res, deliverErr)
}

func outcomeReaction(res commands.Result, deliverErr error) string {
	a := answerOf(res)
	switch {
	case deliverErr != nil:
		return reactBroken
	case a.askerOnly:
		return a.reaction
	case res.Private != "":
		return reactPrivate
	}
	return a.reaction
}

// audit writes the command's audit line: who, where, what, the result,
// how long.
func (b *Bot) audit(inv *invocation, res commands.Result, deliverErr error) {
	attrs := []any{
		"via", inv.via, "user", inv.pr.User, "user_name", inv.pr.UserName,
		"channel", inv.channel, "channel_name", inv.pr.ChannelName, "thread", inv.thread,
		"command", commands.Verb(inv.cmd), "text", clip(inv.text, 200), "result", res.Outcome(),
		"duration_ms", time.Since(inv.start).Milliseconds(), "envelope", inv.envelope,
	}
	if res.App.Name != "" {
		attrs = append(attrs, "app", res.App.String())
	}
	if res.Rule != "" {
		attrs = append(attrs, "rule", res.Rule)
	}
	if res.Private != "" {
		attrs = append(attrs, "private", true)
	}
	attrs = append(attrs, answerOf(res).audit...)
	if deliverErr != nil {
		attrs = append(attrs, "delivery_error", deliverErr.Error())
	}
	b.cfg.Audit.Info("command", attrs...)
}

// principal adds what the policy needs: the user's groups and, when what Slack sent does not
// say it, what kind of conversation this is and its name (conversations.info, cached). A failed
// lookup leaves the kind unknown: then only rules naming the channel by ID apply.
func (b *Bot) principal(ctx context.Context, pr commands.Principal, kindKnown bool) (commands.Principal, error) {
	pol := b.cfg.Service.Policy
	if pol == nil {
		return pr, nil
	}
	var errs []error
	for _, g := range pol.Groups() {
		members, err := b.groups.get(ctx, g, func(ctx context.Context) ([]string, error) {
			var m []string
			err := b.del.call(ctx, "usergroups.users.list", func(ctx context.Context) error {
				var err error
				m, err = b.api.GetUserGroupMembersContext(ctx, g)
				return err
			})
			return m, err
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("user group %s: %w", g, err))
			continue
		}
		if slices.Contains(members, pr.User) {
			pr.Groups = append(pr.Groups, g)
		}
	}
	if !kindKnown {
		conv, err := b.convs.get(ctx, pr.Channel, func(ctx context.Context) (conversation, error) {
			var ch *slack.Channel
			err := b.del.call(ctx, "conversations.info", func(ctx context.Context) error {
				var err error
				ch, err = b.api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: pr.Channel})
				return err
			})
			if err != nil {
				return conversation{}, err
			}
			return conversation{name: ch.Name, im: ch.IsIM, mpim: ch.IsMpIM}, nil
		})
		switch {
		case err != nil:
			pr.KindUnknown = true
			errs = append(errs, fmt.Errorf("conversation %s: %w", pr.Channel, err))
		case conv.im:
			pr.DM = true
		case conv.mpim:
			pr.GroupDM = true
		default:
			pr.ChannelName = conv.name
		}
	}
	return pr, errors.Join(errs...)
}

// conversation is what the bot needs to know of a conversation Slack did not describe.
type conversation struct {
	name     string
	im, mpim bool
}

// classify reads the kind of a conversation from its ID and from the name Slack sent with a
// slash command or a click ("" for a mention): a direct message (D…, or "directmessage"), a
// group direct message ("mpdm-…"), else a channel of that name. It reports false when they do
// not tell (no name; "privategroup"): the bot then looks the conversation up.
func classify(pr *commands.Principal, name string) bool {
	switch {
	case isDM(pr.Channel) || name == "directmessage":
		pr.DM = true
		return true
	case strings.HasPrefix(name, "mpdm-"):
		pr.GroupDM = true
		return true
	case name == "" || name == "privategroup":
		return false
	}
	pr.ChannelName = name
	return true
}

// isDM reports whether a conversation ID is a direct message (D…).
func isDM(channel string) bool { return strings.HasPrefix(channel, "D") }

// prefixed is prefix+id, or "" (no key) when id is empty.
func prefixed(prefix, id string) string {
	if id == "" {
		return ""
	}
	return prefix + id
}

// clip bounds an audit attribute to n bytes (plus "…").
func clip(s string, n int) string { return textutil.ClipBytes(s, n) }

// summaryButtonText is the command a summary's Re-run button stands for: its value, the scope
// and the cluster as JSON (blockkit.SummaryButton), read strictly (unknown fields are refused)
// and typed as `summary …`, which the parser then reads as any typed command. A value that is
// not one becomes a command the parser refuses, so the clicker is told.
func summaryButtonText(value string) string {
	if len(value) > blockkit.MaxButtonValue {
		return "summary --invalid-button-value"
	}
	dec := json.NewDecoder(strings.NewReader(value))
	dec.DisallowUnknownFields()
	var v blockkit.SummaryButton
	if err := dec.Decode(&v); err != nil || dec.More() || v.Cluster != "" && !commands.ValidClusterName(v.Cluster) {
		return "summary --invalid-button-value"
	}
	return commands.Summary{Scope: v.Scope, Cluster: v.Cluster}.String()
}
