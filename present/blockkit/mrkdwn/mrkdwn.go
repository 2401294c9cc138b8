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
//   - `*bold*`, `_italic_`, `~strike~` and “ `code` “ format running text,
//     and mrkdwn has no escape for them: in a value in running text each of
//   - _ ~ ` that could open or close formatting (anything but one between
//     two letters or digits, as in HTTPS_PROXY) is written as a look-alike
//     that Slack does not read (∗ ˍ ∼ ˋ). Values whose exact characters
//     matter (tags, evidence, snippets) are shown as code, where Slack
//     formats nothing.
//   - a line break ends a code span and starts a line: a value is shown on
//     one line, a line break in it written \n; every other character Slack
//     would not show as itself (controls, bidi controls that reorder the
//     line, zero-width characters) is written as its escape too (\u202e,
//     textutil.Visible). Only a snippet in a code block keeps its lines.
//   - plain_text (headers, button labels) is shown as written: it needs
//     none of the markup escapes (and emoji:false keeps shortcodes as
//     text), only the one line with nothing hidden (Plain).
package mrkdwn

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/imgupd/imgupd/internal/textutil"
)

// zwsp breaks an emoji shortcode without showing.
const zwsp = "\u200b"

// escaper writes the three characters Slack parses as entities.
var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// Escape escapes Slack's control characters (& < >) and nothing else: for text
// shown in code, where emoji are not rendered.
func Escape(s string) string { return escaper.Replace(s) }

// Plain is a value in plain_text (a header): on one line, nothing hidden.
func Plain(s string) string { return textutil.Visible(s) }

// Running is a value shown in running mrkdwn text: on one line with nothing
// hidden, escaped, its formatting characters written as look-alikes
// (NoFormat), and every colon that would open an emoji shortcode followed by
// a zero-width space.
func Running(s string) string { return NoEmoji(NoFormat(Escape(textutil.Visible(s)))) }

// Own is imgupd's own text (the catalogue's titles, meanings and fixes,
// compiled in) in running mrkdwn text: escaped, emoji shortcodes broken,
// its * _ ~ ` kept as written (a fix says "web-*" and "~1.2"). Never for
// text that holds a value: that is Running's.
func Own(s string) string { return NoEmoji(Escape(s)) }

// Inline is a value shown in `inline code`: on one line with nothing hidden,
// escaped, its backticks (which would end the span) written as '.
func Inline(s string) string {
	return strings.ReplaceAll(Escape(textutil.Visible(s)), "`", "'")
}

// BlockLine is a one-line value (a tag, a log line) shown in a code block:
// Block of the value on one line with nothing hidden.
func BlockLine(s string) string { return Block(textutil.Visible(s)) }

// Block is a snippet shown in a ```code block```: its lines kept, anything
// else hidden shown (textutil.VisibleLines), escaped, so that it reads
// back exactly as written, and unable to close its block early. A snippet
// that starts or ends with a backtick gets a line break at that end, so that
// no run of backticks leaves it unclear where the block ends.
func Block(s string) string {
	s = NoFence(Escape(textutil.VisibleLines(s)))
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

// lookAlikes are what NoFormat writes for the characters that format
// running text: they look the same and Slack reads nothing in them.
var lookAlikes = map[rune]rune{'*': '∗', '_': 'ˍ', '~': '∼', '`': 'ˋ'}

// NoFormat writes each *, _, ~ and ` of a value that could open or close
// formatting in running text as its look-alike (∗ ˍ ∼ ˋ): every one but
// those between two letters or digits (snake_case, a*b), which Slack reads
// as part of the word. A value's ends count as edges: the text around it is
// not known here.
func NoFormat(s string) string {
	if !strings.ContainsAny(s, "*_~`") {
		return s
	}
	var b strings.Builder
	prev := rune(-1)
	for i, r := range s {
		la, ok := lookAlikes[r]
		if !ok {
			b.WriteRune(r)
			prev = r
			continue
		}
		next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
		if r != '`' && wordChar(prev) && wordChar(next) {
			b.WriteRune(r)
		} else {
			b.WriteRune(la)
		}
		prev = r
	}
	return b.String()
}

// wordChar reports whether r is a letter or a digit (not the start or end
// of the text: -1, RuneError).
func wordChar(r rune) bool {
	return r != utf8.RuneError && r >= 0 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// isEmojiNameByte reports whether c may be part of an emoji shortcode's name.
// Slack's names are lower-case; upper case is counted too, to be safe.
func isEmojiNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '+' || c == '\''
}

// opensShortcode reports whether the colon at s[i] opens a `:name:`, or
// would once a colon follows the value: a name that runs to its end
// ("at 11:58:01Z" followed by ": " in a template is ":01Z:").
func opensShortcode(s string, i int) bool {
	j := i + 1
	for j < len(s) && isEmojiNameByte(s[j]) {
		j++
	}
	return j > i+1 && (j == len(s) || s[j] == ':') && !numberOnly(s[i+1:j])
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
	if !strings.Contains(s, ":") {
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
// every character Slack would not show as itself but a line break is
// written as its escape (textutil.VisibleLines); &, < and > are escaped
// everywhere; emoji shortcodes are broken outside code, except one leading
// mark such as ":no_entry: ". It cannot carry a link or a mention: the bot
// builds its own (blockkit.UserMention). Its markup is the text's own, so a
// value that holds * _ ~ ` or a line break must be written with Running or
// Inline by the code that puts it there.
func Chat(s string) string {
	mark := leadingMark.FindString(s)
	s = Escape(textutil.VisibleLines(s[len(mark):]))
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
