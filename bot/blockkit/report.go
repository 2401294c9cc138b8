package blockkit

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/imgupd/imgupd/diagnostics/report"
	"github.com/imgupd/imgupd/diagnostics/updater"
)

// Slack's limits (shared/reference/slack-payloads.md §3), with the
// conservative choices made here.
const (
	MaxBlocks        = 50
	MaxSectionText   = 3000
	MaxFieldText     = 2000
	MaxFields        = 10
	MaxHeaderText    = 150
	MaxContextElems  = 10
	MaxActionElems   = 25
	MaxButtonText    = 75
	MaxButtonValue   = 2000
	MaxID            = 255
	MaxMessageText   = 4000
	MaxTotalBlockTxt = 12000 // Slack answers msg_blocks_too_long at about 13.2k
	// tagRows is how many candidate rows the report message shows.
	tagRows = 10
	// Budgets of the report message's sections, which together stay under
	// MaxTotalBlockTxt: header 150, root cause 2400, fix 2400, stages 3000,
	// candidates 2400, not checked 800, context 300.
	budgetRootCause = 2400
	budgetFix       = 2400
	budgetTable     = 2400
	budgetUnchecked = 800
	budgetContext   = 300
)

// Message is one chat.postMessage: blocks and the plain-text fallback that
// notifications and screen readers use.
type Message struct {
	Text   string       `json:"text"`
	Blocks slack.Blocks `json:"blocks"`
}

// Payload is a report as Slack sees it: the message, and the replies posted
// in its thread.
type Payload struct {
	Message Message   `json:"message"`
	Thread  []Message `json:"thread,omitempty"`
}

// Options shape the report.
type Options struct {
	// Buttons adds Re-run, Show candidate tags, Show updater log lines and
	// Explain (for the root cause).
	Buttons bool
}

// Action IDs of the report's buttons; the value is "namespace/app" (or the
// code, for Explain).
const (
	ActionRerun   = "imgupd_rerun"
	ActionTags    = "imgupd_tags"
	ActionLogs    = "imgupd_logs"
	ActionExplain = "imgupd_explain"
)

var marks = map[report.Severity]string{
	report.Fail: ":x:", report.Warn: ":warning:", report.Info: ":information_source:",
	report.Pass: ":white_check_mark:", report.Skipped: ":black_right_pointing_double_triangle_with_vertical_bar:",
	report.Unknown: ":grey_question:",
}

// Report renders a report.
func Report(r *report.Report, o Options) Payload {
	var blocks []slack.Block
	blocks = append(blocks, slack.NewHeaderBlock(plain(clipRunes(headline(r), MaxHeaderText))))
	if r.RootCause == nil && r.Headline != "" {
		blocks = append(blocks, section(clipRunes(md(r.Headline), budgetRootCause)))
	}
	if rc := r.RootCause; rc != nil {
		var b strings.Builder
		label := "Root cause"
		if r.State == report.StateUnknown {
			label = "Could not check"
		}
		fmt.Fprintf(&b, "*%s* `%s`\n%s", label, tick(string(rc.Code)), md(rc.Title))
		if rc.Detail != "" {
			b.WriteString("\n" + md(rc.Detail))
		}
		for i, e := range rc.Evidence {
			if i == 4 {
				fmt.Fprintf(&b, "\n• … %d more in the thread", len(rc.Evidence)-4)
				break
			}
			fmt.Fprintf(&b, "\n• %s: `%s`", md(e.Label), clipRunes(tick(e.Display()), 300))
		}
		blocks = append(blocks, section(clipRunes(b.String(), budgetRootCause)))
		if rc.Fix != nil && rc.Fix.Summary != "" {
			fix := "*Fix:* " + md(rc.Fix.Summary)
			if rc.Fix.Where != "" {
				fix += " _(" + md(rc.Fix.Where) + ")_"
			}
			fix = clipRunes(fix, budgetFix/2)
			if rc.Fix.Snippet != "" {
				fix += "\n```" + clipRunes(code(rc.Fix.Snippet), budgetFix/2-8) + "```"
			}
			blocks = append(blocks, section(fix))
		}
	}
	blocks = append(blocks, slack.NewDividerBlock())
	blocks = append(blocks, section(stageLines(r)))
	if c := failingCandidates(r); c != nil {
		blocks = append(blocks, section(clipRunes(candidateTable(*c, tagRows), budgetTable)))
	}
	if len(r.NotVerified) > 0 {
		blocks = append(blocks, section(clipRunes(notVerified(r.NotVerified), budgetUnchecked)))
	}
	ctx := fmt.Sprintf("Image Updater %s · %s mode · %d registry request(s) · `imgupd explain CODE`", md(r.UpdaterVersion), md(orDash(r.Mode)), r.RegistryRequests)
	if r.Cluster != "" {
		ctx = "cluster " + md(r.Cluster) + " · " + ctx
	}
	blocks = append(blocks, slack.NewContextBlock("", mdText(clipRunes(ctx, budgetContext))))
	if o.Buttons {
		blocks = append(blocks, buttons(r))
	}
	return Payload{
		Message: Message{Text: clipRunes(fallback(r), MaxMessageText), Blocks: slack.Blocks{BlockSet: blocks}},
		Thread:  thread(r),
	}
}

// headline is the header block: the state's mark, the app and the state;
// the sentence that explains it follows in the root cause (or, when nothing
// stops the tag, in its own section).
func headline(r *report.Report) string {
	return stateMark(r.State) + " " + r.App.String() + " — " + r.State.Title()
}

func stateMark(s report.State) string { return s.Mark() }

// notVerified lists what imgupd could not check and what would verify it.
func notVerified(nv []report.NotVerified) string {
	var b strings.Builder
	b.WriteString("*Not verified*")
	for _, u := range nv {
		line := "\n• " + md(u.What)
		if u.Decides {
			line += " _(decides the answer)_"
		}
		if u.VerifyBy != "" {
			line += " — verify: " + md(u.VerifyBy)
		}
		b.WriteString(clipRunes(line, 400))
	}
	return b.String()
}

// fallback is the notification text: one line, no markup. Slack reads a
// message's text as mrkdwn too, so it is escaped like the blocks.
func fallback(r *report.Report) string {
	s := stateMark(r.State) + " " + md(r.Headline)
	if rc := r.RootCause; rc != nil {
		s += " (" + md(string(rc.Code)) + ")"
	}
	return s
}

func stageLines(r *report.Report) string {
	var b strings.Builder
	b.WriteString("*Stages*")
	for _, s := range r.Stages {
		line := fmt.Sprintf("\n%s %s", marks[s.Status], s.Title)
		switch {
		case s.SkipReason != "":
			line += " — _" + md(s.SkipReason) + "_"
		default:
			if f := worstFinding(s); f != nil {
				line += " — `" + tick(string(f.Code)) + "` " + md(f.Title)
			}
		}
		b.WriteString(clipRunes(line, 260))
	}
	return clipRunes(b.String(), MaxSectionText)
}

func worstFinding(s report.StageResult) *report.Finding {
	for _, sev := range []report.Severity{report.Fail, report.Unknown, report.Warn} {
		for i := range s.Findings {
			if s.Findings[i].Severity == sev {
				return &s.Findings[i]
			}
		}
	}
	return nil
}

// failingCandidates is the candidate table to show: the root cause's image,
// else an image whose update is due, else the first.
func failingCandidates(r *report.Report) *report.CandidateTable {
	if len(r.Candidates) == 0 {
		return nil
	}
	if rc := r.RootCause; rc != nil && rc.Image != "" {
		for i := range r.Candidates {
			if r.Candidates[i].Alias == rc.Image {
				return &r.Candidates[i]
			}
		}
	}
	for i := range r.Candidates {
		if r.Candidates[i].Decision.Outcome != updater.OutcomeUpToDate {
			return &r.Candidates[i]
		}
	}
	return &r.Candidates[0]
}

// candidateTable is a code block of the first rows, with a count of the rest.
func candidateTable(c report.CandidateTable, rows int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*Candidates for %s* (%s)\n```", md(c.Alias), md(c.Image))
	tags := c.Decision.Tags
	for i, t := range tags {
		if i == rows {
			fmt.Fprintf(&b, "… %d more", len(tags)-rows)
			break
		}
		rank := "  "
		if t.Rank > 0 {
			rank = fmt.Sprintf("%2d", t.Rank)
		}
		fmt.Fprintf(&b, "%s %-20s %s\n", rank, clipRunes(code(t.Tag), 20), clipRunes(code(strings.TrimPrefix(string(t.Fate), "dropped: ")+": "+t.Why), 110))
	}
	b.WriteString("```")
	return clipRunes(b.String(), MaxSectionText)
}

func buttons(r *report.Report) *slack.ActionBlock {
	app := clipRunes(r.App.String(), MaxButtonValue)
	els := []slack.BlockElement{
		slack.NewButtonBlockElement(ActionRerun, app, plain("Re-run")),
		slack.NewButtonBlockElement(ActionTags, app, plain("Show candidate tags")),
		slack.NewButtonBlockElement(ActionLogs, app, plain("Show updater log lines")),
	}
	if rc := r.RootCause; rc != nil {
		// The code is in the section above; a label longer than about 30
		// characters is cut short by Slack.
		els = append(els, slack.NewButtonBlockElement(ActionExplain, clipRunes(string(rc.Code), MaxButtonValue), plain("Explain the finding")))
	}
	return slack.NewActionBlock("imgupd_actions", els...)
}

// thread carries every non-passing finding with all its evidence, and the
// full candidate tables, in messages that each stay within the limits.
func thread(r *report.Report) []Message {
	var chunks []string
	for _, s := range r.Stages {
		for _, f := range s.Findings {
			if f.Severity == report.Pass || f.Severity == report.Info {
				continue
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s *%s* `%s` %s", marks[f.Severity], md(s.Title), tick(string(f.Code)), md(f.Title))
			for _, e := range f.Evidence {
				fmt.Fprintf(&b, "\n• %s: `%s`", md(e.Label), clipRunes(tick(e.Display()), 500))
			}
			if f.Fix != nil && f.Fix.Summary != "" && !f.RootCause {
				fmt.Fprintf(&b, "\n*Fix:* %s", md(f.Fix.Summary))
				if f.Fix.Snippet != "" {
					fmt.Fprintf(&b, "\n```%s```", clipRunes(code(f.Fix.Snippet), 1500))
				}
			}
			chunks = append(chunks, clipRunes(b.String(), MaxSectionText))
		}
	}
	for _, c := range r.Candidates {
		if len(c.Decision.Tags) > tagRows {
			chunks = append(chunks, candidateTable(c, 40))
		}
	}
	return pack("imgupd: details for "+md(r.App.String()), chunks)
}

// section is a section of mrkdwn text (escaped by the caller).
func section(text string) *slack.SectionBlock {
	return slack.NewSectionBlock(mdText(text), nil, nil)
}

// mdText is a mrkdwn text object, verbatim: Slack applies the markup and
// the control sequences imgupd wrote, but does not turn URLs, channel names
// or @words of the text into links or mentions by itself.
func mdText(text string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, text, false, true)
}

func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, false, false)
}

// clipRunes clips s to n runes, ending with "…" (and closing a code block
// it cut open). It never cuts an entity (&amp; &lt; &gt;) in two: Slack would
// show the half.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	cut := string(wholeEntities(r[:n-1])) + "…"
	if strings.Count(cut, "```")%2 == 1 {
		cut = string(wholeEntities(r[:n-4])) + "…```"
	}
	return cut
}

// wholeEntities drops an entity cut short at the end of r.
func wholeEntities(r []rune) []rune {
	for i := len(r) - 1; i >= 0 && i >= len(r)-4; i-- {
		switch r[i] {
		case ';':
			return r
		case '&':
			return r[:i]
		}
	}
	return r
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
