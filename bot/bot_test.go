package bot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// Canary tokens: they must never appear in a log line, an audit line or a
// message.
const (
	botToken = "xoxb-canary-bot-7f3a9c"
	appToken = "xapp-1-canary-app-2b8e41"
)

const (
	deploys  = "C0DEPLOYS1" // rule "deploys": any namespace
	random   = "C0RANDOM01" // no rule
	outside  = "C0OUTSIDE1" // rule "deploys" names it, but the bot is not a member
	alice    = "U0ALICE001"
	eve      = "U0EVE00001"
	platform = "S0PLATFORM"
	carol    = "U0CAROL001" // in the platform group
)

// patience is how long a test waits for what the bot should do before it fails: a net for what
// never happens, not a timing (a loaded machine makes the bot slower, never different), so it is
// generous.
const patience = 2 * time.Minute

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// lines returns the JSON log lines with msg.
func (s *syncBuffer) lines(msg string) []map[string]any {
	var out []map[string]any
	for _, l := range strings.Split(s.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

type harness struct {
	t     testing.TB
	srv   *slacklab.Server
	bot   *bot.Bot
	env   *lab.Env
	log   *syncBuffer
	audit *syncBuffer
	stop  context.CancelFunc
	done  chan error
}

type option func(*bot.Config, *slacklab.Config)

// start brings up a lab scenario, the fake Slack and the bot, and waits
// until the bot is connected.
func start(t testing.TB, scenario string, opts ...option) *harness {
	t.Helper()
	sc, ok := lab.Builtin(scenario)
	if !ok {
		t.Fatalf("no scenario %s", scenario)
	}
	return startScenario(t, sc, opts...)
}

// startScenario is start for any scenario (a generated fleet, say).
func startScenario(t testing.TB, sc *lab.Scenario, opts ...option) *harness {
	t.Helper()
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	scfg := slacklab.Config{
		BotToken: botToken, AppToken: appToken,
		Scopes: []string{"app_mentions:read", "channels:read", "chat:write", "commands", "groups:read", "mpim:read", "reactions:write", "usergroups:read"},
		Channels: []slacklab.Channel{
			{ID: deploys, Name: "deploys", IsMember: true},
			{ID: random, Name: "random", IsMember: true},
			{ID: outside, Name: "outside", IsMember: false},
		},
		Groups: map[string][]string{platform: {carol}},
	}
	policy := &commands.Policy{Rules: []commands.Rule{
		{Name: "deploys", Channels: []string{deploys, outside}},
		{Name: "platform", Groups: []string{platform}, Channels: []string{"*"}},
	}}
	eng := env.Engine()
	h := &harness{t: t, env: env, log: &syncBuffer{}, audit: &syncBuffer{}, done: make(chan error, 1)}
	cfg := bot.Config{
		BotToken: botToken, AppToken: appToken,
		Service: &commands.Service{Apps: eng.Cluster, Engine: eng, Policy: policy, Cluster: "lab"},
		Log:     slog.New(slog.NewJSONHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Audit:   slog.New(slog.NewJSONHandler(h.audit, nil)),
	}
	for _, o := range opts {
		o(&cfg, &scfg)
	}
	h.srv = slacklab.Start(scfg)
	t.Cleanup(h.srv.Close)
	cfg.APIURL = h.srv.APIURL()
	h.bot = bot.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	h.stop = cancel
	go func() { h.done <- h.bot.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
		case <-time.After(patience):
			t.Errorf("the bot did not stop within %s", patience)
		}
		for _, s := range []string{h.log.String(), h.audit.String()} {
			if strings.Contains(s, botToken) || strings.Contains(s, appToken) {
				t.Error("a Slack token appears in the bot's log or audit output")
			}
		}
		for _, m := range h.srv.Messages() {
			if strings.Contains(m.Text+string(m.Blocks), "canary") {
				t.Errorf("a token appears in a message: %s", m.Text)
			}
		}
	})
	wctx, wcancel := context.WithTimeout(context.Background(), patience)
	defer wcancel()
	if err := h.srv.WaitConnections(wctx, 1); err != nil {
		t.Fatalf("the bot did not connect: %v (run: %v)", err, h.runErr())
	}
	h.srv.Send(wctx, slacklab.Hello())
	h.waitFor("the bot is ready", func() bool { ok, _ := h.bot.Health().Ready(); return ok })
	return h
}

func (h *harness) runErr() error {
	select {
	case err := <-h.done:
		return err
	default:
		return nil
	}
}

func (h *harness) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	h.t.Cleanup(cancel)
	return ctx
}

func (h *harness) send(frame string) {
	h.t.Helper()
	if err := h.srv.Send(h.ctx(), frame); err != nil {
		h.t.Fatal(err)
	}
}

// waitFor polls a condition (no timed assertion: only a generous deadline
// for failure, patience).
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("waited %s until %s\nmessages: %s\nlog: %s", patience, what, h.dump(), h.log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (h *harness) dump() string {
	var b strings.Builder
	for _, m := range h.srv.Messages() {
		fmt.Fprintf(&b, "\n  [%s %s ts=%s thread=%s eph=%v] %s", m.Via, m.Channel, m.TS, m.ThreadTS, m.Ephemeral, m.Text)
	}
	return b.String()
}

// messages returns the messages matching f.
func (h *harness) messages(f func(slacklab.Message) bool) []slacklab.Message {
	var out []slacklab.Message
	for _, m := range h.srv.Messages() {
		if f(m) {
			out = append(out, m)
		}
	}
	return out
}

func (h *harness) auditLines() []map[string]any { return h.audit.lines("command") }

func slash(user, channel, text, resp string) slacklab.Slash {
	return slacklab.Slash{User: user, UserName: strings.ToLower(user), Channel: channel, ChannelName: map[string]string{deploys: "deploys", random: "random", outside: "outside"}[channel],
		Text: text, ResponseURL: resp}
}

func isReport(app string) func(slacklab.Message) bool {
	return func(m slacklab.Message) bool {
		return m.Via == "chat.postMessage" && strings.Contains(string(m.Blocks), `"type":"header"`) && strings.Contains(m.Text, app)
	}
}

func TestSlashCommandPostsReport(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "report-1-image-not-live")
	h.send(slacklab.SlashCommand("env-slash-1", slash(alice, deploys, "diagnose web", h.srv.ResponseURL("r1"))))
	ack, err := h.srv.WaitAck(h.ctx(), "env-slash-1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ack.Payload), "Diagnosing `web`") || !strings.Contains(string(ack.Payload), `"response_type":"ephemeral"`) {
		t.Errorf("the ack should carry the ephemeral progress note: %s", ack.Payload)
	}
	h.waitFor("the report is posted", func() bool { return len(h.messages(isReport("argocd/web"))) == 1 })
	rep := h.messages(isReport("argocd/web"))[0]
	if rep.Channel != deploys || rep.ThreadTS != "" || rep.Ephemeral {
		t.Errorf("the report should be a top-level message in the channel: %+v", rep)
	}
	for _, want := range []string{"LIVE_IMAGE_NOT_LIVE", "imgupd_rerun", "imgupd_explain", "other stages passed"} {
		if !strings.Contains(string(rep.Blocks), want) {
			t.Errorf("report blocks lack %q", want)
		}
	}
	// No tag was listed (the image is not live) and Image Updater logged
	// nothing about the app: no button offers an empty answer.
	for _, absent := range []string{"imgupd_tags", "Show candidate tags", "imgupd_logs", "Show updater log lines"} {
		if strings.Contains(string(rep.Blocks), absent) {
			t.Errorf("report blocks offer %q, which has nothing to show", absent)
		}
	}
	// The details go to the report's thread.
	h.waitFor("the details are in the report's thread", func() bool {
		return len(h.messages(func(m slacklab.Message) bool { return m.ThreadTS == rep.TS })) > 0
	})
	h.waitFor("the audit line is written", func() bool { return len(h.auditLines()) == 1 })
	a := h.auditLines()[0]
	for k, want := range map[string]any{"via": "slash", "user": alice, "channel": deploys, "command": "diagnose", "app": "argocd/web", "result": "broken", "state": "blocked", "root_cause": "LIVE_IMAGE_NOT_LIVE", "rule": "deploys"} {
		if a[k] != want {
			t.Errorf("audit %s = %v, want %v (%v)", k, a[k], want, a)
		}
	}
	if _, ok := a["duration_ms"]; !ok {
		t.Error("the audit line has no duration")
	}
}

func TestMentionInThreadAnswersInThread(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "healthy-kustomize-argocd")
	const parent, ts = "1718031200.000100", "1718031234.567890"
	h.srv.AddUserMessage(deploys, ts, parent, "<@U0BOTUSER1> diagnose web")
	h.send(slacklab.AppMention("env-m-1", slacklab.Mention{EventID: "Ev01", User: alice, Channel: deploys, Text: "<@U0BOTUSER1> diagnose web", TS: ts, ThreadTS: parent}))
	if _, err := h.srv.WaitAck(h.ctx(), "env-m-1"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the report is in the thread", func() bool { return len(h.messages(isReport("argocd/web"))) == 1 })
	if rep := h.messages(isReport("argocd/web"))[0]; rep.ThreadTS != parent {
		t.Errorf("the report should answer in thread %s, got thread %q", parent, rep.ThreadTS)
	}
	h.waitFor("the mention shows ✅ instead of 👀", func() bool {
		r := h.srv.Reactions(deploys, ts)
		return len(r) == 1 && r[0] == "white_check_mark"
	})
	if adds := h.srv.CallsTo("reactions.add"); len(adds) == 0 || adds[0].Form.Get("name") != "eyes" {
		t.Errorf("the first reaction should be eyes: %+v", adds)
	}
}

func TestMentionTopLevelStartsThread(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "healthy-kustomize-argocd")
	const ts = "1718031300.000001"
	h.srv.AddUserMessage(deploys, ts, "", "@imgupd explain live_image_not_live")
	h.send(slacklab.AppMention("env-m-2", slacklab.Mention{User: alice, Channel: deploys, Text: "<@U0BOTUSER1> explain live_image_not_live", TS: ts}))
	h.waitFor("the explanation is in the mention's thread", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.ThreadTS == ts && strings.Contains(m.Text, "LIVE_IMAGE_NOT_LIVE")
		})) == 1
	})
}

func TestButtonsAnswerInReportThread(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "article-4-protected-branch")
	h.send(slacklab.SlashCommand("env-slash-2", slash(alice, deploys, "diagnose web", h.srv.ResponseURL("r2"))))
	h.waitFor("the report is posted", func() bool { return len(h.messages(isReport("argocd/web"))) == 1 })
	rep := h.messages(isReport("argocd/web"))[0]
	// Its tags were listed and Image Updater logged about it: both buttons show something.
	for _, want := range []string{"imgupd_tags", "imgupd_logs"} {
		if !strings.Contains(string(rep.Blocks), want) {
			t.Errorf("report blocks lack %q", want)
		}
	}
	inThread := func(sub string) func() bool {
		return func() bool {
			return len(h.messages(func(m slacklab.Message) bool {
				return m.ThreadTS == rep.TS && strings.Contains(m.Text+string(m.Blocks), sub)
			})) > 0
		}
	}
	click := func(env, action, value string) {
		h.send(slacklab.BlockAction(env, slacklab.Action{User: alice, UserName: "alice", Channel: deploys, ChannelName: "deploys",
			MessageTS: rep.TS, ActionID: action, BlockID: "imgupd_actions", Value: value, ResponseURL: h.srv.ResponseURL("b-" + env)}))
	}
	click("env-b-1", "imgupd_explain", "WRITEBACK_COMMIT_FAILED_IN_LOGS")
	h.waitFor("Explain answers in the thread", inThread("WRITEBACK_COMMIT_FAILED_IN_LOGS:"))
	click("env-b-2", "imgupd_tags", "argocd/web")
	h.waitFor("Show candidate tags answers in the thread", inThread("candidate tags for argocd/web"))
	click("env-b-3", "imgupd_logs", "argocd/web")
	h.waitFor("Show updater log lines answers in the thread", inThread("protected branch"))
	click("env-b-4", "imgupd_rerun", "argocd/web")
	h.waitFor("Re-run posts a new report in the thread", func() bool {
		return len(h.messages(func(m slacklab.Message) bool { return isReport("argocd/web")(m) && m.ThreadTS == rep.TS })) == 1
	})
	// A forged button value is refused, not run.
	click("env-b-5", "imgupd_rerun", "argocd/web; rm -rf /")
	h.waitFor("the forged value gets an error", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Ephemeral && m.User == alice && strings.Contains(m.Text, "unknown option")
		})) == 1
	})
}

func TestDuplicateEnvelopesAnswerOnce(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "healthy-kustomize-argocd")
	const ts = "1718031400.000001"
	h.srv.AddUserMessage(deploys, ts, "", "diagnose web")
	m := slacklab.Mention{EventID: "EvDUP", User: alice, Channel: deploys, Text: "<@U0BOTUSER1> diagnose web", TS: ts}
	h.send(slacklab.AppMention("env-d-1", m))
	m.RetryAttempt, m.RetryReason = 1, "timeout"
	h.send(slacklab.AppMention("env-d-2", m)) // Slack's redelivery: same event, new envelope
	h.send(slacklab.AppMention("env-d-2", m)) // the same envelope twice
	slashFrame := slacklab.SlashCommand("env-d-3", slash(alice, deploys, "diagnose web", h.srv.ResponseURL("d3")))
	h.send(slashFrame)
	h.send(slashFrame)
	for _, env := range []string{"env-d-1", "env-d-2", "env-d-3"} {
		if _, err := h.srv.WaitAck(h.ctx(), env); err != nil {
			t.Fatalf("%s not acked: %v", env, err)
		}
	}
	h.waitFor("every envelope is acked, duplicates included", func() bool {
		return h.srv.AckCount("env-d-2") == 2 && h.srv.AckCount("env-d-3") == 2
	})
	h.waitFor("two reports (one per distinct command)", func() bool { return len(h.messages(isReport("argocd/web"))) == 2 })
	h.waitFor("two audit lines", func() bool { return len(h.auditLines()) == 2 })
	// Give a wrongly-handled duplicate the time to show up: wait for the
	// metrics to count the three duplicates, then check nothing more came.
	h.waitFor("three duplicates counted", func() bool { return metric(t, h.bot, "imgupd_envelopes_duplicate_total") == "3" })
	if n := len(h.messages(isReport("argocd/web"))); n != 2 {
		t.Errorf("%d reports, want 2", n)
	}
}

func TestRateLimitedPostIsRetriedAfterRetryAfter(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "healthy-kustomize-argocd")
	h.srv.RateLimit("chat.postMessage", 1, time.Second)
	h.send(slacklab.SlashCommand("env-rl", slash(alice, deploys, "diagnose web", h.srv.ResponseURL("rl"))))
	h.waitFor("the report is posted after the 429", func() bool { return len(h.messages(isReport("argocd/web"))) == 1 })
	calls := h.srv.CallsTo("chat.postMessage")
	if len(calls) < 2 || calls[0].Status != http.StatusTooManyRequests || calls[1].Status != http.StatusOK {
		t.Fatalf("want a 429 then a 200, got %+v", calls)
	}
	if gap := calls[1].At.Sub(calls[0].At); gap < time.Second {
		t.Errorf("retried after %s, before Retry-After (1 s)", gap)
	}
	if v := metric(t, h.bot, `imgupd_slack_api_errors_total{error="ratelimited",method="chat.postMessage"}`); v != "1" {
		t.Errorf("ratelimited errors metric = %q, want 1", v)
	}
}

func TestReconnectsAfterSocketDrop(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "healthy-kustomize-argocd")
	h.srv.Drop()
	if err := h.srv.WaitConnections(h.ctx(), 2); err != nil {
		t.Fatalf("the bot did not reconnect: %v", err)
	}
	h.waitFor("the bot is ready again", func() bool { ok, _ := h.bot.Health().Ready(); return ok })
	h.send(slacklab.SlashCommand("env-after-drop", slash(alice, deploys, "diagnose web", h.srv.ResponseURL("ad"))))
	h.waitFor("the command after the reconnect is answered", func() bool { return len(h.messages(isReport("argocd/web"))) == 1 })
	if n := len(h.srv.CallsTo("apps.connections.open")); n < 3 { // Verify + two connections
		t.Errorf("apps.connections.open called %d times, want ≥ 3", n)
	}
	if v := metric(t, h.bot, "imgupd_socket_connections_total"); v != "2" {
		t.Errorf("connections metric = %s, want 2", v)
	}
}

func TestDeniedUserGetsEphemeralRefusalAndAudit(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "healthy-kustomize-argocd")
	h.send(slacklab.SlashCommand("env-deny", slash(eve, random, "diagnose web", h.srv.ResponseURL("deny"))))
	h.waitFor("the refusal is shown to eve only", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Via == "response_url" && m.Ephemeral && strings.Contains(m.Text, "no access rule admits you")
		})) == 1
	})
	h.waitFor("the audit line is written", func() bool { return len(h.auditLines()) == 1 })
	if a := h.auditLines()[0]; a["result"] != "denied" || a["user"] != eve || a["channel"] != random || a["denied"] == nil {
		t.Errorf("audit line: %v", a)
	}
	if n := len(h.srv.CallsTo("chat.postMessage")); n != 0 {
		t.Errorf("a denied command posted %d message(s)", n)
	}
	// A group member may, anywhere; what only the group's rule grants is hers alone; in a
	// mention, the refusal is ephemeral.
	h.send(slacklab.SlashCommand("env-group", slash(carol, random, "diagnose web", h.srv.ResponseURL("grp"))))
	h.waitFor("carol (platform group) gets the report, privately", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Via == "response_url" && m.ResponseID == "grp" && strings.Contains(m.Text, "argocd/web") && strings.Contains(string(m.Blocks), "the access rule `platform` grants you `argocd/web`, not this channel")
		})) == 1
	})
	const ts = "1718031500.000001"
	h.srv.AddUserMessage(random, ts, "", "diagnose web")
	h.send(slacklab.AppMention("env-deny-m", slacklab.Mention{User: eve, Channel: random, Text: "<@U0BOTUSER1> diagnose web", TS: ts}))
	// A top-level mention has no thread yet, and Slack shows an ephemeral message in a thread
	// only when it has replies: the refusal is at the top level.
	h.waitFor("the mention's refusal is ephemeral, at the top level", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Via == "chat.postEphemeral" && m.User == eve && m.ThreadTS == "" && strings.Contains(m.Text, "no access rule")
		})) == 1
	})
	h.waitFor("the mention shows ⛔", func() bool {
		r := h.srv.Reactions(random, ts)
		return len(r) == 1 && r[0] == "no_entry"
	})
}

func TestNotInChannelAnswersPrivatelyWithInviteHint(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "healthy-kustomize-argocd")
	h.send(slacklab.SlashCommand("env-nic", slash(alice, outside, "diagnose web", h.srv.ResponseURL("nic"))))
	h.waitFor("the invite hint and the report reach the asker", func() bool {
		hint := h.messages(func(m slacklab.Message) bool {
			return m.Via == "response_url" && strings.Contains(m.Text, "invite <@U0BOTUSER1> to the channel")
		})
		rep := h.messages(func(m slacklab.Message) bool {
			return m.Via == "response_url" && strings.Contains(string(m.Blocks), `"type":"header"`)
		})
		return len(hint) == 1 && len(rep) == 1
	})
	// The hint's mentions are the bot's own: the channel and the bot, by ID.
	hint := h.messages(func(m slacklab.Message) bool { return strings.Contains(m.Text, "invite <@U0BOTUSER1>") })[0]
	sh, err := hint.Shown()
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, l := range sh.Live {
		live = append(live, l.Raw)
	}
	if want := []string{"<#" + outside + ">", "<@U0BOTUSER1>", "<#" + outside + ">", "<@U0BOTUSER1>"}; strings.Join(live, " ") != strings.Join(want, " ") {
		t.Errorf("the hint's live sequences are %q, want the channel and the bot (text and block): %q", live, want)
	}
	h.waitFor("the audit line records the delivery problem", func() bool {
		l := h.auditLines()
		return len(l) == 1 && strings.Contains(fmt.Sprint(l[0]["delivery_error"]), "not_in_channel")
	})
}

func TestBadInputGetsHelpInTheAck(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "healthy-kustomize-argocd")
	h.send(slacklab.SlashCommand("env-bad", slash(alice, deploys, "diagnsoe web", h.srv.ResponseURL("bad"))))
	ack, err := h.srv.WaitAck(h.ctx(), "env-bad")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"unknown command", "did you mean `diagnose web`", "tags APP"} {
		if !strings.Contains(string(ack.Payload), want) {
			t.Errorf("ack payload lacks %q: %s", want, ack.Payload)
		}
	}
	// What the user typed is shown back as written: their <!channel> does
	// not ping the channel from the bot's answer.
	h.send(slacklab.SlashCommand("env-hostile", slash(alice, deploys, "diagnose <!channel>", h.srv.ResponseURL("h"))))
	ack, err = h.srv.WaitAck(h.ctx(), "env-hostile")
	if err != nil {
		t.Fatal(err)
	}
	var payload struct {
		Text   string          `json:"text"`
		Blocks json.RawMessage `json:"blocks"`
	}
	if err := json.Unmarshal(ack.Payload, &payload); err != nil {
		t.Fatal(err)
	}
	sh, err := slacklab.Show(payload.Text, payload.Blocks)
	if err != nil {
		t.Fatal(err)
	}
	if len(sh.Live) > 0 || !strings.Contains(sh.Texts[0].Shown, `"<!channel>"`) {
		t.Errorf("the refusal of hostile input reads back %q, live %v", sh.Texts, sh.Live)
	}
	h.send(slacklab.SlashCommand("env-unknown-app", slash(alice, deploys, "diagnose wbe", h.srv.ResponseURL("ua"))))
	h.waitFor("an unknown app gets the closest names", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Via == "response_url" && strings.Contains(m.Text, "did you mean `argocd/web`")
		})) == 1
	})
	if n := len(h.srv.CallsTo("chat.postMessage")); n != 0 {
		t.Errorf("bad input posted %d public message(s)", n)
	}
}

func TestGracefulShutdownFinishesInFlightCommands(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	// The in-flight command may take as long as the machine needs: the bot's shutdown
	// bound (25 s by default) is not what this checks.
	h := start(t, "healthy-kustomize-argocd", func(c *bot.Config, _ *slacklab.Config) { c.ShutdownTimeout = patience })
	h.srv.SetLatency(300 * time.Millisecond) // every Slack call is slow
	h.send(slacklab.SlashCommand("env-shut", slash(alice, deploys, "diagnose web", h.srv.ResponseURL("shut"))))
	if _, err := h.srv.WaitAck(h.ctx(), "env-shut"); err != nil {
		t.Fatal(err)
	}
	h.stop()
	h.waitFor("readiness fails while draining", func() bool { ok, why := h.bot.Health().Ready(); return !ok && strings.Contains(why, "shutting down") })
	select {
	case err := <-h.done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		h.done <- nil // for the cleanup
	case <-time.After(patience):
		t.Fatal("Run did not return")
	}
	if n := len(h.messages(isReport("argocd/web"))); n != 1 {
		t.Errorf("the in-flight command should have finished before Run returned: %d report(s)%s", n, h.dump())
	}
}

func TestStartupNamesTheBadToken(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	cases := []struct {
		name     string
		bot, app string
		scopes   []string
		want     string
	}{
		{"bot token rejected", "xoxb-wrong", appToken, nil, "Slack rejects IMGUPD_SLACK_BOT_TOKEN (invalid_auth)"},
		{"app token rejected", botToken, "xapp-wrong", nil, "Slack rejects IMGUPD_SLACK_APP_TOKEN (invalid_auth)"},
		{"swapped", appToken, botToken, nil, "are swapped"},
		{"missing", "", appToken, nil, "IMGUPD_SLACK_BOT_TOKEN is not set"},
		{"user token", "xoxp-123", appToken, nil, "does not start with xoxb-"},
		{"missing scope", botToken, appToken, []string{"chat:write", "commands"}, "lacks the scope(s) app_mentions:read, channels:read, groups:read, mpim:read, reactions:write"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := slacklab.Start(slacklab.Config{BotToken: botToken, AppToken: appToken, Scopes: c.scopes})
			defer srv.Close()
			var logs syncBuffer
			b := bot.New(bot.Config{BotToken: bot.Secret(c.bot), AppToken: bot.Secret(c.app), APIURL: srv.APIURL(),
				Service: &commands.Service{Policy: &commands.Policy{}}, Log: slog.New(slog.NewJSONHandler(&logs, nil))})
			ctx, cancel := context.WithTimeout(context.Background(), patience)
			defer cancel()
			err := b.Run(ctx)
			var se *bot.SetupError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Run = %v, want a SetupError containing %q", err, c.want)
			}
			if strings.Contains(err.Error(), botToken) || strings.Contains(err.Error(), appToken) || strings.Contains(logs.String(), "canary") {
				t.Errorf("a token leaks: %v", err)
			}
		})
	}
}

func TestOpsEndpoints(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "healthy-kustomize-argocd")
	srv := httptest.NewServer(bot.OpsHandler(h.bot.Health(), h.bot.Metrics()))
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Errorf("/healthz = %d", code)
	}
	if code, body := get("/readyz"); code != 200 || !strings.Contains(body, "connected") {
		t.Errorf("/readyz = %d %s", code, body)
	}
	h.send(slacklab.SlashCommand("env-ops", slash(alice, deploys, "diagnose web", h.srv.ResponseURL("ops"))))
	h.waitFor("the report is posted", func() bool { return len(h.messages(isReport("argocd/web"))) == 1 })
	h.waitFor("the command is counted", func() bool {
		_, body := get("/metrics")
		return strings.Contains(body, `imgupd_commands_total{command="diagnose",result="healthy"} 1`)
	})
	_, body := get("/metrics")
	for _, want := range []string{"imgupd_socket_connected 1", `imgupd_stage_duration_seconds_count{stage="registry"}`, "imgupd_command_duration_seconds", "go_goroutines"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	// Slack refuses the next two connection attempts: while the socket is
	// down, readiness fails; slack-go backs off, reconnects, ready again.
	h.srv.FailNext("apps.connections.open", 2, "internal_error")
	h.srv.Drop()
	h.waitFor("/readyz fails while the socket is down", func() bool {
		code, body := get("/readyz")
		return code == http.StatusServiceUnavailable && strings.Contains(body, "connection is down")
	})
	if err := h.srv.WaitConnections(h.ctx(), 2); err != nil {
		t.Fatal(err)
	}
	h.waitFor("ready again", func() bool { code, _ := get("/readyz"); return code == 200 })
}

// metric reads one sample from the bot's registry as text.
func metric(t testing.TB, b *bot.Bot, name string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	b.Metrics().Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, l := range strings.Split(rec.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			return v
		}
	}
	return ""
}

func TestRefusedBlocksStillAnswerAsText(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "report-1-image-not-live")
	h.srv.FailNext("chat.postMessage", 1, "invalid_blocks")
	h.send(slacklab.SlashCommand("env-ib", slash(alice, deploys, "diagnose web", h.srv.ResponseURL("ib"))))
	h.waitFor("the verdict is posted as text", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Via == "chat.postMessage" && len(m.Blocks) == 0 && strings.Contains(m.Text, "LIVE_IMAGE_NOT_LIVE") && strings.Contains(m.Text, "invalid_blocks")
		})) == 1
	})
}

// panicky diagnoses like the engine, except that it panics for one app:
// a stand-in for a bug, to show one command's crash does not stop the bot.
type panicky struct{ commands.Diagnoser }

func (p panicky) Diagnose(ctx context.Context, req diagnostics.Request) *report.Report {
	if req.App == "web" {
		panic("injected")
	}
	return p.Diagnoser.Diagnose(ctx, req)
}

func TestPanicInOneCommandIsAnsweredAndTheBotGoesOn(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "healthy-kustomize-argocd", func(c *bot.Config, _ *slacklab.Config) {
		c.Service.Engine = panicky{c.Service.Engine}
	})
	h.send(slacklab.SlashCommand("env-p1", slash(alice, deploys, "diagnose web", h.srv.ResponseURL("p1"))))
	h.waitFor("the asker hears of the internal error", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Via == "response_url" && strings.Contains(m.Text, "internal error")
		})) == 1
	})
	h.send(slacklab.SlashCommand("env-p2", slash(alice, deploys, "explain LIVE_IMAGE_NOT_LIVE", h.srv.ResponseURL("p2"))))
	h.waitFor("the next command is answered", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Via == "response_url" && strings.Contains(m.Text, "LIVE_IMAGE_NOT_LIVE:")
		})) == 1
	})
	if !strings.Contains(h.log.String(), `"panic":"injected"`) {
		t.Error("the panic is not logged")
	}
}

func TestSecretNeverPrints(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	s := bot.Secret(botToken)
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("x", "token", s, "cfg", bot.Config{BotToken: s, AppToken: bot.Secret(appToken)})
	out := fmt.Sprintf("%v %+v %#v %s %q", s, s, s, s, s) + fmt.Sprintf("%+v %#v", bot.Config{BotToken: s}, bot.Config{AppToken: bot.Secret(appToken)}) + logs.String()
	if strings.Contains(out, "canary") {
		t.Errorf("a token prints: %s", out)
	}
	if s.Reveal() != botToken {
		t.Error("Reveal must return the token")
	}
}

func TestGroupLookupFailureIsSaidInTheRefusal(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "healthy-kustomize-argocd")
	h.srv.FailNext("usergroups.users.list", 1, "missing_scope")
	h.send(slacklab.SlashCommand("env-gf", slash(carol, random, "diagnose web", h.srv.ResponseURL("gf"))))
	h.waitFor("the refusal says the group could not be checked", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Via == "response_url" && strings.Contains(m.Text, "no access rule admits you") && strings.Contains(string(m.Blocks), "missing_scope")
		})) == 1
	})
	if !strings.Contains(h.log.String(), "cannot resolve the asker") {
		t.Error("the failed lookup is not logged")
	}
}

func TestResponseURLNeverLogged(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "healthy-kustomize-argocd")
	// A denied user's answer goes to a response URL that cannot be reached.
	const secretURL = "http://127.0.0.1:1/commands/T0TESTTEAM/123/canary-response-url-secret"
	h.send(slacklab.SlashCommand("env-ru", slash(eve, random, "diagnose web", secretURL)))
	h.waitFor("the audit line records the failed delivery", func() bool {
		l := h.auditLines()
		return len(l) == 1 && l[0]["delivery_error"] != nil
	})
	if strings.Contains(h.audit.String()+h.log.String(), "canary-response-url-secret") {
		t.Errorf("the response URL appears in the logs: %s", h.audit.String())
	}
}

func TestCommandOutOfTimeStillTellsTheAsker(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "healthy-kustomize-argocd", func(c *bot.Config, _ *slacklab.Config) { c.CommandTimeout = time.Second })
	h.srv.SetLatency(1500 * time.Millisecond) // Slack is slower than the command may take
	h.send(slacklab.SlashCommand("env-slow", slash(alice, deploys, "diagnose web", h.srv.ResponseURL("slow"))))
	h.waitFor("the asker hears the answer could not be posted", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Via == "response_url" && strings.Contains(m.Text, "could not post its answer here: `timeout`")
		})) == 1
	})
	h.waitFor("the audit line records it", func() bool {
		l := h.auditLines()
		return len(l) == 1 && l[0]["delivery_error"] != nil
	})
}

const aliceDM = "D0ALICEDM1" // alice's direct message with the bot

// allowDMs admits alice's direct messages: access.allowDMs and a "dm" rule.
func allowDMs(c *bot.Config, s *slacklab.Config) {
	c.Service.Policy = &commands.Policy{AllowDMs: true, Rules: []commands.Rule{
		{Name: "deploys", Channels: []string{deploys}},
		{Name: "direct", Channels: []string{"dm"}, Users: []string{alice}},
	}}
	s.Scopes = append(s.Scopes, "im:history")
	s.Channels = append(s.Channels, slacklab.Channel{ID: aliceDM, IsIM: true, IsMember: true})
}

// TestDirectMessageAnswersInTheConversation: "diagnose web" sent to the bot
// in a DM (a message.im event, not an app_mention) gets 👀, the report in
// the DM with its details in the report's thread, then the outcome
// reaction. The bot's own messages and edits echoed back are not commands.
func TestDirectMessageAnswersInTheConversation(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "report-1-image-not-live", allowDMs)
	const ts = "1718032000.000001"
	h.srv.AddUserMessage(aliceDM, ts, "", "diagnose web")
	h.send(slacklab.DirectMessage("env-dm-1", slacklab.DM{User: alice, Channel: aliceDM, Text: "diagnose web", TS: ts}))
	h.waitFor("the report is posted in the DM", func() bool { return len(h.messages(isReport("argocd/web"))) == 1 })
	rep := h.messages(isReport("argocd/web"))[0]
	if rep.Channel != aliceDM || rep.ThreadTS != "" || rep.Ephemeral {
		t.Errorf("the report should be a plain top-level message in the DM: %+v", rep)
	}
	h.waitFor("the details are in the report's thread", func() bool {
		return len(h.messages(func(m slacklab.Message) bool { return m.Channel == aliceDM && m.ThreadTS == rep.TS })) > 0
	})
	h.waitFor("the DM shows ❌ (the app is broken) instead of 👀", func() bool {
		r := h.srv.Reactions(aliceDM, ts)
		return len(r) == 1 && r[0] == "x"
	})
	h.waitFor("the audit line is written", func() bool { return len(h.auditLines()) == 1 })
	if a := h.auditLines()[0]; a["via"] != "dm" || a["rule"] != "direct" || a["channel"] != aliceDM {
		t.Errorf("audit line: %v", a)
	}

	// Echoes of the bot's own message, an edit, and a DM's redelivery are
	// acked and ignored; a thread reply in the DM is answered in that thread.
	posted := len(h.srv.CallsTo("chat.postMessage"))
	h.send(slacklab.DirectMessage("env-dm-bot", slacklab.DM{User: slacklab.BotUserID, BotID: slacklab.BotID, Channel: aliceDM, Text: "diagnose web", TS: "1718032001.000001"}))
	h.send(slacklab.DirectMessage("env-dm-edit", slacklab.DM{User: alice, SubType: "message_changed", Channel: aliceDM, Text: "diagnose web", TS: "1718032002.000001"}))
	h.send(slacklab.DirectMessage("env-dm-again", slacklab.DM{EventID: "Evenv-dm-1", User: alice, Channel: aliceDM, Text: "diagnose web", TS: ts}))
	h.srv.AddUserMessage(aliceDM, "1718032003.000001", rep.TS, "explain live_image_not_live")
	h.send(slacklab.DirectMessage("env-dm-thread", slacklab.DM{User: alice, Channel: aliceDM, Text: "explain live_image_not_live", TS: "1718032003.000001", ThreadTS: rep.TS}))
	for _, env := range []string{"env-dm-bot", "env-dm-edit", "env-dm-again", "env-dm-thread"} {
		if _, err := h.srv.WaitAck(h.ctx(), env); err != nil {
			t.Fatalf("%s not acked: %v", env, err)
		}
	}
	// Stopping drains every command in flight: what was answered is final.
	h.stop()
	err := <-h.done
	h.done <- err
	if n := len(h.auditLines()); n != 2 {
		t.Errorf("%d commands audited, want 2 (the echo, the edit and the redelivery are not commands)", n)
	}
	later := h.srv.CallsTo("chat.postMessage")[posted:]
	if len(later) != 1 || later[0].Form.Get("channel") != aliceDM || later[0].Form.Get("thread_ts") != rep.TS || !strings.Contains(later[0].Form.Get("text"), "LIVE_IMAGE_NOT_LIVE") {
		for _, c := range later {
			t.Logf("posted: channel=%s thread=%s text=%.80s", c.Form.Get("channel"), c.Form.Get("thread_ts"), c.Form.Get("text"))
		}
		t.Errorf("after the report, want exactly the explanation, in the DM thread %s", rep.TS)
	}
}

// TestDirectMessageRefusedWhenDMsAreOff: with access.allowDMs off (the
// default), a DM gets a plain answer saying so, and ⛔.
func TestDirectMessageRefusedWhenDMsAreOff(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := start(t, "healthy-kustomize-argocd", func(c *bot.Config, s *slacklab.Config) {
		s.Channels = append(s.Channels, slacklab.Channel{ID: aliceDM, IsIM: true, IsMember: true})
	})
	const ts = "1718032100.000001"
	h.srv.AddUserMessage(aliceDM, ts, "", "diagnose web")
	h.send(slacklab.DirectMessage("env-dm-off", slacklab.DM{User: alice, Channel: aliceDM, Text: "diagnose web", TS: ts}))
	h.waitFor("the refusal is in the DM", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Channel == aliceDM && m.Via == "chat.postMessage" && strings.Contains(m.Text, "allowDMs")
		})) == 1
	})
	h.waitFor("the DM shows ⛔", func() bool {
		r := h.srv.Reactions(aliceDM, ts)
		return len(r) == 1 && r[0] == "no_entry"
	})
	if n := len(h.messages(isReport("argocd/web"))); n != 0 {
		t.Errorf("a refused DM got %d report(s)", n)
	}
}

// TestDMsNeedImHistory: allowing DMs makes im:history a required scope, and
// a token without it is refused at start with the scope named.
func TestDMsNeedImHistory(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	cfg := bot.Config{Service: &commands.Service{Policy: &commands.Policy{AllowDMs: true, Rules: []commands.Rule{{Channels: []string{"dm"}}}}}}
	if !slices.Contains(bot.RequiredScopes(cfg), "im:history") {
		t.Fatalf("required scopes %v lack im:history", bot.RequiredScopes(cfg))
	}
	srv := slacklab.Start(slacklab.Config{BotToken: botToken, AppToken: appToken, Scopes: []string{"app_mentions:read", "channels:read", "chat:write", "commands", "groups:read", "mpim:read", "reactions:write"}})
	defer srv.Close()
	cfg.BotToken, cfg.AppToken, cfg.APIURL = botToken, appToken, srv.APIURL()
	cfg.Log = slog.New(slog.DiscardHandler)
	_, err := bot.New(cfg).Verify(context.Background())
	if err == nil || !strings.Contains(err.Error(), "im:history") {
		t.Fatalf("want a start-up error naming im:history, got %v", err)
	}
}
