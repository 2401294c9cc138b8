package blockkit

import (
	"fmt"
	"unicode/utf8"

	"github.com/slack-go/slack"
)

// LimitError is one place where a payload breaks a Slack limit.
type LimitError struct {
	Where string // "message", "thread[2]"; then the block
	Rule  string
}

func (e *LimitError) Error() string { return e.Where + ": " + e.Rule }

// Validate checks every message of a payload against Slack's documented
// Block Kit limits and returns every violation.
func Validate(p Payload) []error {
	errs := checkMessage("message", p.Message)
	for i, m := range p.Thread {
		errs = append(errs, checkMessage(fmt.Sprintf("thread[%d]", i), m)...)
	}
	return errs
}

func checkMessage(where string, m Message) []error {
	var errs []error
	bad := func(block int, format string, a ...any) {
		w := where
		if block >= 0 {
			w = fmt.Sprintf("%s block %d", where, block)
		}
		errs = append(errs, &LimitError{Where: w, Rule: fmt.Sprintf(format, a...)})
	}
	n := func(s string) int { return utf8.RuneCountInString(s) }
	if l := n(m.Text); l == 0 || l > MaxMessageText {
		bad(-1, "fallback text has %d characters (1–%d)", l, MaxMessageText)
	}
	blocks := m.Blocks.BlockSet
	if len(blocks) == 0 || len(blocks) > MaxBlocks {
		bad(-1, "%d blocks (1–%d)", len(blocks), MaxBlocks)
	}
	total := 0
	text := func(i int, t *slack.TextBlockObject, max int, what string) {
		if t == nil {
			return
		}
		l := n(t.Text)
		total += l
		if l == 0 || l > max {
			bad(i, "%s has %d characters (1–%d)", what, l, max)
		}
	}
	for i, b := range blocks {
		switch b := b.(type) {
		case *slack.HeaderBlock:
			if b.Text == nil || b.Text.Type != slack.PlainTextType {
				bad(i, "header text must be plain_text")
			}
			text(i, b.Text, MaxHeaderText, "header text")
			checkID(bad, i, b.BlockID)
		case *slack.SectionBlock:
			if b.Text == nil && len(b.Fields) == 0 {
				bad(i, "section has neither text nor fields")
			}
			text(i, b.Text, MaxSectionText, "section text")
			if len(b.Fields) > MaxFields {
				bad(i, "section has %d fields (max %d)", len(b.Fields), MaxFields)
			}
			for _, f := range b.Fields {
				text(i, f, MaxFieldText, "section field")
			}
			checkID(bad, i, b.BlockID)
		case *slack.ContextBlock:
			if len(b.ContextElements.Elements) == 0 || len(b.ContextElements.Elements) > MaxContextElems {
				bad(i, "context has %d elements (1–%d)", len(b.ContextElements.Elements), MaxContextElems)
			}
			for _, e := range b.ContextElements.Elements {
				if t, ok := e.(*slack.TextBlockObject); ok {
					text(i, t, MaxSectionText, "context text")
				}
			}
			checkID(bad, i, b.BlockID)
		case *slack.ActionBlock:
			els := b.Elements.ElementSet
			if len(els) == 0 || len(els) > MaxActionElems {
				bad(i, "actions has %d elements (1–%d)", len(els), MaxActionElems)
			}
			seen := map[string]bool{}
			for _, e := range els {
				btn, ok := e.(*slack.ButtonBlockElement)
				if !ok {
					continue
				}
				text(i, btn.Text, MaxButtonText, "button text")
				if l := n(btn.Value); l > MaxButtonValue {
					bad(i, "button value has %d characters (max %d)", l, MaxButtonValue)
				}
				if btn.ActionID == "" || n(btn.ActionID) > MaxID || seen[btn.ActionID] {
					bad(i, "button action_id %q must be 1–%d characters and unique", btn.ActionID, MaxID)
				}
				seen[btn.ActionID] = true
			}
			checkID(bad, i, b.BlockID)
		case *slack.DividerBlock:
		default:
			bad(i, "unexpected block type %T", b)
		}
	}
	if total > MaxTotalBlockTxt {
		bad(-1, "%d characters across blocks (max %d)", total, MaxTotalBlockTxt)
	}
	return errs
}

func checkID(bad func(int, string, ...any), i int, id string) {
	if utf8.RuneCountInString(id) > MaxID {
		bad(i, "block_id longer than %d", MaxID)
	}
}
