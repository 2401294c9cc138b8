package blockkit

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/imgupd/imgupd/internal/textutil"
)

// LimitError is one place where a payload breaks a Slack limit or a rule of
// what imgupd sends.
type LimitError struct {
	Where string // "message", "thread[2]"; then a JSON pointer into it
	Rule  string
}

func (e *LimitError) Error() string { return e.Where + ": " + e.Rule }

// MaxButtonLabel is the longest button label imgupd writes: Slack allows 75
// characters but "may truncate with ~30".
const MaxButtonLabel = 30

// Validate checks every message of a payload as Slack receives it: each is
// marshalled to the JSON the bot sends, and that JSON is walked. It returns
// every violation of
//
//   - Slack's documented limits: 1–50 blocks, the text lengths of each block
//     type, fields, elements, action IDs and values, about 12,000 characters
//     across blocks, a fallback text of 1–4,000 characters;
//   - the types Slack accepts per field: header and button texts plain_text,
//     section and context texts mrkdwn or plain_text, `emoji` only on
//     plain_text, `verbatim` only on mrkdwn; only the block types (header,
//     section, context, actions, divider), element types (button) and fields
//     imgupd uses, so anything else is caught before Slack refuses it;
//   - unique block_ids within a message, none empty;
//   - button labels within MaxButtonLabel characters;
//   - what Slack would parse: in every mrkdwn text and in the fallback text,
//     a raw `<` or `>` only in the bot's own mentions — `<@U…>`/`<@W…>` (a
//     user, by ID, no label) and `<#C…>`/`<#G…>` (a channel, by ID, no label)
//     — and a raw `&` only in &amp;, &lt; or &gt;. Specials (`<!channel>`,
//     `<!here>`, `<!subteam^…>`), labelled links (`<https://…|label>`) and
//     labelled mentions are never allowed: the bot writes none;
//   - what Slack would not show as itself, in every text (mrkdwn,
//     plain_text, the fallback): no control character but a line break (no
//     ESC, CR, tab, C1 control), no bidi control, no zero-width or other
//     format character — bar the zero-width space right after a colon with
//     which imgupd breaks an emoji shortcode (mrkdwn.NoEmoji). Values show
//     such characters as escapes (\u202e).
func Validate(p Payload) []error {
	errs := checkMessage("message", p.Message)
	for i, m := range p.Thread {
		errs = append(errs, checkMessage(fmt.Sprintf("thread[%d]", i), m)...)
	}
	return errs
}

// checker walks one message's JSON.
type checker struct {
	where string
	errs  []error
	total int
	ids   map[string]bool
}

func (c *checker) bad(ptr, format string, a ...any) {
	w := c.where
	if ptr != "" {
		w += " " + ptr
	}
	c.errs = append(c.errs, &LimitError{Where: w, Rule: fmt.Sprintf(format, a...)})
}

func runes(s string) int { return utf8.RuneCountInString(s) }

func checkMessage(where string, m Message) []error {
	c := &checker{where: where, ids: map[string]bool{}}
	data, err := json.Marshal(m)
	if err != nil {
		c.bad("", "does not marshal: %v", err)
		return c.errs
	}
	var msg struct {
		Text   string           `json:"text"`
		Blocks []map[string]any `json:"blocks"`
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		c.bad("", "is not a message: %v", err)
		return c.errs
	}
	if l := runes(msg.Text); l == 0 || l > MaxMessageText {
		c.bad("/text", "fallback text has %d characters (1–%d)", l, MaxMessageText)
	}
	c.sequences("/text", msg.Text)
	c.hidden("/text", msg.Text)
	if len(msg.Blocks) == 0 || len(msg.Blocks) > MaxBlocks {
		c.bad("", "%d blocks (1–%d)", len(msg.Blocks), MaxBlocks)
	}
	for i, b := range msg.Blocks {
		c.block(fmt.Sprintf("/blocks/%d", i), b)
	}
	if c.total > MaxTotalBlockTxt {
		c.bad("", "%d characters across blocks (max %d)", c.total, MaxTotalBlockTxt)
	}
	return c.errs
}

// blockFields are the fields each block type may have.
var blockFields = map[string][]string{
	"header":  {"type", "block_id", "text"},
	"section": {"type", "block_id", "text", "fields"},
	"context": {"type", "block_id", "elements"},
	"actions": {"type", "block_id", "elements"},
	"divider": {"type", "block_id"},
}

func (c *checker) block(ptr string, b map[string]any) {
	typ, _ := b["type"].(string)
	allowed, ok := blockFields[typ]
	if !ok {
		c.bad(ptr, "unknown block type %q", typ)
		return
	}
	c.fields(ptr, b, allowed)
	if v, ok := b["block_id"]; ok {
		id, _ := v.(string)
		switch {
		case id == "" || runes(id) > MaxID:
			c.bad(ptr+"/block_id", "block_id %q must be 1–%d characters", id, MaxID)
		case c.ids[id]:
			c.bad(ptr+"/block_id", "block_id %q is not unique in the message", id)
		}
		c.ids[id] = true
	}
	switch typ {
	case "header":
		c.text(ptr+"/text", b["text"], MaxHeaderText, "header text", true)
	case "section":
		_, hasText := b["text"]
		fields, _ := b["fields"].([]any)
		if !hasText && len(fields) == 0 {
			c.bad(ptr, "section has neither text nor fields")
		}
		if hasText {
			c.text(ptr+"/text", b["text"], MaxSectionText, "section text", false)
		}
		if len(fields) > MaxFields {
			c.bad(ptr+"/fields", "section has %d fields (max %d)", len(fields), MaxFields)
		}
		for i, f := range fields {
			c.text(fmt.Sprintf("%s/fields/%d", ptr, i), f, MaxFieldText, "section field", false)
		}
	case "context":
		els, _ := b["elements"].([]any)
		if len(els) == 0 || len(els) > MaxContextElems {
			c.bad(ptr+"/elements", "context has %d elements (1–%d)", len(els), MaxContextElems)
		}
		for i, e := range els {
			c.text(fmt.Sprintf("%s/elements/%d", ptr, i), e, MaxSectionText, "context text", false)
		}
	case "actions":
		els, _ := b["elements"].([]any)
		if len(els) == 0 || len(els) > MaxActionElems {
			c.bad(ptr+"/elements", "actions has %d elements (1–%d)", len(els), MaxActionElems)
		}
		seen := map[string]bool{}
		for i, e := range els {
			c.button(fmt.Sprintf("%s/elements/%d", ptr, i), e, seen)
		}
	}
}

func (c *checker) button(ptr string, v any, seen map[string]bool) {
	btn, ok := v.(map[string]any)
	if typ, _ := btn["type"].(string); !ok || typ != "button" {
		c.bad(ptr, "unknown element type %q (imgupd sends buttons only)", btn["type"])
		return
	}
	c.fields(ptr, btn, []string{"type", "text", "action_id", "value", "style"})
	c.text(ptr+"/text", btn["text"], MaxButtonText, "button text", true)
	if t, ok := btn["text"].(map[string]any); ok {
		if s, _ := t["text"].(string); runes(s) > MaxButtonLabel {
			c.bad(ptr+"/text", "button label %q has %d characters: Slack cuts labels beyond about %d", s, runes(s), MaxButtonLabel)
		}
	}
	if val, _ := btn["value"].(string); runes(val) > MaxButtonValue {
		c.bad(ptr+"/value", "button value has %d characters (max %d)", runes(val), MaxButtonValue)
	}
	id, _ := btn["action_id"].(string)
	if id == "" || runes(id) > MaxID || seen[id] {
		c.bad(ptr+"/action_id", "button action_id %q must be 1–%d characters and unique", id, MaxID)
	}
	seen[id] = true
	if st, ok := btn["style"]; ok && st != "primary" && st != "danger" {
		c.bad(ptr+"/style", "button style %v (primary or danger)", st)
	}
}

// text checks a text object; plainOnly for the fields Slack takes only
// plain_text in (header, button).
func (c *checker) text(ptr string, v any, max int, what string, plainOnly bool) {
	t, ok := v.(map[string]any)
	if !ok {
		c.bad(ptr, "%s is not a text object", what)
		return
	}
	c.fields(ptr, t, []string{"type", "text", "emoji", "verbatim"})
	typ, _ := t["type"].(string)
	switch {
	case typ == "plain_text":
		if _, ok := t["verbatim"]; ok {
			c.bad(ptr, "%s: verbatim is only for mrkdwn", what)
		}
	case typ == "mrkdwn" && plainOnly:
		c.bad(ptr, "%s must be plain_text", what)
	case typ == "mrkdwn":
		if _, ok := t["emoji"]; ok {
			c.bad(ptr, "%s: emoji is only for plain_text", what)
		}
	default:
		c.bad(ptr, "%s has type %q (plain_text or mrkdwn)", what, typ)
	}
	s, _ := t["text"].(string)
	l := runes(s)
	c.total += l
	if l == 0 || l > max {
		c.bad(ptr, "%s has %d characters (1–%d)", what, l, max)
	}
	if typ == "mrkdwn" {
		c.sequences(ptr+"/text", s)
	}
	c.hidden(ptr+"/text", s)
}

// hidden refuses the characters Slack would not show as itself.
func (c *checker) hidden(ptr, s string) {
	prev := rune(0)
	for i, r := range s {
		ok := r == '\n' || r == '\u200b' && prev == ':' || !textutil.IsHidden(r)
		if !ok {
			c.bad(ptr, "hidden character %U at %q: write it visibly (textutil.Visible)", r, around(s, i))
		}
		prev = r
	}
}

// fields refuses the fields of obj not in allowed.
func (c *checker) fields(ptr string, obj map[string]any, allowed []string) {
	var extra []string
	for k := range obj {
		if !slices.Contains(allowed, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		c.bad(ptr, "unexpected field %q", k)
	}
}

// ownSequence is a control sequence the bot itself writes (UserMention,
// ChannelMention), at the start of a string.
var ownSequence = regexp.MustCompile(`^<(@[UW][A-Z0-9]{2,}|#[CG][A-Z0-9]{2,})>`)

// entity is one of the three entities Slack decodes, at the start of a string.
var entity = regexp.MustCompile(`^&(amp|lt|gt);`)

// sequences refuses what Slack would parse in a mrkdwn text, bar the bot's
// own mentions.
func (c *checker) sequences(ptr, s string) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			if m := ownSequence.FindString(s[i:]); m != "" {
				i += len(m) - 1
				continue
			}
			c.bad(ptr, "raw < at %q: Slack parses <…> (mentions, links, placeholders vanish), even in code; write &lt; (only the bot's own <@U…> and <#C…> are allowed)", around(s, i))
		case '>':
			c.bad(ptr, "raw > at %q: write &gt;", around(s, i))
		case '&':
			if entity.MatchString(s[i:]) {
				continue
			}
			c.bad(ptr, "raw & at %q: write &amp;", around(s, i))
		}
	}
}

// around is s near byte i, for an error message.
func around(s string, i int) string {
	from, to := max(0, i-20), min(len(s), i+30)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	return strings.ReplaceAll(s[from:to], "\n", "⏎")
}
