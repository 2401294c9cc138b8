package slacklab

import (
	"strconv"
	"strings"
	"time"
)

// Builders of whole Socket Mode frames (envelope included), shaped like the
// frames Slack documents for hello, slash_commands, events_api/app_mention,
// events_api/message (message.im) and
// interactive/block_actions, and checked against slack-go v0.35.0's parsers.
// Pass the result to Server.Send.

// verificationToken is the legacy token field of payloads; slack-go ignores it.
const verificationToken = "slacklab-verification-token"

// Slash is the content of a slash command invocation.
type Slash struct {
	User, UserName, Channel, ChannelName, Text, ResponseURL, TriggerID string
}

// Mention is an app_mention event. ThreadTS is sent only when set (a mention
// in a thread); RetryAttempt and RetryReason fill the envelope's retry fields.
type Mention struct {
	EventID, User, Channel, Text, TS, ThreadTS string
	RetryAttempt                               int
	RetryReason                                string
}

// DM is a message event in a direct message with the bot (channel_type
// "im", the message.im subscription). BotID and SubType are sent only when
// set: the bot's own messages carry bot_id, edits carry subtype
// "message_changed".
type DM struct {
	EventID, User, Channel, Text, TS, ThreadTS, BotID, SubType string
}

// Action is a click on a button of a bot message. MessageTS is the bot
// message's ts, ThreadTS its thread_ts (sent only when set).
type Action struct {
	User, UserName, Channel, ChannelName, MessageTS, ThreadTS, ActionID, BlockID, Value, ResponseURL string
}

// Hello is the frame Slack sends right after a connection opens. The server
// does not send it by itself.
func Hello() string {
	return mustJSON(map[string]any{
		"type":            "hello",
		"num_connections": 1,
		"debug_info":      map[string]any{"host": "slacklab", "build_number": 1, "approximate_connection_time": 18060},
		"connection_info": map[string]any{"app_id": AppID},
	})
}

// SlashCommand is a slash_commands envelope for "/imgupd" with
// accepts_response_payload true.
func SlashCommand(envelopeID string, c Slash) string {
	return mustJSON(map[string]any{
		"envelope_id": envelopeID,
		"type":        "slash_commands",
		"payload": map[string]any{
			"token":                 verificationToken,
			"team_id":               TeamID,
			"team_domain":           TeamDomain,
			"channel_id":            c.Channel,
			"channel_name":          c.ChannelName,
			"user_id":               c.User,
			"user_name":             c.UserName,
			"command":               "/imgupd",
			"text":                  c.Text,
			"api_app_id":            AppID,
			"is_enterprise_install": "false",
			"response_url":          c.ResponseURL,
			"trigger_id":            c.TriggerID,
		},
		"accepts_response_payload": true,
	})
}

// AppMention is an events_api envelope carrying an event_callback with an
// app_mention event. An empty EventID becomes "Ev" + envelopeID.
func AppMention(envelopeID string, m Mention) string {
	event := messageEvent("app_mention", m.User, m.Channel, m.Text, m.TS, m.ThreadTS)
	return eventsAPI(envelopeID, m.EventID, m.TS, event, m.RetryAttempt, m.RetryReason)
}

// DirectMessage is an events_api envelope carrying an event_callback with a
// message event from a direct message (message.im). An empty EventID becomes
// "Ev" + envelopeID.
func DirectMessage(envelopeID string, m DM) string {
	event := messageEvent("message", m.User, m.Channel, m.Text, m.TS, m.ThreadTS)
	event["channel_type"] = "im"
	if m.BotID != "" {
		event["bot_id"] = m.BotID
	}
	if m.SubType != "" {
		event["subtype"] = m.SubType
	}
	return eventsAPI(envelopeID, m.EventID, m.TS, event, 0, "")
}

// messageEvent is the inner event of a message-like event (app_mention,
// message); thread_ts is sent only when set (a thread reply).
func messageEvent(typ, user, channel, text, ts, threadTS string) map[string]any {
	event := map[string]any{
		"type":     typ,
		"user":     user,
		"text":     text,
		"ts":       ts,
		"team":     TeamID,
		"channel":  channel,
		"event_ts": ts,
	}
	if threadTS != "" {
		event["thread_ts"] = threadTS
	}
	return event
}

// eventsAPI wraps an inner event in an events_api envelope.
func eventsAPI(envelopeID, eventID, ts string, event map[string]any, retryAttempt int, retryReason string) string {
	if eventID == "" {
		eventID = "Ev" + envelopeID
	}
	return mustJSON(map[string]any{
		"envelope_id": envelopeID,
		"type":        "events_api",
		"payload": map[string]any{
			"token":      verificationToken,
			"team_id":    TeamID,
			"api_app_id": AppID,
			"event":      event,
			"type":       "event_callback",
			"event_id":   eventID,
			"event_time": unixOf(ts),
			"authorizations": []any{map[string]any{
				"enterprise_id": nil, "team_id": TeamID, "user_id": BotUserID,
				"is_bot": true, "is_enterprise_install": false,
			}},
			"is_ext_shared_channel": false,
		},
		"accepts_response_payload": false,
		"retry_attempt":            retryAttempt,
		"retry_reason":             retryReason,
	})
}

// BlockAction is an interactive envelope with a block_actions payload: a
// click on a button (action_id, block_id, value) in the bot message
// MessageTS. The container is of type "message" and carries no thread_ts
// (whether Slack sets container.thread_ts is unverified; message.thread_ts is
// set when ThreadTS is).
func BlockAction(envelopeID string, a Action) string {
	message := map[string]any{
		"user":   BotUserID,
		"type":   "message",
		"ts":     a.MessageTS,
		"bot_id": BotID,
		"app_id": AppID,
		"team":   TeamID,
	}
	if a.ThreadTS != "" {
		message["thread_ts"] = a.ThreadTS
	}
	actionTS := strconv.FormatFloat(float64(time.Now().UnixMicro())/1e6, 'f', 6, 64)
	return mustJSON(map[string]any{
		"envelope_id": envelopeID,
		"type":        "interactive",
		"payload": map[string]any{
			"type":       "block_actions",
			"user":       map[string]any{"id": a.User, "username": a.UserName, "name": a.UserName, "team_id": TeamID},
			"api_app_id": AppID,
			"token":      verificationToken,
			"container": map[string]any{
				"type": "message", "message_ts": a.MessageTS, "channel_id": a.Channel, "is_ephemeral": false,
			},
			"trigger_id":            "trigger-" + envelopeID,
			"team":                  map[string]any{"id": TeamID, "domain": TeamDomain},
			"enterprise":            nil,
			"is_enterprise_install": false,
			"channel":               map[string]any{"id": a.Channel, "name": a.ChannelName},
			"message":               message,
			"state":                 map[string]any{"values": map[string]any{}},
			"response_url":          a.ResponseURL,
			"actions": []any{map[string]any{
				"action_id": a.ActionID,
				"block_id":  a.BlockID, // always a string: slack-go needs it to parse a block action
				"text":      map[string]any{"type": "plain_text", "text": "Button", "emoji": true},
				"value":     a.Value,
				"type":      "button",
				"action_ts": actionTS,
			}},
		},
		"accepts_response_payload": true,
	})
}

// unixOf returns the seconds of a Slack ts, or the current time if ts does not
// parse.
func unixOf(ts string) int64 {
	sec, _, _ := strings.Cut(ts, ".")
	if n, err := strconv.ParseInt(sec, 10, 64); err == nil {
		return n
	}
	return time.Now().Unix()
}
