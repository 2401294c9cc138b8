// Package mrkdwn writes values into Slack's mrkdwn so that Slack shows them as
// written: nothing becomes a mention, a link, a lost placeholder or an emoji.
//
// What Slack does with a mrkdwn text (a section's or a context's text, and a
// message's fallback `text`), and how values are rendered (docs/slack.md,
// "What imgupd escapes"):
//
//   - `<…>` is a control sequence everywhere, code spans and code blocks
//     included: `<!channel>` pings the channel, `<@U…>` mentions a user,
//     `<https://…|label>` is a link showing only its label, and `<user>` in a
//     snippet vanishes. &, < and > are therefore written as &amp;, &lt; and
//     &gt; in every mrkdwn text (Slack decodes those three, and only those,
//     for display), code included.
//   - `:name:` becomes an emoji outside code (`git:secret:NAME` shows an
//     emoji). Slack shows code as written, so identifiers go in code; in
//     running text a zero-width space follows each colon that would open a
//     shortcode.
//   - plain_text (headers, button labels) is shown as written: it needs none
//     of this (and emoji:false keeps shortcodes as text).
package mrkdwn

import (
	"regexp"
	"strings"
)

// zwsp breaks an emoji shortcode without showing.
const zwsp = "\u200b"

// escaper writes the three characters Slack parses as entities.
var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// Escape escapes Slack's control characters (& < >) and nothing else: for text
// shown in code, where emoji are not rendered.
func Escape(s string) string { return escaper.Replace(s) }

// Running is a value shown in running mrkdwn text: escaped, and every colon that
// would open an emoji shortcode followed by a zero-width space.
func Running(s string) string { return NoEmoji(Escape(s)) }

// Inline is a value shown in `inline code`: escaped, its backticks (which would
// end the span) written as '.
func Inline(s string) string { return strings.ReplaceAll(Escape(s), "`", "'") }

// Block is a snippet shown in a ```code block```: escaped, so that it reads
// back exactly as written, and unable to close its block early. A snippet
// that starts or ends with a backtick gets a line break at that end, so that
// no run of backticks leaves it unclear where the block ends.
func Block(s string) string {
	s = NoFence(Escape(s))
	if strings.HasPrefix(s, "`") {
		s = "\n" + s
	}
	if strings.HasSuffix(s, "`") {
		s += "\n"
	}
	return s
}

// NoFence keeps a snippet from closing its code block early.
func NoFence(s string) string { return strings.ReplaceAll(s, "```", "'"+"'"+"'") }

// isEmojiNameByte reports whether c may be part of an emoji shortcode's name.
// Slack's names are lower-case; upper case is counted too, to be safe.
func isEmojiNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '+' || c == '\''
}

// opensShortcode reports whether the colon at s[i] opens a `:name:`.
func opensShortcode(s string, i int) bool {
	j := i + 1
	for j < len(s) && isEmojiNameByte(s[j]) {
		j++
	}
	return j > i+1 && j < len(s) && s[j] == ':' && !numberOnly(s[i+1:j])
}

// numberOnly reports whether name is digits and not one of Slack's emoji
// whose name is a number (:100:, :1234:): a port or a time between two colons
// ("127.0.0.1:5000: refused", "10:00:01") stays as written.
func numberOnly(name string) bool {
	if name == "100" || name == "1234" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < '0' || name[i] > '9' {
			return false
		}
	}
	return true
}

// NoEmoji puts a zero-width space after every colon that opens a shortcode,
// so that no `:name:` of s is shown as an emoji (each colon on its own: in
// `:a:b:` both `:a:` and `:b:` are broken).
func NoEmoji(s string) string {
	if strings.Count(s, ":") < 2 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] == ':' && opensShortcode(s, i) {
			b.WriteString(zwsp)
		}
	}
	return b.String()
}

// leadingMark is an emoji the text starts with (":warning: …").
var leadingMark = regexp.MustCompile(`^:[a-z0-9_+-]+: `)

// Chat renders chat Markdown written by imgupd's own code with raw values in
// it (commands' answers: `code`, *bold*, _italic_, an emoji mark first):
// &, < and > are escaped everywhere; emoji shortcodes are broken outside
// code, except one leading mark such as ":no_entry: ". It cannot carry a
// link or a mention: the bot builds its own (blockkit.UserMention).
func Chat(s string) string {
	mark := leadingMark.FindString(s)
	s = Escape(s[len(mark):])
	var b strings.Builder
	b.WriteString(mark)
	// Code blocks first, as Slack reads them: a fence opens a block only
	// when another closes it.
	for {
		i := strings.Index(s, "```")
		if i < 0 {
			break
		}
		j := strings.Index(s[i+3:], "```")
		if j < 0 {
			break
		}
		end := i + 3 + j + 3
		b.WriteString(spans(s[:i]))
		b.WriteString(s[i:end])
		s = s[end:]
	}
	b.WriteString(spans(s))
	return b.String()
}

// spans breaks the shortcodes of text outside its `code spans`: a tick opens
// a span only when another closes it on the same line, with something
// between.
func spans(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '`')
		if j <= 0 || strings.Contains(s[i+1:i+1+j], "\n") {
			b.WriteString(NoEmoji(s[:i+1]))
			s = s[i+1:]
			continue
		}
		b.WriteString(NoEmoji(s[:i]))
		b.WriteString(s[i : i+1+j+1])
		s = s[i+1+j+1:]
	}
	b.WriteString(NoEmoji(s))
	return b.String()
}
