package slacklab

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// Shown is a message read back as a Slack client shows it, for tests that
// assert what people see rather than what the bot sent: entities decoded,
// control sequences (<…>) applied wherever they are — code included, as
// Slack does — and emoji shortcodes applied outside code.
type Shown struct {
	// Text is the fallback text (notifications, screen readers) as shown.
	Text string
	// Texts are the text objects of the blocks, in order, as shown.
	Texts []ShownText
	// Live is every control sequence Slack acts on: a mention, a special
	// (@channel, @here), a link. A message the bot sends should carry only
	// its own mentions.
	Live []Live
	// Emoji are the shortcodes shown as emoji, as ":name:".
	Emoji []string
	// Formats are the runs of text Slack formats: code spans, bold,
	// italic, struck through.
	Formats []Format
}

// Format is one run of text Slack shows formatted.
type Format struct {
	Ptr  string // where ("/text", "/blocks/3/text")
	Kind string // code, bold, italic, strike
	Text string // the text formatted, as shown, without its markers
}

func (f Format) String() string { return fmt.Sprintf("%s %s %q", f.Ptr, f.Kind, f.Text) }

// ShownText is one text object as shown.
type ShownText struct {
	// Ptr is its JSON pointer in the message ("/blocks/2/text").
	Ptr string
	// Type is plain_text or mrkdwn.
	Type string
	// Shown is the text as shown: the markup characters (* _ ` ~) are kept,
	// entities decoded, control sequences replaced by what Slack shows for
	// them, an emoji by ⟦emoji:name⟧; a zero-width space right after a
	// colon (where imgupd breaks an emoji shortcode) is dropped outside
	// code, any other is kept, to be seen.
	Shown string
	// Formats are its formatted runs (Ptr unset).
	Formats []Format
	// Code are the contents of its ``` code blocks as shown and as pasted
	// (zero-width spaces kept: a copy carries them).
	Code []string
}

// Live is one control sequence Slack acts on.
type Live struct {
	Ptr   string // where ("/text", "/blocks/3/text")
	Raw   string // as sent: "<!channel>"
	Kind  string // user, channel, special, usergroup, date, link
	Shown string // what Slack shows in its place: "@channel", a link's label
}

func (l Live) String() string {
	return fmt.Sprintf("%s %s %q (shown %q)", l.Ptr, l.Kind, l.Raw, l.Shown)
}

// ShowMessage reads back a message as JSON: {"text": …, "blocks": […]}.
func ShowMessage(data []byte) (Shown, error) {
	var m struct {
		Text   string          `json:"text"`
		Blocks json.RawMessage `json:"blocks"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return Shown{}, fmt.Errorf("slacklab: not a message: %w", err)
	}
	return Show(m.Text, m.Blocks)
}

// Show reads back a message's fallback text (mrkdwn) and blocks (JSON, nil
// for none).
func Show(text string, blocks json.RawMessage) (Shown, error) {
	var s Shown
	t, live, emoji := ShowMrkdwn(text)
	s.Text = t.Shown
	s.add("/text", live, emoji)
	s.addFormats("/text", t.Formats)
	if len(blocks) == 0 || string(blocks) == "null" {
		return s, nil
	}
	var v any
	if err := json.Unmarshal(blocks, &v); err != nil {
		return s, fmt.Errorf("slacklab: blocks are not JSON: %w", err)
	}
	s.walk("/blocks", v)
	return s, nil
}

func (s *Shown) addFormats(ptr string, fs []Format) {
	for _, f := range fs {
		f.Ptr = ptr
		s.Formats = append(s.Formats, f)
	}
}

func (s *Shown) add(ptr string, live []Live, emoji []string) {
	for _, l := range live {
		l.Ptr = ptr
		s.Live = append(s.Live, l)
	}
	s.Emoji = append(s.Emoji, emoji...)
}

// walk finds the text objects ({"type": "mrkdwn"|"plain_text", "text": …})
// anywhere in the blocks.
func (s *Shown) walk(ptr string, v any) {
	switch v := v.(type) {
	case []any:
		for i, x := range v {
			s.walk(fmt.Sprintf("%s/%d", ptr, i), x)
		}
	case map[string]any:
		typ, _ := v["type"].(string)
		text, isText := v["text"].(string)
		switch {
		case isText && typ == "mrkdwn":
			t, live, emoji := ShowMrkdwn(text)
			t.Ptr = ptr
			s.add(ptr+"/text", live, emoji)
			s.addFormats(ptr+"/text", t.Formats)
			s.Texts = append(s.Texts, t)
			return
		case isText && typ == "plain_text":
			t := ShownText{Ptr: ptr, Type: typ, Shown: text}
			if e, ok := v["emoji"].(bool); !ok || e {
				var emoji []string
				t.Shown, emoji = applyEmoji(text)
				s.Emoji = append(s.Emoji, emoji...)
			}
			s.Texts = append(s.Texts, t)
			return
		}
		for k, x := range v {
			s.walk(ptr+"/"+k, x)
		}
	}
}

// ShowMrkdwn reads back one mrkdwn text: as shown, the control sequences
// Slack acts on in it (Ptr unset), and the emoji it shows.
func ShowMrkdwn(raw string) (t ShownText, live []Live, emoji []string) {
	t.Type = "mrkdwn"
	var b strings.Builder
	for _, seg := range codeSegments(raw) {
		shown, l := applySequences(seg.text)
		live = append(live, l...)
		switch {
		case seg.block:
			t.Code = append(t.Code, shown)
			b.WriteString("```" + shown + "```")
		case seg.span:
			t.Formats = append(t.Formats, Format{Kind: "code", Text: shown})
			b.WriteString("`" + shown + "`")
		default:
			shown, e := applyEmoji(shown)
			emoji = append(emoji, e...)
			shown = strings.ReplaceAll(shown, ":\u200b", ":")
			t.Formats = append(t.Formats, emphasis(shown)...)
			b.WriteString(shown)
		}
	}
	t.Shown = b.String()
	return t, live, emoji
}

// segment is a run of mrkdwn: code block, code span or running text (raw,
// without its backticks).
type segment struct {
	text        string
	block, span bool
}

// codeSegments splits raw mrkdwn at its code: ```…``` blocks, then `…`
// spans within a line. An unclosed fence or tick is text.
func codeSegments(raw string) []segment {
	var out []segment
	for raw != "" {
		i := strings.Index(raw, "```")
		if i < 0 {
			break
		}
		j := strings.Index(raw[i+3:], "```")
		if j < 0 {
			break
		}
		out = append(out, spans(raw[:i])...)
		out = append(out, segment{text: raw[i+3 : i+3+j], block: true})
		raw = raw[i+3+j+3:]
	}
	out = append(out, spans(raw)...)
	var merged []segment
	for _, s := range out {
		if n := len(merged); n > 0 && !s.block && !s.span && !merged[n-1].block && !merged[n-1].span {
			merged[n-1].text += s.text
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// spans splits text (no code block in it) at its `…` spans.
func spans(s string) []segment {
	var out []segment
	for s != "" {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '`')
		if j < 0 || strings.Contains(s[i+1:i+1+j], "\n") || j == 0 {
			// No span here: the tick is text.
			out = append(out, segment{text: s[:i+1]})
			s = s[i+1:]
			continue
		}
		if i > 0 {
			out = append(out, segment{text: s[:i]})
		}
		out = append(out, segment{text: s[i+1 : i+1+j], span: true})
		s = s[i+1+j+1:]
	}
	if s != "" {
		out = append(out, segment{text: s})
	}
	return out
}

// applySequences replaces each <…> by what Slack shows for it and decodes
// the three entities in the rest.
func applySequences(s string) (string, []Live) {
	var b strings.Builder
	var live []Live
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			break
		}
		b.WriteString(decode(s[:i]))
		raw := s[i : i+j+1]
		l := sequence(raw)
		live = append(live, l)
		b.WriteString(l.Shown)
		s = s[i+j+1:]
	}
	b.WriteString(decode(s))
	return b.String(), live
}

// sequence is what Slack makes of one <…>.
func sequence(raw string) Live {
	inner := raw[1 : len(raw)-1]
	target, label, hasLabel := strings.Cut(inner, "|")
	l := Live{Raw: raw}
	switch {
	case strings.HasPrefix(target, "@"):
		l.Kind, l.Shown = "user", target
	case strings.HasPrefix(target, "#"):
		l.Kind, l.Shown = "channel", target
	case strings.HasPrefix(target, "!subteam^"):
		l.Kind, l.Shown = "usergroup", "@"+strings.TrimPrefix(target, "!subteam^")
	case strings.HasPrefix(target, "!date^"):
		l.Kind, l.Shown = "date", label
	case strings.HasPrefix(target, "!"):
		l.Kind, l.Shown = "special", "@"+strings.TrimPrefix(target, "!")
	default:
		l.Kind, l.Shown = "link", target
	}
	if hasLabel {
		l.Shown = label
		if l.Kind == "user" || l.Kind == "usergroup" {
			l.Shown = "@" + label
		}
		if l.Kind == "channel" {
			l.Shown = "#" + label
		}
	}
	l.Shown = decode(l.Shown)
	return l
}

// decode decodes the three entities Slack decodes, and only those.
func decode(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

// applyEmoji replaces each :name: by ⟦emoji:name⟧. Any name counts but a
// number other than Slack's :100: and :1234: (a port, a time): this reader
// does not know which names the workspace has, so it assumes the worst
// (`:secret:` is a standard one).
func applyEmoji(s string) (string, []string) {
	var b strings.Builder
	var found []string
	for {
		i := strings.IndexByte(s, ':')
		if i < 0 {
			break
		}
		j := i + 1
		for j < len(s) && emojiNameByte(s[j]) {
			j++
		}
		if j == i+1 || j >= len(s) || s[j] != ':' {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		name := s[i+1 : j]
		if numbers(name) {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		found = append(found, ":"+name+":")
		b.WriteString(s[:i] + "⟦emoji:" + name + "⟧")
		s = s[j+1:]
	}
	b.WriteString(s)
	return b.String(), found
}

func emojiNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '+' || c == '\''
}

// Shown reads the message back as Slack shows it.
func (m Message) Shown() (Shown, error) { return Show(m.Text, m.Blocks) }

// numbers reports whether an emoji name is digits Slack has no emoji for.
func numbers(name string) bool {
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

// markers are the characters that format running text, and how.
var markers = map[rune]string{'*': "bold", '_': "italic", '~': "strike"}

// emphasis finds the bold, italic and struck-through runs of running text
// (no code in it) as Slack reads them: a marker opens a run where it
// follows the start of the line or a character that is not a letter or a
// digit and comes before a character that is not a space; the same marker
// closes it, on the same line, after a character that is not a space and
// before the end of the line or a character that is not a letter or a
// digit. Runs nest (*_a_*); a marker that opens nothing is text.
func emphasis(s string) []Format {
	var out []Format
	for _, line := range strings.Split(s, "\n") {
		out = append(out, lineEmphasis([]rune(line))...)
	}
	return out
}

func lineEmphasis(r []rune) []Format {
	var out []Format
	alnum := func(i int) bool {
		return i >= 0 && i < len(r) && (unicode.IsLetter(r[i]) || unicode.IsDigit(r[i]))
	}
	space := func(i int) bool { return i < 0 || i >= len(r) || unicode.IsSpace(r[i]) }
	for i := 0; i < len(r); i++ {
		kind, ok := markers[r[i]]
		if !ok || alnum(i-1) || space(i+1) {
			continue
		}
		for j := i + 2; j < len(r); j++ {
			if r[j] == r[i] && !space(j-1) && !alnum(j+1) {
				out = append(out, Format{Kind: kind, Text: string(r[i+1 : j])})
				out = append(out, lineEmphasis(r[i+1:j])...)
				i = j
				break
			}
		}
	}
	return out
}
