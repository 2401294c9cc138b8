package slacklab

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Call is one request the server answered: a Web API method, a response URL
// post, or a request to an unknown path.
type Call struct {
	// Method is the API method name ("chat.postMessage"), "response_url" for
	// a post to a ResponseURL, or the path without its leading "/" for an
	// unknown route (answered 404).
	Method string
	Form   url.Values // form fields plus query parameters; empty for response URLs
	Body   []byte     // the raw request body
	Status int        // HTTP status answered
	Error  string     // the "error" answered ("ratelimited" for a 429), "" on success
	At     time.Time  // when the request arrived
	// ResponseID is the id given to ResponseURL, for Method "response_url".
	ResponseID string
}

// Message is what users would see: a bot post, an ephemeral message, a
// response URL reply or a user message registered with AddUserMessage.
type Message struct {
	Channel, TS, ThreadTS, Text string
	Blocks                      json.RawMessage // nil when the message has no blocks
	Ephemeral                   bool
	// User is the author (BotUserID for chat.postMessage), or for an
	// ephemeral message the only user who sees it; "" for AddUserMessage
	// and response URL replies.
	User string
	// Via is "chat.postMessage", "chat.postEphemeral", "response_url" or
	// "user" (AddUserMessage).
	Via string
	// ResponseType, ReplaceOriginal, DeleteOriginal and ResponseID are set for
	// response URL replies; their Channel and TS are empty (the server does
	// not know which conversation a response URL belongs to).
	ResponseType                    string
	ReplaceOriginal, DeleteOriginal bool
	ResponseID                      string
	Edits                           int      // successful chat.update calls
	Reactions                       []string // reactions added by the bot, in order
}

type rateRule struct {
	times      int
	retryAfter time.Duration
}

type failRule struct {
	times int
	err   string
}

type authKind int

const (
	authBot authKind = iota // form field token (or Bearer) must be the bot token
	authApp                 // Bearer header must be the app-level token
)

// apiHandler answers one Web API call with s.mu held: the fields to add to
// {"ok":true}, or a Slack error code.
type apiHandler func(form url.Values) (map[string]any, string)

// api wraps a Web API method: read the form, check the token, apply
// failure injection, answer and record the Call.
func (s *Server) api(method string, auth authKind, h apiHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		body, _ := io.ReadAll(r.Body)
		form := url.Values{}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
			form, _ = url.ParseQuery(string(body))
		}
		for k, v := range r.URL.Query() {
			form[k] = append(form[k], v...)
		}
		var authErr string
		switch auth {
		case authBot:
			tok := form.Get("token")
			if tok == "" {
				tok = bearer(r)
			}
			authErr = checkToken(tok, s.cfg.BotToken)
		case authApp:
			authErr = checkToken(bearer(r), s.cfg.AppToken)
		}
		s.serve(w, r, Call{Method: method, Form: form, Body: body, At: at}, authErr, func() (map[string]any, string) {
			return h(form)
		})
	}
}

func checkToken(got, want string) string {
	switch {
	case got == "":
		return "not_authed"
	case want != "" && got != want:
		return "invalid_auth"
	}
	return ""
}

// serve delays by the configured latency, then answers call: authErr, an
// injected 429 or failure, or h. It records the call.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, call Call, authErr string, h func() (map[string]any, string)) {
	s.mu.Lock()
	d := s.latency
	s.mu.Unlock()
	if d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
		case <-s.done:
		}
		t.Stop()
	}
	if s.cfg.Scopes != nil {
		w.Header().Set("X-OAuth-Scopes", strings.Join(s.cfg.Scopes, ", "))
	}

	s.mu.Lock()
	status, resp, slackErr := http.StatusOK, map[string]any(nil), authErr
	if slackErr == "" {
		rl, fl := s.rate[call.Method], s.fail[call.Method]
		switch {
		case rl != nil && rl.times > 0:
			rl.times--
			status, slackErr = http.StatusTooManyRequests, "ratelimited"
			secs := max(1, int64((rl.retryAfter+time.Second-1)/time.Second))
			w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
		case fl != nil && fl.times > 0:
			fl.times--
			slackErr = fl.err
		default:
			resp, slackErr = h()
		}
	}
	if slackErr != "" {
		resp = map[string]any{"ok": false, "error": slackErr}
	} else {
		if resp == nil {
			resp = map[string]any{}
		}
		resp["ok"] = true
	}
	call.Status, call.Error = status, slackErr
	s.calls = append(s.calls, call)
	s.notifyLocked()
	s.mu.Unlock()

	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(resp)
}

// notFound answers unknown routes with 404, like slacktest, and records them.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.calls = append(s.calls, Call{Method: strings.TrimPrefix(r.URL.Path, "/"), Form: url.Values{}, Body: body,
		Status: http.StatusNotFound, At: time.Now()})
	s.notifyLocked()
	s.mu.Unlock()
	http.NotFound(w, r)
}

// --- failure injection ---------------------------------------------------

// RateLimit makes the next times calls to method (a Web API method name,
// "apps.connections.open" or "response_url") answer HTTP 429 with
// Retry-After set to retryAfter in whole seconds, rounded up, at least 1, and
// body {"ok":false,"error":"ratelimited"}. It replaces an earlier RateLimit
// of the same method and is applied before FailNext.
func (s *Server) RateLimit(method string, times int, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rate[method] = &rateRule{times: times, retryAfter: retryAfter}
}

// FailNext makes the next times calls to method answer HTTP 200
// {"ok":false,"error":slackError}. It replaces an earlier FailNext of the
// same method.
func (s *Server) FailNext(method string, times int, slackError string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[method] = &failRule{times: times, err: slackError}
}

// SetLatency delays every Web API and response URL answer by d (default 0).
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}

// --- recorded state ------------------------------------------------------

// Calls returns every answered request in order. The Form and Body of a Call
// must not be modified.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// CallsTo returns the calls to method, whatever their outcome.
func (s *Server) CallsTo(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.callsToLocked(method)
}

func (s *Server) callsToLocked(method string) []Call {
	var out []Call
	for _, c := range s.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// WaitCalls waits until at least n calls to method were answered, counting
// every call whatever its outcome (errors, 429s, auth failures included), and
// returns all calls to method.
func (s *Server) WaitCalls(ctx context.Context, method string, n int) ([]Call, error) {
	var out []Call
	err := s.waitFor(ctx, func() bool {
		out = s.callsToLocked(method)
		return len(out) >= n
	})
	return out, err
}

// Messages returns the messages in post order, with chat.update applied in
// place and the bot's reactions listed. Messages registered with
// AddUserMessage are included.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, len(s.msgs))
	for i, m := range s.msgs {
		out[i] = *m
		out[i].Blocks = slices.Clone(m.Blocks)
		out[i].Reactions = slices.Clone(m.Reactions)
	}
	return out
}

// Reactions returns the reactions the bot added to the message channel/ts.
func (s *Server) Reactions(channel, ts string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch, ok := s.channel(channel); ok {
		channel = ch.ID
	}
	if m := s.byKey[channel+"|"+ts]; m != nil {
		return slices.Clone(m.Reactions)
	}
	return nil
}

// AddUserMessage registers a message written by a user (e.g. the one an
// app_mention refers to) so that the bot can react to it. Registering the same
// channel and ts again updates its thread_ts and text.
func (s *Server) AddUserMessage(channel, ts, threadTS, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.byKey[channel+"|"+ts]; m != nil {
		m.ThreadTS, m.Text = threadTS, text
	} else {
		s.addLocked(&Message{Channel: channel, TS: ts, ThreadTS: threadTS, Text: text, Via: "user"})
	}
	s.tsUsed[ts] = true
	s.notifyLocked()
}

// ResponseURL returns an absolute response URL on this server for id. Posts
// to it are recorded as Calls with Method "response_url" and as Messages.
func (s *Server) ResponseURL(id string) string {
	return s.base + "/response/" + url.PathEscape(id)
}

func (s *Server) addLocked(m *Message) {
	s.msgs = append(s.msgs, m)
	if m.TS != "" {
		s.byKey[m.Channel+"|"+m.TS] = m
	}
}

// nextTS returns a new unique, increasing message ts: 1718031300.000101,
// 1718031300.000102, … skipping any ts already in use.
func (s *Server) nextTS() string {
	for {
		s.tsSeq++
		n := 100 + s.tsSeq
		ts := fmt.Sprintf("%d.%06d", 1718031300+n/1000000, n%1000000)
		if !s.tsUsed[ts] {
			s.tsUsed[ts] = true
			return ts
		}
	}
}

// channel finds a configured conversation by ID or by name ("deploys" or
// "#deploys").
func (s *Server) channel(idOrName string) (Channel, bool) {
	name := strings.TrimPrefix(idOrName, "#")
	for _, c := range s.cfg.Channels {
		if c.ID == idOrName || (name != "" && c.Name == name) {
			return c, true
		}
	}
	return Channel{}, false
}

// postable finds a channel the bot may post to, or returns the Slack error.
func (s *Server) postable(idOrName string) (Channel, string) {
	c, ok := s.channel(idOrName)
	switch {
	case !ok:
		return c, "channel_not_found"
	case !c.IsMember:
		return c, "not_in_channel"
	}
	return c, ""
}

// content reads text and blocks from a chat.* form.
func content(form url.Values) (text string, blocks json.RawMessage, slackErr string) {
	text = form.Get("text")
	if b := form.Get("blocks"); b != "" {
		var v []json.RawMessage
		if json.Unmarshal([]byte(b), &v) != nil {
			return "", nil, "invalid_blocks"
		}
		if len(v) > 0 {
			blocks = json.RawMessage(b)
		}
	}
	if text == "" && blocks == nil && !form.Has("blocks") {
		return "", nil, "no_text"
	}
	return text, blocks, ""
}

// botMessage is the message object Slack echoes for a bot post.
func botMessage(m *Message) map[string]any {
	msg := map[string]any{
		"user": BotUserID, "type": "message", "ts": m.TS, "bot_id": BotID, "app_id": AppID,
		"text": m.Text, "team": TeamID,
		"bot_profile": map[string]any{"id": BotID, "app_id": AppID, "name": "imgupd", "deleted": false, "team_id": TeamID},
	}
	if m.ThreadTS != "" {
		msg["thread_ts"] = m.ThreadTS
	}
	if m.Blocks != nil {
		msg["blocks"] = m.Blocks
	}
	return msg
}

// --- Web API methods (called with s.mu held) -----------------------------

func (s *Server) appsConnectionsOpen(url.Values) (map[string]any, string) {
	s.tickets++
	host := strings.TrimPrefix(s.base, "http://")
	return map[string]any{"url": fmt.Sprintf("ws://%s/link/?ticket=%d&app_id=%s", host, s.tickets, AppID)}, ""
}

func (s *Server) authTest(url.Values) (map[string]any, string) {
	return map[string]any{
		"url": "https://" + TeamDomain + ".slack.com/", "team": "Acme", "user": "imgupd",
		"team_id": TeamID, "user_id": BotUserID, "bot_id": BotID, "is_enterprise_install": false,
	}, ""
}

func (s *Server) postMessage(form url.Values) (map[string]any, string) {
	ch, e := s.postable(form.Get("channel"))
	if e != "" {
		return nil, e
	}
	text, blocks, e := content(form)
	if e != "" {
		return nil, e
	}
	m := &Message{Channel: ch.ID, TS: s.nextTS(), ThreadTS: form.Get("thread_ts"), Text: text, Blocks: blocks,
		User: BotUserID, Via: "chat.postMessage"}
	s.addLocked(m)
	return map[string]any{"channel": ch.ID, "ts": m.TS, "message": botMessage(m)}, ""
}

func (s *Server) postEphemeral(form url.Values) (map[string]any, string) {
	ch, e := s.postable(form.Get("channel"))
	if e != "" {
		return nil, e
	}
	user := form.Get("user")
	if user == "" {
		return nil, "user_not_in_channel"
	}
	text, blocks, e := content(form)
	if e != "" {
		return nil, e
	}
	m := &Message{Channel: ch.ID, TS: s.nextTS(), ThreadTS: form.Get("thread_ts"), Text: text, Blocks: blocks,
		Ephemeral: true, User: user, Via: "chat.postEphemeral"}
	s.addLocked(m)
	return map[string]any{"message_ts": m.TS}, ""
}

func (s *Server) update(form url.Values) (map[string]any, string) {
	ch, ok := s.channel(form.Get("channel"))
	if !ok {
		return nil, "channel_not_found"
	}
	m := s.byKey[ch.ID+"|"+form.Get("ts")]
	switch {
	case m == nil:
		return nil, "message_not_found"
	case m.Ephemeral || m.Via != "chat.postMessage":
		return nil, "cant_update_message"
	}
	text, blocks, e := content(form)
	if e != "" {
		return nil, e
	}
	// As documented for chat.update: text without blocks removes the blocks.
	m.Text, m.Blocks = text, blocks
	m.Edits++
	return map[string]any{"channel": ch.ID, "ts": m.TS, "text": m.Text, "message": botMessage(m)}, ""
}

// reactionTarget finds the message a reactions.* call names.
func (s *Server) reactionTarget(form url.Values) (*Message, string, string) {
	name := strings.Trim(form.Get("name"), ":")
	if name == "" {
		return nil, "", "invalid_name"
	}
	ch, ok := s.channel(form.Get("channel"))
	if !ok {
		return nil, "", "channel_not_found"
	}
	m := s.byKey[ch.ID+"|"+form.Get("timestamp")]
	if m == nil || m.Ephemeral {
		return nil, "", "message_not_found"
	}
	return m, name, ""
}

func (s *Server) reactionsAdd(form url.Values) (map[string]any, string) {
	m, name, e := s.reactionTarget(form)
	switch {
	case e != "":
		return nil, e
	case slices.Contains(m.Reactions, name):
		return nil, "already_reacted"
	}
	m.Reactions = append(m.Reactions, name)
	return nil, ""
}

func (s *Server) reactionsRemove(form url.Values) (map[string]any, string) {
	m, name, e := s.reactionTarget(form)
	if e != "" {
		return nil, e
	}
	i := slices.Index(m.Reactions, name)
	if i < 0 {
		return nil, "no_reaction"
	}
	m.Reactions = slices.Delete(m.Reactions, i, i+1)
	return nil, ""
}

func (s *Server) conversationsInfo(form url.Values) (map[string]any, string) {
	c, ok := s.channel(form.Get("channel"))
	if !ok {
		return nil, "channel_not_found"
	}
	return map[string]any{"channel": map[string]any{
		"id": c.ID, "name": c.Name, "name_normalized": c.Name, "is_channel": !c.IsIM && !c.IsMPIM, "is_group": c.IsMPIM,
		"is_im": c.IsIM, "is_mpim": c.IsMPIM, "is_private": c.IsPrivate || c.IsMPIM, "is_member": c.IsMember,
		"is_archived": false, "context_team_id": TeamID, "is_shared": c.IsExtShared, "is_ext_shared": c.IsExtShared,
	}}, ""
}

func (s *Server) usergroupsUsersList(form url.Values) (map[string]any, string) {
	users, ok := s.cfg.Groups[form.Get("usergroup")]
	if !ok {
		return nil, "no_such_subteam"
	}
	if users == nil {
		users = []string{}
	}
	return map[string]any{"users": users}, ""
}

func (s *Server) usersInfo(form url.Values) (map[string]any, string) {
	id := form.Get("user")
	if id == "" {
		return nil, "user_not_found"
	}
	name, isBot := strings.ToLower(id), false
	if id == BotUserID {
		name, isBot = "imgupd", true
	}
	return map[string]any{"user": map[string]any{
		"id": id, "team_id": TeamID, "name": name, "real_name": name, "deleted": false, "is_bot": isBot,
		"profile": map[string]any{"real_name": name, "display_name": name, "team": TeamID},
	}}, ""
}

// responseURL answers posts to ResponseURL(id): JSON body, no token.
func (s *Server) responseURL(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	id, _ := url.PathUnescape(strings.TrimPrefix(r.URL.Path, "/response/"))
	call := Call{Method: "response_url", Form: url.Values{}, Body: body, At: time.Now(), ResponseID: id}
	s.serve(w, r, call, "", func() (map[string]any, string) {
		var v struct {
			Text            string          `json:"text"`
			Blocks          json.RawMessage `json:"blocks"`
			ResponseType    string          `json:"response_type"`
			ThreadTS        string          `json:"thread_ts"`
			ReplaceOriginal bool            `json:"replace_original"`
			DeleteOriginal  bool            `json:"delete_original"`
		}
		if r.Method != http.MethodPost || json.Unmarshal(body, &v) != nil {
			return nil, "invalid_payload"
		}
		if string(v.Blocks) == "null" {
			v.Blocks = nil
		}
		s.addLocked(&Message{ThreadTS: v.ThreadTS, Text: v.Text, Blocks: v.Blocks, Via: "response_url",
			Ephemeral: v.ResponseType != "in_channel", ResponseType: v.ResponseType,
			ReplaceOriginal: v.ReplaceOriginal, DeleteOriginal: v.DeleteOriginal, ResponseID: id})
		return nil, ""
	})
}
