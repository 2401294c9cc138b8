package blockkit

import (
	"strings"
	"testing"

	"github.com/imgupd/imgupd/bot/slacklab"
)

// TestMentions: only well-formed IDs become mentions.
func TestMentions(t *testing.T) {
	for in, want := range map[Mrkdwn]Mrkdwn{
		UserMention("U0BOTUSER1"):     "<@U0BOTUSER1>",
		UserMention("W0BOTUSER1"):     "<@W0BOTUSER1>",
		UserMention("U1>|<!channel"):  "U1&gt;|&lt;!channel",
		ChannelMention("C0DEPLOYS1"):  "<#C0DEPLOYS1>",
		ChannelMention("D0DIRECT01"):  "D0DIRECT01",
		ChannelMention("<!here>"):     "&lt;!here&gt;",
		ChannelMention("general:x:y"): "general:\u200bx:\u200by",
	} {
		if in != want {
			t.Errorf("got %q, want %q", in, want)
		}
	}
}

// TestClipKeepsEntities: clipping never cuts an entity in two.
func TestClipKeepsEntities(t *testing.T) {
	s := md(strings.Repeat("<", 100))
	for n := 5; n < 60; n++ {
		c := clipRunes(s, n)
		if shown, _, _ := slacklab.ShowMrkdwn(c); strings.Contains(shown.Shown, "&") {
			t.Fatalf("clipRunes(…, %d) = %q shows %q", n, c, shown.Shown)
		}
	}
}
