package blockkit

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzNotice: any text becomes a message within Slack's limits (the bot
// sends Notices for help, refusals, errors and the slash command's ack).
func FuzzNotice(f *testing.F) {
	f.Add("no access rule admits you in #random")
	f.Add("")
	f.Add(strings.Repeat("```x", 2000))
	f.Add(strings.Repeat("é", 5000))
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		for _, m := range []Message{Notice(text), Progress(text)} {
			if errs := Validate(Payload{Message: m}); len(errs) > 0 {
				t.Fatalf("%q: %v", text, errs)
			}
		}
	})
}
