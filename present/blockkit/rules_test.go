package blockkit

import (
	"encoding/json"
	"github.com/imgupd/imgupd/present/phrase"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"testing"

	"github.com/slack-go/slack"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/report"
)

// stateWords are the words an answer uses for each state (report.State's
// Title, or the verb the engine joins the app to its state with).
var stateWords = map[report.State][]string{
	report.StateUpToDate:        {"up to date"},
	report.StateOnItsWay:        {"update on its way"},
	report.StateHeldBack:        {"held back"},
	report.StateWrongUpdate:     {"wrong update"},
	report.StateBlocked:         {"blocked"},
	report.StateNotDeployed:     {"not deployed"},
	report.StateWaitingForMerge: {"waits for a merge", "waiting for a merge"},
	report.StateUnknown:         {"cannot tell", "unknown"},
}

var (
	codeBlockRE  = regexp.MustCompile("(?s)```.*?```")
	inlineCodeRE = regexp.MustCompile("`[^`\n]*`")
	sentenceRE   = regexp.MustCompile(`\. |\n|•| — `)
	// leadRE is what opens a line before its sentence: a mark, a bold
	// name, a code.
	leadRE = regexp.MustCompile("^(:[a-z_]+: )?((\\*[^*]*\\* )?`[^`]*` )?")
)

// checkReadingRules: the report reads in ten seconds (issues 17, 27). The
// header is the answer on one line (the state's words and, when there is a
// root cause, its cause in the catalogue's words, or else the message's
// first section says the cause); the notification text is the whole
// answer, cause and all; no sentence is said twice within one message (the
// message, or any one thread message); "Not verified" at most once per
// message; button labels within 30 characters; no line clipped mid-word.
func checkReadingRules(t *testing.T, r *report.Report, p Payload) {
	t.Helper()
	blocks := p.Message.Blocks.BlockSet
	if len(blocks) == 0 {
		t.Fatal("no blocks")
	}
	h, ok := blocks[0].(*slack.HeaderBlock)
	if !ok {
		t.Fatalf("the first block is a %T, want the header", blocks[0])
	}
	header := h.Text.Text
	first := ""
	if len(blocks) > 1 {
		if s, ok := blocks[1].(*slack.SectionBlock); ok && s.Text != nil {
			first = textutil.FirstLine(s.Text.Text)
		}
	}
	if !strings.HasPrefix(header, phrase.Emoji(r.State)+" ") {
		t.Errorf("header %q does not open with the state's emoji %s", header, phrase.Emoji(r.State))
	}
	words := false
	for _, w := range stateWords[r.State] {
		words = words || strings.Contains(header, w)
	}
	if !words && (r.RootCause == nil || r.RootCause.Code != report.CodeAppNotFound) {
		t.Errorf("header %q does not say the state (%s)", header, r.State)
	}
	if rc := r.RootCause; rc != nil && rc.Code != report.CodeAppNotFound {
		e, _ := report.Lookup(string(rc.Code))
		cause := strings.Join(strings.Fields(e.Title), " ")
		if w := strings.Fields(cause); len(w) > 3 {
			cause = strings.Join(w[:3], " ") // the answer may be clipped after its first words
		}
		if !strings.Contains(header, cause) && !strings.Contains(first, md(cause)) {
			t.Errorf("neither header %q nor the first line %q names the cause %q (%s)", header, first, e.Title, rc.Code)
		}
		if !strings.Contains(p.Message.Text, cause) {
			t.Errorf("notification text %q does not name the cause %q (%s)", p.Message.Text, e.Title, rc.Code)
		}
	}
	if want := md(phrase.Emoji(r.State) + " " + textutil.OneLine(r.Answer)); p.Message.Text != want {
		t.Errorf("notification text %q, want the answer %q", p.Message.Text, want)
	}
	source := reportStrings(t, r)
	for i, m := range append([]Message{p.Message}, p.Thread...) {
		where := "message"
		if i > 0 {
			where = "thread message " + string(rune('0'+i))
		}
		seen := map[string]bool{}
		notVerified := 0
		for _, b := range m.Blocks.BlockSet {
			var texts []string
			switch b := b.(type) {
			case *slack.HeaderBlock:
				texts = append(texts, b.Text.Text)
			case *slack.SectionBlock:
				if b.Text != nil {
					texts = append(texts, b.Text.Text)
				}
				for _, f := range b.Fields {
					texts = append(texts, f.Text)
				}
			case *slack.ContextBlock:
				for _, el := range b.ContextElements.Elements {
					if tx, ok := el.(*slack.TextBlockObject); ok {
						texts = append(texts, tx.Text)
					}
				}
			case *slack.ActionBlock:
				for _, el := range b.Elements.ElementSet {
					if btn, ok := el.(*slack.ButtonBlockElement); ok {
						if n := utf8.RuneCountInString(btn.Text.Text); n > 30 {
							t.Errorf("%s: button label %q has %d characters (Slack cuts beyond about 30)", where, btn.Text.Text, n)
						}
					}
				}
			}
			for _, text := range texts {
				if strings.Contains(text, "*Not verified") {
					notVerified++
				}
				prose := codeBlockRE.ReplaceAllString(text, "\n")
				for _, s := range sentenceRE.Split(prose, -1) {
					s = strings.Trim(leadRE.ReplaceAllString(strings.TrimSpace(s), ""), "*_ .:—")
					if utf8.RuneCountInString(s) < 25 {
						continue
					}
					if seen[s] && !strings.HasSuffix(s, "…") {
						// (Two lines clipped within one long value can end alike.)
						t.Errorf("%s says twice: %q", where, s)
					}
					seen[s] = true
				}
				checkClippedAtWords(t, where, inlineCodeRE.ReplaceAllString(prose, "`…`"), source)
			}
		}
		if notVerified > 1 {
			t.Errorf("%s has %d \"Not verified\" blocks, want at most one", where, notVerified)
		}
	}
}

// checkClippedAtWords: no "…" right after a letter ends a word that
// continues in the text it was clipped from (source: every string of the
// report): clipping backs up to the last space.
func checkClippedAtWords(t *testing.T, where, text string, source []string) {
	t.Helper()
	unescape := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "\u200b", "")
	r := []rune(text)
	for i, c := range r {
		if c != '…' || i == 0 || !unicode.IsLetter(r[i-1]) {
			continue
		}
		// The last two words before the "…".
		j, spaces := i, 0
		for j > 0 && i-j < 40 && r[j-1] != '\n' {
			if r[j-1] == ' ' {
				if spaces++; spaces == 2 {
					break
				}
			}
			j--
		}
		if spaces == 0 && i-j >= 40 {
			continue // a word of more than 40 characters cannot be clipped at its end
		}
		tail := unescape.Replace(string(r[j:i]))
		for _, s := range source {
			for k := strings.Index(s, tail); k >= 0; {
				next, _ := utf8.DecodeRuneInString(s[k+len(tail):])
				if unicode.IsLetter(next) || unicode.IsDigit(next) {
					t.Errorf("%s clips mid-word: %q (the text goes on %q)", where, string(r[max(0, i-40):i+1]), s[k:min(len(s), k+len(tail)+20)])
					return
				}
				n := strings.Index(s[k+1:], tail)
				if n < 0 {
					break
				}
				k += 1 + n
			}
		}
	}
}

// reportStrings are every string in the report, as written.
func reportStrings(t *testing.T, r *report.Report) []string {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return out
}

// The message's shape (issue 27): its header fits on one line; its inline
// code holds key values, not evidence (URLs, error chains, log lines go to
// the thread); its buttons each have something to show; an unknown answer
// says the one next step that would decide it; what was not verified is
// small print.
const (
	maxHeaderLine = 60 // characters of a header Slack shows on one line
	maxInlineCode = 80 // characters of an inline code span in the message
)

// shape counts what checkMessageShape found wrong in one message.
type shape struct {
	longSpans, wideHeader, noNextStep, emptyButtons, nvProminent int
}

func (s *shape) add(o shape) {
	s.longSpans += o.longSpans
	s.wideHeader += o.wideHeader
	s.noNextStep += o.noNextStep
	s.emptyButtons += o.emptyButtons
	s.nvProminent += o.nvProminent
}

// shownWidth is how many characters Slack shows for a span of mrkdwn:
// entities as one, the zero-width spaces imgupd breaks shortcodes with as
// none.
func shownWidth(s string) int {
	return utf8.RuneCountInString(strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "\u200b", "").Replace(s))
}

// messageTexts are the mrkdwn texts of a message's sections and context
// blocks, and which of them are small print.
func messageTexts(m Message) (texts []string, small []bool) {
	for _, b := range m.Blocks.BlockSet {
		switch b := b.(type) {
		case *slack.SectionBlock:
			if b.Text != nil {
				texts, small = append(texts, b.Text.Text), append(small, false)
			}
			for _, f := range b.Fields {
				texts, small = append(texts, f.Text), append(small, false)
			}
		case *slack.ContextBlock:
			for _, el := range b.ContextElements.Elements {
				if tx, ok := el.(*slack.TextBlockObject); ok {
					texts, small = append(texts, tx.Text), append(small, true)
				}
			}
		}
	}
	return texts, small
}

// buttonLabels are the labels of a message's buttons.
func buttonLabels(m Message) map[string]bool {
	out := map[string]bool{}
	for _, b := range m.Blocks.BlockSet {
		if a, ok := b.(*slack.ActionBlock); ok {
			for _, el := range a.Elements.ElementSet {
				if btn, ok := el.(*slack.ButtonBlockElement); ok {
					out[btn.Text.Text] = true
				}
			}
		}
	}
	return out
}

func checkMessageShape(t *testing.T, r *report.Report, p Payload) (bad shape) {
	t.Helper()
	m := p.Message
	if h, ok := m.Blocks.BlockSet[0].(*slack.HeaderBlock); ok {
		if n := utf8.RuneCountInString(h.Text.Text); n > maxHeaderLine {
			bad.wideHeader++
			t.Errorf("header %q has %d characters: it wraps (at most %d)", h.Text.Text, n, maxHeaderLine)
		}
	}
	texts, small := messageTexts(m)
	all := strings.Join(texts, "\n")
	long := 0
	for i, text := range texts {
		for _, span := range inlineCodeRE.FindAllString(codeBlockRE.ReplaceAllString(text, "\n"), -1) {
			if n := shownWidth(strings.Trim(span, "`")); n > maxInlineCode {
				long++
				t.Errorf("the message holds an inline code span of %d characters (at most %d; the thread holds long evidence): %.120s", n, maxInlineCode, span)
			}
		}
		if !small[i] && strings.Contains(text, "Not verified") {
			bad.nvProminent++
			t.Errorf("what was not verified is not small print: %.120q", text)
		}
	}
	if long > 0 {
		bad.longSpans++
	}
	labels := buttonLabels(m)
	listed := slices.ContainsFunc(r.Candidates, func(c report.CandidateTable) bool { return len(c.Decision.Tags) > 0 })
	explainable := false
	if rc := r.RootCause; rc != nil {
		_, explainable = report.Lookup(string(rc.Code))
	}
	for label, has := range map[string]bool{"Show candidate tags": listed, "Show updater log lines": len(r.UpdaterLog) > 0, "Explain the finding": explainable} {
		switch {
		case labels[label] && !has:
			bad.emptyButtons++
			t.Errorf("the message offers %q, which has nothing to show", label)
		case !labels[label] && has && len(labels) > 0:
			t.Errorf("the message does not offer %q, which has something to show", label)
		}
	}
	if rc := r.RootCause; rc != nil {
		// Evidence too long for the message is in the thread, not lost.
		var thread []string
		for _, m := range p.Thread {
			tt, _ := messageTexts(m)
			thread = append(thread, tt...)
		}
		in := strings.Join(thread, "\n")
		for _, e := range rc.Evidence {
			line := "• " + md(e.Label) + ": `"
			if !strings.Contains(all, line) && !strings.Contains(in, line) {
				t.Errorf("the root cause's evidence %q is neither in the message nor in the thread", e.Label)
			}
		}
	}
	if r.State == report.StateUnknown {
		step := phrase.NextStep(r)
		switch {
		case step == "" && r.RootCause != nil && r.RootCause.Fix != nil && strings.Contains(all, "*Fix:*"):
		case step == "" || !strings.Contains(all, "*Next step:* "+md(step)):
			bad.noNextStep++
			t.Errorf("the unknown answer does not say its next step (%q)", step)
		}
	}
	return bad
}
