package blockkit

import (
	"strings"
	"testing"

	"github.com/slack-go/slack"
)

// TestValidateRules: each rule of the validator, on the JSON that is sent,
// refuses a message that breaks it (and only that message), and the
// bot's own mentions and plain_text as written pass.
func TestValidateRules(t *testing.T) {
	yes := true
	btn := func(label string) slack.Block {
		return slack.NewActionBlock("acts", slack.NewButtonBlockElement("a1", "v", plain(label)))
	}
	msg := func(text string, blocks ...slack.Block) Message {
		return Message{Text: text, Blocks: slack.Blocks{BlockSet: blocks}}
	}
	ok := section("fine")
	cases := []struct {
		name string
		m    Message
		want string // "" = valid
	}{
		{"valid", msg("fine", slack.NewHeaderBlock(plain("a <b> & :secret: c")), ok, btn("Explain the finding")), ""},
		{"own mentions", msg("ask <@U0BOTUSER1>", section("I cannot post in <#C0DEPLOYS1>: invite <@U0BOTUSER1>"), section("&lt;!channel&gt; &amp; &gt;")), ""},
		{"header mrkdwn", msg("x", slack.NewHeaderBlock(mdText("*h*"))), "header text must be plain_text"},
		{"button mrkdwn", msg("x", slack.NewActionBlock("acts", slack.NewButtonBlockElement("a1", "v", mdText("go")))), "button text must be plain_text"},
		{"emoji on mrkdwn", msg("x", slack.NewSectionBlock(&slack.TextBlockObject{Type: slack.MarkdownType, Text: "x", Emoji: &yes}, nil, nil)), "emoji is only for plain_text"},
		{"verbatim on plain", msg("x", slack.NewSectionBlock(&slack.TextBlockObject{Type: slack.PlainTextType, Text: "x", Verbatim: true}, nil, nil)), "verbatim is only for mrkdwn"},
		{"unknown text type", msg("x", slack.NewSectionBlock(&slack.TextBlockObject{Type: "markdown", Text: "x"}, nil, nil)), `has type "markdown"`},
		{"duplicate block_id", msg("x", slack.NewSectionBlock(mdText("a"), nil, nil, slack.SectionBlockOptionBlockID("s")), slack.NewSectionBlock(mdText("b"), nil, nil, slack.SectionBlockOptionBlockID("s"))), `block_id "s" is not unique`},
		{"unknown block", msg("x", slack.NewImageBlock("https://example.com/a.png", "alt", "", nil)), `unknown block type "image"`},
		{"unknown element", msg("x", slack.NewActionBlock("acts", slack.NewOptionsSelectBlockElement("static_select", plain("pick"), "sel"))), `unknown element type "static_select"`},
		{"accessory", msg("x", slack.NewSectionBlock(mdText("a"), nil, slack.NewAccessory(slack.NewButtonBlockElement("a1", "v", plain("go"))))), `unexpected field "accessory"`},
		{"long label", msg("x", btn("Explain REGISTRY_PULL_SECRET_KEY_MISMATCH")), "Slack cuts labels beyond about 30"},
		{"special", msg("x", section("ping <!channel> now")), `raw < at "ping <!channel> now"`},
		{"here in code", msg("x", section("```<!here>```")), "raw <"},
		{"labelled link", msg("x", section("<https://evil.example|Click to re-authenticate>")), "raw <"},
		{"labelled mention", msg("x", section("<@U0BADUSER|admin>")), "raw <"},
		{"placeholder", msg("x", section("```--docker-username=<user>```")), "raw <"},
		{"raw gt", msg("x", section("a -> b")), "raw > at"},
		{"raw amp", msg("x", section("a & b")), "raw & at"},
		{"fallback special", msg("<!here> look", ok), "message /text: raw <"},
		{"fallback amp", msg("a & b", ok), "message /text: raw &"},
		{"context", msg("x", slack.NewContextBlock("", mdText("<@U0BADUSER|x>"))), "/blocks/0/elements/0/text: raw <"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := Validate(Payload{Message: c.m})
			var all []string
			for _, e := range errs {
				all = append(all, e.Error())
			}
			got := strings.Join(all, "\n")
			switch {
			case c.want == "" && len(errs) > 0:
				t.Errorf("valid message refused:\n%s", got)
			case c.want != "" && !strings.Contains(got, c.want):
				t.Errorf("want a violation %q, got:\n%s", c.want, got)
			}
		})
	}
}
