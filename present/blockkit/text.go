package blockkit

import (
	"regexp"

	"github.com/imgupd/imgupd/present/blockkit/mrkdwn"
)

// How values reach Slack's mrkdwn (package mrkdwn says why): running text,
// inline code, code blocks.
var (
	esc      = mrkdwn.Escape
	md       = mrkdwn.Running
	tick     = mrkdwn.Inline
	code     = mrkdwn.Block
	codeLine = mrkdwn.BlockLine
	noFence  = mrkdwn.NoFence
)

// Mrkdwn is mrkdwn that may be sent as is: imgupd's own markup, its values
// escaped, and only the mentions the bot builds (UserMention,
// ChannelMention). Build it from constants and these; converting another
// string to Mrkdwn vouches that it is safe.
type Mrkdwn string

// Chat turns chat Markdown from imgupd's own code, with raw values in it, into
// Mrkdwn (see Notice).
func Chat(s string) Mrkdwn { return Mrkdwn(mrkdwn.Chat(s)) }

var (
	userIDRE    = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)
	channelIDRE = regexp.MustCompile(`^[CG][A-Z0-9]{2,}$`)
)

// UserMention is a mention of a Slack user ID (U… or W…), such as the bot's
// own; anything else is shown as escaped text, never as a mention.
func UserMention(id string) Mrkdwn {
	if userIDRE.MatchString(id) {
		return Mrkdwn("<@" + id + ">")
	}
	return Mrkdwn(md(id))
}

// ChannelMention is a link to a channel by its ID (C… or G…), which Slack
// shows with the channel's name; anything else is shown as escaped text.
func ChannelMention(id string) Mrkdwn {
	if channelIDRE.MatchString(id) {
		return Mrkdwn("<#" + id + ">")
	}
	return Mrkdwn(md(id))
}
