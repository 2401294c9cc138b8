package slacklab

import (
	"reflect"
	"testing"
)

// TestShowMrkdwn: the reader applies what Slack applies — control sequences
// everywhere (code included), the three entities, emoji outside code — and
// reports what it finds live.
func TestShowMrkdwn(t *testing.T) {
	cases := []struct {
		raw, shown string
		live       []string // Kind:Shown
		emoji      []string
		code       []string
	}{
		{raw: "ping <!channel> and <!here|here>", shown: "ping @channel and here", live: []string{"special:@channel", "special:here"}},
		{raw: "<@U0BADUSER> <@U1|bob> <#C1> <#C1|general> <!subteam^S1|ops>", shown: "@U0BADUSER @bob #C1 #general @ops",
			live: []string{"user:@U0BADUSER", "user:@bob", "channel:#C1", "channel:#general", "usergroup:@ops"}},
		{raw: "<https://evil.example|Click to re-authenticate>", shown: "Click to re-authenticate", live: []string{"link:Click to re-authenticate"}},
		{raw: "```--docker-username=<user>```", shown: "```--docker-username=user```", live: []string{"link:user"}, code: []string{"--docker-username=user"}},
		{raw: "```--docker-username=&lt;user&gt; a &amp;&amp; b```", shown: "```--docker-username=<user> a && b```", code: []string{"--docker-username=<user> a && b"}},
		{raw: "&lt;!channel&gt; &amp;lt; &quot;", shown: "<!channel> &lt; &quot;"},
		{raw: "git:secret:NAME `git:secret:NAME` ```:x:```", shown: "git⟦emoji:secret⟧NAME `git:secret:NAME` ```:x:```", emoji: []string{":secret:"}, code: []string{":x:"}},
		{raw: "git:\u200bsecret:NAME", shown: "git:secret:NAME"},
		{raw: "```a\u200b```", shown: "```a\u200b```", code: []string{"a\u200b"}},
		{raw: "a < b", shown: "a < b"},
		{raw: "at 127.0.0.1:5000: refused at 10:00:01 :100:", shown: "at 127.0.0.1:5000: refused at 10:00:01 ⟦emoji:100⟧", emoji: []string{":100:"}},
	}
	for _, c := range cases {
		got, live, emoji := ShowMrkdwn(c.raw)
		var kinds []string
		for _, l := range live {
			kinds = append(kinds, l.Kind+":"+l.Shown)
		}
		if got.Shown != c.shown || !reflect.DeepEqual(kinds, c.live) || !reflect.DeepEqual(emoji, c.emoji) || !reflect.DeepEqual(got.Code, c.code) {
			t.Errorf("%q:\n shown %q, want %q\n live %v, want %v\n emoji %v, want %v\n code %q, want %q", c.raw, got.Shown, c.shown, kinds, c.live, emoji, c.emoji, got.Code, c.code)
		}
	}
}

// TestShowMessage: the fallback text and every text object of the blocks
// are read back; plain_text is shown as written, with emoji unless
// emoji:false.
func TestShowMessage(t *testing.T) {
	s, err := ShowMessage([]byte(`{"text":"<!here> &amp;","blocks":[
		{"type":"header","text":{"type":"plain_text","text":"a <b> :x:","emoji":false}},
		{"type":"section","text":{"type":"mrkdwn","text":"<@U1>"}},
		{"type":"actions","elements":[{"type":"button","text":{"type":"plain_text","text":":fire: go"}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Text != "@here &" || len(s.Texts) != 3 || s.Texts[0].Shown != "a <b> :x:" || s.Texts[2].Shown != "⟦emoji:fire⟧ go" {
		t.Errorf("%+v", s)
	}
	if len(s.Live) != 2 || s.Live[0].Ptr != "/text" || s.Live[1].Ptr != "/blocks/1/text/text" || len(s.Emoji) != 1 {
		t.Errorf("live %v, emoji %v", s.Live, s.Emoji)
	}
}

// TestShowFormats: the reader reports the runs Slack formats — code spans,
// and bold, italic and struck-through text whose markers stand at a word's
// edge — and not a marker inside a word (snake_case) or one that closes
// nothing.
func TestShowFormats(t *testing.T) {
	cases := map[string][]string{
		"*bold* _ital_ ~strike~ `code`":  {"bold:bold", "italic:ital", "strike:strike", "code:code"},
		"*Fix:* a _(where)_":             {"bold:Fix:", "italic:(where)"},
		"HTTPS_PROXY and NO_PROXY a*b*c": nil,
		"~1.2 and ~1.3":                  nil,
		"* not bold *":                   nil,
		"*_both_*":                       {"bold:_both_", "italic:both"},
		"*a\nb*":                         nil,
		"∗bold∗ ˍitalˍ ∼strike∼ ˋcodeˋ": nil,
	}
	for raw, want := range cases {
		got, _, _ := ShowMrkdwn(raw)
		var kinds []string
		for _, f := range got.Formats {
			kinds = append(kinds, f.Kind+":"+f.Text)
		}
		if !reflect.DeepEqual(kinds, want) {
			t.Errorf("%q: formats %v, want %v", raw, kinds, want)
		}
	}
}
