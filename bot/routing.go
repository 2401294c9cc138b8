package bot

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/slack-go/slack"

	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/present/blockkit"
	"github.com/imgupd/imgupd/report"
)

// answer is how the bot answers one result: what it posts, to whom, how it reacts and what the
// audit line adds. answerOf is the one place the bot tells the kinds of results apart.
type answer struct {
	// messages renders the message and those for its thread (only the delivery needs them).
	messages func() (first blockkit.Message, rest []blockkit.Message)
	// public results (reports, tag tables, log lines) are posted for everyone; the others answer
	// only the asker after a slash command.
	public bool
	// askerOnly (a refusal, "busy") goes to the asker alone wherever it was asked, and so does
	// onButtonAskerOnly (not a command, an error, not found) after a button's click.
	askerOnly, onButtonAskerOnly bool
	// reaction is the mention's reaction once the answer is delivered (unless it is private).
	reaction string
	// audit is what the audit line adds for this result (its root cause included).
	audit []any
}

// answerOf is how the bot answers res.
func answerOf(res commands.Result) answer {
	a := answer{reaction: reactHealthy}
	var msgs func() []blockkit.Message
	switch {
	case res.Kind == commands.KindReport && res.Report != nil:
		a.public = true
		a.messages = func() (blockkit.Message, []blockkit.Message) {
			p := blockkit.Report(res.Report, blockkit.Options{Buttons: true, Cluster: res.Cluster})
			return p.Message, p.Thread
		}
		switch res.Report.Verdict {
		case report.VerdictHealthy:
			a.reaction = reactHealthy
		case report.VerdictBroken:
			a.reaction = reactBroken
		default:
			a.reaction = reactUnknown
		}
		a.audit = append([]any{"state", string(res.Report.State)}, rootCause(res)...)
		return a
	case res.Kind == commands.KindSummary && res.Summary != nil:
		a.public = true
		a.messages = func() (blockkit.Message, []blockkit.Message) {
			p := blockkit.Summary(*res.Summary, blockkit.SummaryOptions{Buttons: true, Cluster: res.Cluster})
			return p.Message, p.Thread
		}
		s := res.Summary
		a.audit = append(rootCause(res), "apps", s.Total, "worst", string(s.Worst), "need_attention", s.NeedAttention())
		return a
	case res.Kind == commands.KindWhere && res.Where != nil:
		a.public = true
		a.messages = func() (blockkit.Message, []blockkit.Message) {
			p := blockkit.Where(res.Where)
			return p.Message, p.Thread
		}
		w := res.Where
		a.audit = append(rootCause(res), "apps", len(w.Apps), "worst", string(w.Worst()))
		return a
	case res.Kind == commands.KindTags && res.Report != nil:
		a.public = true
		msgs = func() []blockkit.Message { return blockkit.Tags(res.Report, res.Alias) }
	case res.Kind == commands.KindLogs && res.Report != nil:
		a.public = true
		msgs = func() []blockkit.Message { return blockkit.Logs(res.Report) }
	case res.Kind == commands.KindExplain && res.Entry != nil:
		msgs = func() []blockkit.Message { return []blockkit.Message{blockkit.Explain(*res.Entry)} }
	default:
		text := res.Text
		if res.Kind == commands.KindDenied {
			text = ":no_entry: " + text
		}
		msgs = func() []blockkit.Message { return []blockkit.Message{blockkit.Notice(text)} }
	}
	a.messages = func() (blockkit.Message, []blockkit.Message) {
		m := msgs()
		return m[0], m[1:]
	}
	// The answers that are not a result's content: a refusal, "busy", an error (a report kind
	// without its report is answered as a notice too).
	switch res.Kind {
	case commands.KindDenied:
		a.askerOnly, a.reaction = true, reactDenied
	case commands.KindBusy:
		a.askerOnly, a.reaction = true, reactBusy
	case commands.KindNotFound, commands.KindInvalid, commands.KindError:
		a.onButtonAskerOnly, a.reaction = true, reactUnknown
	}
	a.audit = rootCause(res)
	if res.Kind == commands.KindDenied {
		a.audit = append(a.audit, "denied", clip(res.Text, 300))
	}
	return a
}

// rootCause is the audit's root cause of a result that carries a report.
func rootCause(res commands.Result) []any {
	if res.Report != nil && res.Report.RootCause != nil {
		return []any{"root_cause", string(res.Report.RootCause.Code)}
	}
	return nil
}

// render turns a result into messages: the first, and those for its thread, and whether they
// are for everyone (answerOf).
func render(res commands.Result) (first blockkit.Message, rest []blockkit.Message, public bool) {
	a := answerOf(res)
	first, rest = a.messages()
	return first, rest, a.public
}

// withNote adds a context line to a message, before its buttons (and to its text, for
// notifications and when Slack refuses the blocks).
func withNote(m blockkit.Message, note string) blockkit.Message {
	if note == "" {
		return m
	}
	blocks := slices.Clone(m.Blocks.BlockSet)
	ctx := slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, note, false, false))
	at := len(blocks)
	if at > 0 && blocks[at-1].BlockType() == slack.MBTAction {
		at--
	}
	if len(blocks) < blockkit.MaxBlocks {
		blocks = slices.Insert(blocks, at, slack.Block(ctx))
	}
	m.Blocks = slack.Blocks{BlockSet: blocks}
	if len(m.Text)+len(note)+1 <= blockkit.MaxMessageText {
		m.Text += "\n" + note
	}
	return m
}

// Payloads lists every message the bot would send for a result, for the
// validator tests.
func Payloads(res commands.Result) []blockkit.Message {
	first, rest, _ := render(res)
	return append([]blockkit.Message{first}, rest...)
}

// deliver sends the answer where the command came from.
func (b *Bot) deliver(ctx context.Context, inv *invocation, res commands.Result) error {
	a := answerOf(res)
	first, rest := a.messages()
	public := a.public
	if inv.via != "dm" && (res.Private != "" || inv.fromEphemeral) {
		// Only a rule naming the asker grants what it shows (or the click was on a message
		// only they see): all of it goes to them alone, with why.
		return b.privately(ctx, inv, append([]blockkit.Message{withNote(first, res.Private)}, rest...))
	}
	if inv.via == "slash" && !public {
		return b.respond(ctx, inv, append([]blockkit.Message{first}, rest...)...)
	}
	// Refusals, "busy", and a button's errors, are for the asker only (in a
	// direct message, a plain reply already is).
	private := a.askerOnly || inv.via == "button" && a.onButtonAskerOnly
	if inv.via != "slash" && inv.via != "dm" && private {
		return b.ephemeral(ctx, inv, first)
	}
	ts, err := b.postMessage(ctx, inv.channel, inv.thread, first)
	if err != nil && isSlackError(err, "invalid_blocks", "invalid_blocks_format", "msg_blocks_too_long") {
		// Slack refused the blocks: the answer still goes out, as text.
		b.cfg.Log.Error("Slack refused a message's blocks; posting its text instead", "error", err, "channel", inv.channel)
		text := first.Text
		if r := res.Report; r != nil && r.RootCause != nil {
			// Without the blocks, the code is what the asker can look up.
			text += " (`" + string(r.RootCause.Code) + "`)"
		}
		plain := blockkit.Message{Text: text + "\n(imgupd could not render this answer for Slack: " + errorCode(err) + "; `imgupd diagnose` in a terminal shows all of it.)"}
		ts, err = b.postMessage(ctx, inv.channel, inv.thread, plain)
	}
	if err != nil {
		if inv.via == "slash" && isSlackError(err, "not_in_channel", "channel_not_found") {
			// The asker still gets the answer, privately, and how to fix it.
			hint := blockkit.NoticeMrkdwn(":warning: I cannot post in " + blockkit.ChannelMention(inv.channel) + ": invite " + b.selfMention() +
				" to the channel (`/invite`, then pick me) and run the command again. Only you see this answer.")
			if inv.pr.DM {
				hint = blockkit.NoticeMrkdwn(":information_source: I cannot post in this conversation; only you see this answer. Message " + b.selfMention() + " directly, or use a channel, to share it.")
			}
			if rerr := b.respond(ctx, inv, append([]blockkit.Message{hint, first}, rest...)...); rerr != nil {
				return errors.Join(err, rerr)
			}
			return fmt.Errorf("answered privately: %w", err)
		}
		if inv.respURL != "" {
			// The command's own deadline may be what failed: tell the
			// asker on a short deadline of its own.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			_ = b.respond(rctx, inv, blockkit.Notice(":warning: imgupd could not post its answer here: `"+errorCode(err)+"`."))
			cancel()
		}
		return err
	}
	thread := inv.thread
	if thread == "" {
		thread = ts
	}
	var errs []error
	for _, m := range rest {
		if _, err := b.postMessage(ctx, inv.channel, thread, m); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// privately shows every message to the asker alone: through the slash command's response_url,
// else as ephemeral messages where the mention or the click was.
func (b *Bot) privately(ctx context.Context, inv *invocation, msgs []blockkit.Message) error {
	if inv.via == "slash" {
		return b.respond(ctx, inv, msgs...)
	}
	for _, m := range msgs {
		if err := b.ephemeral(ctx, inv, m); err != nil {
			return err
		}
	}
	return nil
}

// msgOptions are a message's text and blocks, in thread ("" = top level).
func msgOptions(m blockkit.Message, thread string) []slack.MsgOption {
	opts := []slack.MsgOption{slack.MsgOptionText(m.Text, false)}
	if len(m.Blocks.BlockSet) > 0 {
		opts = append(opts, slack.MsgOptionBlocks(m.Blocks.BlockSet...))
	}
	if thread != "" {
		opts = append(opts, slack.MsgOptionTS(thread))
	}
	return opts
}

// postMessage posts in the channel's queue; thread "" = top level.
func (b *Bot) postMessage(ctx context.Context, channel, thread string, m blockkit.Message) (string, error) {
	opts := msgOptions(m, thread)
	var ts string
	err := b.del.post(ctx, channel, "chat.postMessage", func(ctx context.Context) error {
		var err error
		_, ts, err = b.api.PostMessageContext(ctx, channel, opts...)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("chat.postMessage to %s: %w", channel, err)
	}
	return ts, nil
}

// ephemeral shows a message to the asker only: in the thread when the command came from inside
// one, else at the top level (Slack shows an ephemeral message in a thread only when the thread
// already has replies).
func (b *Bot) ephemeral(ctx context.Context, inv *invocation, m blockkit.Message) error {
	thread := ""
	if inv.inThread {
		thread = inv.thread
	}
	opts := msgOptions(m, thread)
	err := b.del.post(ctx, inv.channel, "chat.postEphemeral", func(ctx context.Context) error {
		_, err := b.api.PostEphemeralContext(ctx, inv.channel, inv.pr.User, opts...)
		return err
	})
	if err != nil && inv.respURL != "" {
		return b.respond(ctx, inv, m)
	}
	if err != nil {
		return fmt.Errorf("chat.postEphemeral to %s: %w", inv.channel, err)
	}
	return nil
}

// respond answers through the command's response_url, visible to the
// asker only; it works where the bot is not a member.
func (b *Bot) respond(ctx context.Context, inv *invocation, ms ...blockkit.Message) error {
	if inv.respURL == "" {
		return errors.New("no response_url to answer through")
	}
	for _, m := range ms {
		if err := b.postResponse(ctx, inv, m); err != nil {
			return err
		}
	}
	return nil
}

// postResponse posts one message for the asker alone through the command's response_url; with
// more options (slack.MsgOptionReplaceOriginal) it replaces the one the command showed.
func (b *Bot) postResponse(ctx context.Context, inv *invocation, m blockkit.Message, more ...slack.MsgOption) error {
	opts := append(append(msgOptions(m, ""), slack.MsgOptionResponseURL(inv.respURL, slack.ResponseTypeEphemeral)), more...)
	err := b.del.call(ctx, "response_url", func(ctx context.Context) error {
		_, _, err := b.api.PostMessageContext(ctx, inv.channel, opts...)
		return err
	})
	if err != nil {
		// A response URL lets anyone post for 30 minutes: keep it out
		// of errors, logs and the audit line.
		var ue *url.Error
		if errors.As(err, &ue) {
			return fmt.Errorf("response_url: %s: %w", ue.Op, ue.Err)
		}
		return fmt.Errorf("response_url: %w", err)
	}
	return nil
}

// react adds or removes a reaction on the mention; failures are logged,
// never fatal (already_reacted and no_reaction are fine).
func (b *Bot) react(ctx context.Context, inv *invocation, name string, add bool) {
	if inv.mention == "" {
		return
	}
	ref := slack.NewRefToMessage(inv.channel, inv.mention)
	method := "reactions.add"
	if !add {
		method = "reactions.remove"
	}
	err := b.del.call(ctx, method, func(ctx context.Context) error {
		if add {
			return b.api.AddReactionContext(ctx, name, ref)
		}
		return b.api.RemoveReactionContext(ctx, name, ref)
	})
	if err != nil && !isSlackError(err, "already_reacted", "no_reaction") {
		b.cfg.Log.Warn("reaction failed", "method", method, "name", name, "channel", inv.channel, "error", err)
	}
}

// ephemeralPayload is an ack payload: the slash command's immediate,
// private answer.
func ephemeralPayload(m blockkit.Message) map[string]any {
	return map[string]any{"response_type": "ephemeral", "text": m.Text, "blocks": m.Blocks.BlockSet}
}

// selfMention is the bot as a mention (rendered with its name), or "me".
func (b *Bot) selfMention() blockkit.Mrkdwn {
	if id := b.self.Load(); id != nil && id.UserID != "" {
		return blockkit.UserMention(id.UserID)
	}
	return "me"
}
