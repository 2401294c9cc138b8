package mrkdwn_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/imgupd/imgupd/bot/blockkit/mrkdwn"
	"github.com/imgupd/imgupd/bot/slacklab"
)

// hostile is text a CR author, a registry or a log line could write.
const hostile = "<!channel> <!here> <@U0BADUSER> <https://evil.example|Click to re-authenticate> & *bold* `tick` ```fence``` :secret: git:secret:NAME http://<proxy>:<port> a:b:c:"

// TestValuesReadBack: a value rendered as running text, inline code or a
// code block is shown as written — no mention, link or emoji, no
// placeholder lost.
func TestValuesReadBack(t *testing.T) {
	for _, v := range []string{hostile, "--docker-username=<user> --docker-password=<token>", "git:secret:argocd/<name>", "a &amp; b &lt;x&gt;", "10:00:01"} {
		checkReadsBack(t, v)
	}
}

func checkReadsBack(t *testing.T, v string) {
	t.Helper()
	if v == "" || !utf8.ValidString(v) {
		return
	}
	// Running text: shown as written when the value opens no code span of
	// its own (Slack would show `…` as code); never live, never an emoji.
	shown, live, emoji := slacklab.ShowMrkdwn(mrkdwn.Running(v))
	if len(live) > 0 || len(emoji) > 0 {
		t.Errorf("Running(%q) reads back %q, live %v, emoji %v", v, shown.Shown, live, emoji)
	}
	if !strings.Contains(v, "`") && shown.Shown != strings.ReplaceAll(v, "\u200b", "") {
		t.Errorf("Running(%q) reads back %q", v, shown.Shown)
	}
	// A code block: pasted exactly (bar a fence, which cannot be in one).
	shown, live, emoji = slacklab.ShowMrkdwn("```" + mrkdwn.Block(v) + "```")
	want := mrkdwn.NoFence(v)
	if strings.HasPrefix(want, "`") {
		want = "\n" + want
	}
	if strings.HasSuffix(want, "`") {
		want += "\n"
	}
	if len(live) > 0 || len(emoji) > 0 || len(shown.Code) != 1 || shown.Code[0] != want {
		t.Errorf("Block(%q) reads back %q, live %v, emoji %v", v, shown.Code, live, emoji)
	}
	// Inline code (Slack ends a span at the line's end).
	if !strings.Contains(v, "\n") {
		shown, live, emoji = slacklab.ShowMrkdwn("`" + mrkdwn.Inline(v) + "`")
		if want := "`" + strings.ReplaceAll(v, "`", "'") + "`"; len(live) > 0 || len(emoji) > 0 || shown.Shown != want {
			t.Errorf("Inline(%q) reads back %q, want %q, live %v, emoji %v", v, shown.Shown, want, live, emoji)
		}
	}
	// Chat Markdown with the value in it: never live; no emoji but a
	// leading mark.
	_, live, emoji = slacklab.ShowMrkdwn(mrkdwn.Chat(v))
	if len(live) > 0 || len(emoji) > 1 || len(emoji) == 1 && !strings.HasPrefix(v, emoji[0]+" ") {
		t.Errorf("Chat(%q): live %v, emoji %v", v, live, emoji)
	}
}

// FuzzValuesReadBack: any value reads back as written, in running text,
// inline code and code blocks (seeds in testdata/fuzz).
func FuzzValuesReadBack(f *testing.F) {
	f.Add(hostile)
	f.Add(":a:b:c:")
	f.Add("&amp;lt;")
	f.Add("10:00:01 level=error msg=\"<!everyone>\"")
	f.Add(":warning: `a:b:c` :x:y:")
	f.Fuzz(func(t *testing.T, v string) { checkReadsBack(t, v) })
}

// TestChat: commands' chat Markdown keeps its markup and leading mark;
// its values are escaped, emoji broken outside code only.
func TestChat(t *testing.T) {
	cases := map[string]string{
		":no_entry: no access rule admits you in #<!channel>": ":no_entry: no access rule admits you in #&lt;!channel&gt;",
		"unknown command \"<@U0BADUSER>\"":                    "unknown command \"&lt;@U0BADUSER&gt;\"",
		"method `git:secret:a/b` or git:secret:a/b":           "method `git:secret:a/b` or git:\u200bsecret:a/b",
		"```x:y:z```:y:": "```x:y:z```:\u200by:",
		"a & b > c":      "a &amp; b &gt; c",
		"127.0.0.1:5000: refused at 10:00:01, :100:": "127.0.0.1:5000: refused at 10:00:01, :\u200b100:",
	}
	for in, want := range cases {
		if got := mrkdwn.Chat(in); got != want {
			t.Errorf("Chat(%q) = %q, want %q", in, got, want)
		}
	}
	shown, live, emoji := slacklab.ShowMrkdwn(mrkdwn.Chat(":warning: " + hostile))
	if len(live) > 0 || len(emoji) != 1 || emoji[0] != ":warning:" || !strings.Contains(shown.Shown, "<!channel>") {
		t.Errorf("Chat(hostile) reads back %q, live %v, emoji %v", shown.Shown, live, emoji)
	}
}
