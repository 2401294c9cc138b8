package slacklab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

const (
	botToken = "xoxb-slacklab-test"
	appToken = "xapp-1-slacklab-test"

	alice    = "U0ALICE001"
	deploys  = "C0DEPLOYS1"
	parentTS = "1718031200.000100"
)

func testConfig() Config {
	return Config{
		BotToken: botToken,
		AppToken: appToken,
		Channels: []Channel{
			{ID: deploys, Name: "deploys", IsMember: true},
			{ID: "C0PRIVATE1", Name: "ops", IsPrivate: true},
		},
		Groups: map[string][]string{"S0APPROVE1": {alice, "U0BOB00002"}},
	}
}

func newServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	srv := Start(cfg)
	t.Cleanup(srv.Close)
	return srv
}

// patience bounds a wait for what should happen: a net for what never does, not a timing.
const patience = time.Minute

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	t.Cleanup(cancel)
	return ctx
}

func newAPI(srv *Server, token string, opts ...slack.Option) *slack.Client {
	opts = append([]slack.Option{slack.OptionAPIURL(srv.APIURL()), slack.OptionAppLevelToken(appToken)}, opts...)
	return slack.New(token, opts...)
}

// startClient runs a real socketmode client against srv until the test ends.
func startClient(t *testing.T, srv *Server, opts ...socketmode.Option) *socketmode.Client {
	t.Helper()
	client := socketmode.New(newAPI(srv, botToken), opts...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = client.RunContext(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return client
}

// next returns the next event of type typ, skipping others.
func next(t *testing.T, client *socketmode.Client, typ socketmode.EventType) socketmode.Event {
	t.Helper()
	timeout := time.After(patience)
	for {
		select {
		case e := <-client.Events:
			if e.Type == typ {
				return e
			}
		case <-timeout:
			t.Fatalf("no %s event", typ)
		}
	}
}

func send(t *testing.T, srv *Server, frame string) {
	t.Helper()
	if err := srv.Send(ctxT(t), frame); err != nil {
		t.Fatalf("Send: %v", err)
	}
}

func TestSocketModeEnvelopesAndAcks(t *testing.T) {
	srv := newServer(t, testConfig())
	client := startClient(t, srv)
	ctx := ctxT(t)

	if c := next(t, client, socketmode.EventTypeConnected).Data.(*socketmode.ConnectedEvent); c.ConnectionCount != 0 {
		t.Fatalf("ConnectionCount = %d", c.ConnectionCount)
	}
	if err := srv.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}

	send(t, srv, Hello())
	if e := next(t, client, socketmode.EventTypeHello); e.Request.ConnectionInfo.AppID != AppID {
		t.Fatalf("hello app id = %q", e.Request.ConnectionInfo.AppID)
	}

	// Slash command, acked with a payload.
	slash := Slash{User: alice, UserName: "alice", Channel: deploys, ChannelName: "deploys",
		Text: `web-frontend "v1.4.2"`, ResponseURL: srv.ResponseURL("cmd-1"), TriggerID: "trig-1"}
	send(t, srv, SlashCommand("env-slash", slash))
	e := next(t, client, socketmode.EventTypeSlashCommand)
	cmd := e.Data.(slack.SlashCommand)
	want := slack.SlashCommand{Token: verificationToken, TeamID: TeamID, TeamDomain: TeamDomain, ChannelID: deploys,
		ChannelName: "deploys", UserID: alice, UserName: "alice", Command: "/imgupd", Text: slash.Text,
		ResponseURL: slash.ResponseURL, TriggerID: "trig-1", APIAppID: AppID}
	if !reflect.DeepEqual(cmd, want) {
		t.Fatalf("slash command\n got %+v\nwant %+v", cmd, want)
	}
	if !e.Request.AcceptsResponsePayload {
		t.Fatal("accepts_response_payload not set")
	}
	client.Ack(*e.Request, map[string]any{"response_type": "ephemeral", "text": "Checking…"})
	ack, err := srv.WaitAck(ctx, "env-slash")
	if err != nil {
		t.Fatal(err)
	}
	var p struct{ Text string }
	if err := json.Unmarshal(ack.Payload, &p); err != nil || p.Text != "Checking…" {
		t.Fatalf("ack payload %s: %v", ack.Payload, err)
	}
	if sent := srv.SentAt("env-slash"); sent.IsZero() || ack.At.Before(sent) {
		t.Fatalf("SentAt %v, ack at %v", sent, ack.At)
	}

	// Threaded app_mention, acked without payload.
	send(t, srv, AppMention("env-mention", Mention{EventID: "Ev01", User: alice, Channel: deploys,
		Text: "<@U0BOTUSER1> status web-frontend", TS: "1718031234.567890", ThreadTS: parentTS, RetryAttempt: 1, RetryReason: "timeout"}))
	e = next(t, client, socketmode.EventTypeEventsAPI)
	ev := e.Data.(slackevents.EventsAPIEvent)
	m, ok := ev.InnerEvent.Data.(*slackevents.AppMentionEvent)
	if !ok {
		t.Fatalf("inner event %T", ev.InnerEvent.Data)
	}
	if m.ThreadTimeStamp != parentTS || m.TimeStamp != "1718031234.567890" || m.Channel != deploys || m.User != alice ||
		m.Text != "<@U0BOTUSER1> status web-frontend" || ev.TeamID != TeamID || ev.APIAppID != AppID {
		t.Fatalf("app mention %+v", m)
	}
	if cb := ev.Data.(*slackevents.EventsAPICallbackEvent); cb.EventID != "Ev01" || cb.EventTime != 1718031234 {
		t.Fatalf("callback %+v", cb)
	}
	if e.Request.RetryAttempt != 1 || e.Request.RetryReason != "timeout" {
		t.Fatalf("retry fields %+v", e.Request)
	}
	client.Ack(*e.Request)
	ack, err = srv.WaitAck(ctx, "env-mention")
	if err != nil {
		t.Fatal(err)
	}
	if ack.Payload != nil || ack.Raw != `{"envelope_id":"env-mention"}` {
		t.Fatalf("bare ack = %q (payload %s)", ack.Raw, ack.Payload)
	}

	// Top-level mention: no thread_ts.
	send(t, srv, AppMention("env-top", Mention{User: alice, Channel: deploys, Text: "<@U0BOTUSER1> help", TS: "1718031240.000001"}))
	ev = next(t, client, socketmode.EventTypeEventsAPI).Data.(slackevents.EventsAPIEvent)
	if m := ev.InnerEvent.Data.(*slackevents.AppMentionEvent); m.ThreadTimeStamp != "" {
		t.Fatalf("thread_ts = %q", m.ThreadTimeStamp)
	}

	// Button click in a threaded bot message.
	send(t, srv, BlockAction("env-action", Action{User: alice, UserName: "alice", Channel: deploys, ChannelName: "deploys",
		MessageTS: "1718031300.001200", ThreadTS: parentTS, ActionID: "imgupd_approve", BlockID: "approval",
		Value: "web-frontend:v1.4.2", ResponseURL: srv.ResponseURL("act-1")}))
	e = next(t, client, socketmode.EventTypeInteractive)
	cb := e.Data.(slack.InteractionCallback)
	if cb.Type != slack.InteractionTypeBlockActions || len(cb.ActionCallback.BlockActions) != 1 {
		t.Fatalf("interaction %+v", cb)
	}
	a := cb.ActionCallback.BlockActions[0]
	if a.ActionID != "imgupd_approve" || a.BlockID != "approval" || a.Value != "web-frontend:v1.4.2" {
		t.Fatalf("block action %+v", a)
	}
	if cb.Message.Timestamp != "1718031300.001200" || cb.Message.ThreadTimestamp != parentTS ||
		cb.Channel.ID != deploys || cb.User.ID != alice || cb.Team.ID != TeamID ||
		cb.Container.Type != "message" || cb.ResponseURL != srv.ResponseURL("act-1") {
		t.Fatalf("interaction %+v", cb)
	}
	client.Ack(*e.Request)
	if _, err := srv.WaitAck(ctx, "env-action"); err != nil {
		t.Fatal(err)
	}
	if n := srv.AckCount("env-action"); n != 1 {
		t.Fatalf("AckCount = %d", n)
	}
	if n := len(srv.Acks()); n != 3 {
		t.Fatalf("%d acks, want 3 (the top-level mention was not acked)", n)
	}
}

// sendTen sends ten slash commands and checks that all arrive and get acked.
func sendTen(t *testing.T, srv *Server, client *socketmode.Client, prefix string) {
	t.Helper()
	for i := range 10 {
		send(t, srv, SlashCommand(fmt.Sprintf("%s-%d", prefix, i), Slash{User: alice, Channel: deploys, Text: "status"}))
	}
	for range 10 {
		e := next(t, client, socketmode.EventTypeSlashCommand)
		client.Ack(*e.Request)
	}
	for i := range 10 {
		if _, err := srv.WaitAck(ctxT(t), fmt.Sprintf("%s-%d", prefix, i)); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
}

func TestReconnectAfterDrop(t *testing.T) {
	srv := newServer(t, testConfig())
	client := startClient(t, srv)
	next(t, client, socketmode.EventTypeConnected)
	if err := srv.WaitConnections(ctxT(t), 1); err != nil {
		t.Fatal(err)
	}
	sendTen(t, srv, client, "before")

	srv.Drop()
	if c := next(t, client, socketmode.EventTypeConnected).Data.(*socketmode.ConnectedEvent); c.ConnectionCount != 1 {
		t.Fatalf("ConnectionCount = %d", c.ConnectionCount)
	}
	if err := srv.WaitConnections(ctxT(t), 2); err != nil {
		t.Fatal(err)
	}
	if n := srv.Connections(); n != 2 {
		t.Fatalf("Connections = %d", n)
	}
	if n := len(srv.CallsTo("apps.connections.open")); n != 2 {
		t.Fatalf("%d apps.connections.open calls", n)
	}
	sendTen(t, srv, client, "after")
}

func TestReconnectAfterDisconnect(t *testing.T) {
	srv := newServer(t, testConfig())
	client := startClient(t, srv)
	next(t, client, socketmode.EventTypeConnected)
	if err := srv.SendDisconnect(ctxT(t), "refresh_requested"); err != nil {
		t.Fatal(err)
	}
	if c := next(t, client, socketmode.EventTypeConnected).Data.(*socketmode.ConnectedEvent); c.ConnectionCount != 1 {
		t.Fatalf("ConnectionCount = %d", c.ConnectionCount)
	}
	if err := srv.WaitConnections(ctxT(t), 2); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.CallsTo("apps.connections.open")); n != 2 {
		t.Fatalf("%d apps.connections.open calls", n)
	}
	sendTen(t, srv, client, "after")
}

// The server's pings keep a client with a short ping timeout connected.
func TestPingsKeepConnectionAlive(t *testing.T) {
	cfg := testConfig()
	cfg.PingInterval = 20 * time.Millisecond
	srv := newServer(t, cfg)
	startClient(t, srv, socketmode.OptionPingInterval(150*time.Millisecond))
	// 20 pongs take about 400 ms, more than two client ping timeouts.
	err := srv.waitFor(ctxT(t), func() bool { return srv.pongs >= 20 })
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.Connections(); n != 1 {
		t.Fatalf("Connections = %d, want 1", n)
	}
}

func TestSocketModeAuth(t *testing.T) {
	srv := newServer(t, testConfig())
	client := socketmode.New(slack.New(botToken, slack.OptionAPIURL(srv.APIURL()), slack.OptionAppLevelToken("xapp-wrong")))
	if err := client.RunContext(ctxT(t)); err == nil || err.Error() != "invalid_auth" {
		t.Fatalf("RunContext = %v, want invalid_auth", err)
	}
	// No Authorization header at all.
	resp, err := http.Post(srv.APIURL()+"apps.connections.open", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		OK    bool
		Error string
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Error != "not_authed" {
		t.Fatalf("body %+v, %v", body, err)
	}
	if srv.Connections() != 0 {
		t.Fatal("connected with a wrong token")
	}
}

func TestWebAPI(t *testing.T) {
	srv := newServer(t, testConfig())
	api := newAPI(srv, botToken)

	auth, err := api.AuthTest()
	if err != nil {
		t.Fatal(err)
	}
	if auth.UserID != BotUserID || auth.BotID != BotID || auth.TeamID != TeamID || auth.Team != "Acme" ||
		auth.User != "imgupd" || auth.URL != "https://acme.slack.com/" {
		t.Fatalf("auth.test %+v", auth)
	}

	// The user message a mention refers to: the bot reacts to it.
	srv.AddUserMessage(deploys, parentTS, "", "<@U0BOTUSER1> status")
	userMsg := slack.NewRefToMessage(deploys, parentTS)
	if err := api.AddReaction("eyes", userMsg); err != nil {
		t.Fatal(err)
	}
	if err := api.AddReaction("eyes", userMsg); err == nil || err.Error() != "already_reacted" {
		t.Fatalf("second AddReaction = %v", err)
	}

	blocks := slack.MsgOptionBlocks(slack.NewSectionBlock(slack.NewTextBlockObject("mrkdwn", "*hi*", false, false), nil, nil))
	ch, ts, err := api.PostMessage(deploys, slack.MsgOptionText("hello", false), blocks, slack.MsgOptionTS(parentTS))
	if err != nil {
		t.Fatal(err)
	}
	if ch != deploys || ts != "1718031300.000101" {
		t.Fatalf("PostMessage = %q %q", ch, ts)
	}
	_, ts2, err := api.PostMessage("#deploys", slack.MsgOptionText("second", false))
	if err != nil || ts2 != "1718031300.000102" {
		t.Fatalf("PostMessage by name = %q, %v", ts2, err)
	}
	call := srv.CallsTo("chat.postMessage")[0]
	if call.Form.Get("channel") != deploys || call.Form.Get("text") != "hello" || call.Form.Get("thread_ts") != parentTS ||
		!strings.Contains(call.Form.Get("blocks"), `"*hi*"`) || call.Status != 200 || call.Error != "" {
		t.Fatalf("recorded call %+v", call)
	}

	ets, err := api.PostEphemeral(deploys, alice, slack.MsgOptionText("only you", false))
	if err != nil || ets == "" {
		t.Fatalf("PostEphemeral = %q, %v", ets, err)
	}
	if _, _, _, err := api.UpdateMessage(deploys, ts, slack.MsgOptionText("updated", false)); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := api.UpdateMessage(deploys, ets, slack.MsgOptionText("x", false)); err == nil || err.Error() != "cant_update_message" {
		t.Fatalf("update ephemeral = %v", err)
	}
	if _, _, _, err := api.UpdateMessage(deploys, "1.000000", slack.MsgOptionText("x", false)); err == nil || err.Error() != "message_not_found" {
		t.Fatalf("update unknown = %v", err)
	}
	if err := api.AddReaction("white_check_mark", slack.NewRefToMessage(deploys, ts)); err != nil {
		t.Fatal(err)
	}
	if err := api.AddReaction("eyes", slack.NewRefToMessage(deploys, "9.000000")); err == nil || err.Error() != "message_not_found" {
		t.Fatalf("react to unknown = %v", err)
	}
	if err := api.RemoveReaction("eyes", userMsg); err != nil {
		t.Fatal(err)
	}
	if err := api.RemoveReaction("eyes", userMsg); err == nil || err.Error() != "no_reaction" {
		t.Fatalf("second RemoveReaction = %v", err)
	}
	if r := srv.Reactions(deploys, ts); !reflect.DeepEqual(r, []string{"white_check_mark"}) {
		t.Fatalf("Reactions = %v", r)
	}

	msgs := srv.Messages()
	if len(msgs) != 4 {
		t.Fatalf("%d messages: %+v", len(msgs), msgs)
	}
	if u := msgs[0]; u.Via != "user" || u.TS != parentTS || len(u.Reactions) != 0 {
		t.Fatalf("user message %+v", u)
	}
	if p := msgs[1]; p.Via != "chat.postMessage" || p.Text != "updated" || p.Edits != 1 || p.Blocks != nil ||
		p.ThreadTS != parentTS || p.User != BotUserID || !reflect.DeepEqual(p.Reactions, []string{"white_check_mark"}) {
		t.Fatalf("posted message %+v", p)
	}
	if e := msgs[3]; !e.Ephemeral || e.User != alice || e.TS != ets || e.Via != "chat.postEphemeral" || e.Text != "only you" {
		t.Fatalf("ephemeral %+v", e)
	}

	info, err := api.GetConversationInfo(&slack.GetConversationInfoInput{ChannelID: "C0PRIVATE1"})
	if err != nil || info.ID != "C0PRIVATE1" || info.Name != "ops" || !info.IsPrivate || info.IsMember || !info.IsChannel {
		t.Fatalf("GetConversationInfo = %+v, %v", info, err)
	}
	if _, err := api.GetConversationInfo(&slack.GetConversationInfoInput{ChannelID: "C0NOPE0001"}); err == nil || err.Error() != "channel_not_found" {
		t.Fatalf("unknown channel info = %v", err)
	}

	members, err := api.GetUserGroupMembers("S0APPROVE1")
	if err != nil || !reflect.DeepEqual(members, []string{alice, "U0BOB00002"}) {
		t.Fatalf("GetUserGroupMembers = %v, %v", members, err)
	}
	if _, err := api.GetUserGroupMembers("S0NOPE0001"); err == nil || err.Error() != "no_such_subteam" {
		t.Fatalf("unknown group = %v", err)
	}
	user, err := api.GetUserInfo(alice)
	if err != nil || user.ID != alice || user.Name != "u0alice001" || user.IsBot {
		t.Fatalf("GetUserInfo = %+v, %v", user, err)
	}

	if _, _, err := api.PostMessage("C0PRIVATE1", slack.MsgOptionText("x", false)); err == nil || err.Error() != "not_in_channel" {
		t.Fatalf("post to non-member channel = %v", err)
	}
	if _, _, err := api.PostMessage("C0NOPE0001", slack.MsgOptionText("x", false)); err == nil || err.Error() != "channel_not_found" {
		t.Fatalf("post to unknown channel = %v", err)
	}
	if _, err := api.GetTeamInfo(); !errors.As(err, new(slack.StatusCodeError)) {
		t.Fatalf("unknown method = %v", err)
	}
	if c := srv.CallsTo("team.info"); len(c) != 1 || c[0].Status != http.StatusNotFound {
		t.Fatalf("team.info calls %+v", c)
	}
}

func TestWrongBotToken(t *testing.T) {
	srv := newServer(t, testConfig())
	api := newAPI(srv, "xoxb-wrong")
	if _, err := api.AuthTest(); err == nil || err.Error() != "invalid_auth" {
		t.Fatalf("AuthTest = %v", err)
	}
	if _, _, err := api.PostMessage(deploys, slack.MsgOptionText("x", false)); err == nil || err.Error() != "invalid_auth" {
		t.Fatalf("PostMessage = %v", err)
	}
	if len(srv.Messages()) != 0 {
		t.Fatal("message stored despite invalid_auth")
	}
	if c := srv.CallsTo("chat.postMessage"); len(c) != 1 || c[0].Error != "invalid_auth" {
		t.Fatalf("calls %+v", c)
	}
}

func TestFailureInjection(t *testing.T) {
	srv := newServer(t, testConfig())
	api := newAPI(srv, botToken)

	srv.RateLimit("chat.postMessage", 1, 1500*time.Millisecond)
	_, _, err := api.PostMessage(deploys, slack.MsgOptionText("x", false))
	var rl *slack.RateLimitedError
	if !errors.As(err, &rl) || rl.RetryAfter != 2*time.Second {
		t.Fatalf("PostMessage = %v, want RateLimitedError 2s", err)
	}
	if _, _, err := api.PostMessage(deploys, slack.MsgOptionText("x", false)); err != nil {
		t.Fatalf("after rate limit: %v", err)
	}

	srv.FailNext("chat.postMessage", 2, "msg_too_long")
	for range 2 {
		if _, _, err := api.PostMessage(deploys, slack.MsgOptionText("x", false)); err == nil || err.Error() != "msg_too_long" {
			t.Fatalf("FailNext: %v", err)
		}
	}
	if _, _, err := api.PostMessage(deploys, slack.MsgOptionText("x", false)); err != nil {
		t.Fatalf("after FailNext: %v", err)
	}

	calls, err := srv.WaitCalls(ctxT(t), "chat.postMessage", 5)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range calls {
		got = append(got, fmt.Sprintf("%d %s", c.Status, c.Error))
	}
	if want := []string{"429 ratelimited", "200 ", "200 msg_too_long", "200 msg_too_long", "200 "}; !reflect.DeepEqual(got, want) {
		t.Fatalf("calls %q, want %q", got, want)
	}
	if n := len(srv.Messages()); n != 2 {
		t.Fatalf("%d messages, want 2", n)
	}

	srv.SetLatency(50 * time.Millisecond)
	start := time.Now()
	if _, err := api.AuthTest(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Fatalf("answer took %v with 50ms latency", d)
	}
}

func TestWaitCalls(t *testing.T) {
	srv := newServer(t, testConfig())
	api := newAPI(srv, botToken)
	go func() { _, _, _ = api.PostMessage(deploys, slack.MsgOptionText("later", false)) }()
	calls, err := srv.WaitCalls(ctxT(t), "chat.postMessage", 1)
	if err != nil || len(calls) != 1 || calls[0].Form.Get("text") != "later" {
		t.Fatalf("WaitCalls = %+v, %v", calls, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := srv.WaitCalls(ctx, "chat.update", 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitCalls without calls = %v", err)
	}
}

func TestResponseURL(t *testing.T) {
	srv := newServer(t, testConfig())
	api := newAPI(srv, botToken)
	ctx := ctxT(t)

	_, _, err := api.PostMessageContext(ctx, "", slack.MsgOptionResponseURL(srv.ResponseURL("cmd-1"), slack.ResponseTypeEphemeral),
		slack.MsgOptionText("done", false))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = api.PostMessageContext(ctx, "", slack.MsgOptionResponseURL(srv.ResponseURL("act-1"), slack.ResponseTypeInChannel),
		slack.MsgOptionReplaceOriginal(srv.ResponseURL("act-1")), slack.MsgOptionText("approved", false))
	if err != nil {
		t.Fatal(err)
	}

	calls := srv.CallsTo("response_url")
	if len(calls) != 2 || calls[0].ResponseID != "cmd-1" || len(calls[0].Form) != 0 ||
		!strings.Contains(string(calls[0].Body), `"text":"done"`) || calls[0].Status != 200 {
		t.Fatalf("response_url calls %+v", calls)
	}
	msgs := srv.Messages()
	if len(msgs) != 2 {
		t.Fatalf("messages %+v", msgs)
	}
	if m := msgs[0]; m.Via != "response_url" || m.ResponseID != "cmd-1" || m.Text != "done" ||
		m.ResponseType != "ephemeral" || !m.Ephemeral || m.Blocks != nil {
		t.Fatalf("ephemeral reply %+v", m)
	}
	if m := msgs[1]; m.ResponseID != "act-1" || m.ResponseType != "in_channel" || m.Ephemeral || !m.ReplaceOriginal {
		t.Fatalf("in-channel reply %+v", m)
	}
}

func TestScopesHeader(t *testing.T) {
	for _, scopes := range [][]string{{"chat:write", "commands"}, nil} {
		cfg := testConfig()
		cfg.Scopes = scopes
		srv := newServer(t, cfg)
		var got []string
		api := newAPI(srv, botToken, slack.OptionOnResponseHeaders(func(_ string, h http.Header) {
			got = h.Values("X-OAuth-Scopes")
		}))
		if _, err := api.AuthTest(); err != nil {
			t.Fatal(err)
		}
		switch {
		case scopes != nil && !reflect.DeepEqual(got, []string{"chat:write, commands"}):
			t.Fatalf("X-OAuth-Scopes = %q", got)
		case scopes == nil && got != nil:
			t.Fatalf("X-OAuth-Scopes = %q without scopes", got)
		}
	}
}

func TestSendWaitsForConnection(t *testing.T) {
	srv := newServer(t, testConfig())
	done := make(chan error, 1)
	ctx := ctxT(t)
	go func() { done <- srv.Send(ctx, Hello()) }()
	client := startClient(t, srv)
	next(t, client, socketmode.EventTypeHello)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if err := srv.Send(ctxT(t), Hello()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after Close = %v", err)
	}
}

// FuzzShowMrkdwn: the reader takes any text; every live sequence it reports
// is in the text as sent.
func FuzzShowMrkdwn(f *testing.F) {
	f.Add("<!channel> `<@U1>` ```<https://x|y>``` :fire: &lt;")
	f.Add("``` `` ` ```")
	f.Fuzz(func(t *testing.T, s string) {
		_, live, _ := ShowMrkdwn(s)
		for _, l := range live {
			if !strings.Contains(s, l.Raw) {
				t.Fatalf("%q: live %q is not in the text", s, l.Raw)
			}
		}
	})
}
