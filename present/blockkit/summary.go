package blockkit

import (
	"encoding/json"
	"fmt"
	"github.com/imgupd/imgupd/present/phrase"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/present/blockkit/mrkdwn"
	"github.com/imgupd/imgupd/report"
)

// SummaryOptions shape a fleet summary.
type SummaryOptions struct {
	// Title names the summary ("nightly payments summary"); "" for an on-demand one.
	Title string
	// Buttons adds a Re-run button (action ID ActionSummaryRerun = "imgupd_summary_rerun", value = the scope as JSON).
	Buttons bool
}

// ActionSummaryRerun is the summary's Re-run button; its value is the
// summary's report.Scope as JSON.
const ActionSummaryRerun = "imgupd_summary_rerun"

// summaryTop is how many apps the summary message lists; the thread has
// them all.
const summaryTop = 10

// Summary renders a fleet summary: a short message (the header with the
// worst state's mark, the count of each state, the most urgent apps, how
// many more the thread has) and, in its thread, every app that needs
// someone, grouped by state and stage, over as many messages as Slack's
// limits need.
func Summary(s report.Summary, o SummaryOptions) Payload {
	title := o.Title
	if title == "" {
		title = "Image Updater summary"
	}
	need := s.NeedAttention()
	head := fmt.Sprintf("%s %s: ", phrase.Emoji(s.Worst), mrkdwn.Plain(title))
	switch {
	case s.Total == 0:
		head += phrase.NoApp
	case need == 0:
		head += fmt.Sprintf("all %d app(s) fine", s.Total)
	default:
		head += fmt.Sprintf("%d of %d app(s) need someone", need, s.Total)
	}
	blocks := []slack.Block{slack.NewHeaderBlock(plain(summaryClipWords(head, MaxHeaderText)))}
	if counts := countLine(s); counts != "" {
		blocks = append(blocks, section(counts))
	}
	if len(s.ClusterFailures) > 0 {
		var lines []string
		for _, f := range s.ClusterFailures {
			lines = append(lines, ":grey_question: "+md(summaryClipWords(phrase.ClusterFailure(f), 280)))
		}
		blocks = append(blocks, section(clipRunes(strings.Join(lines, "\n"), MaxSectionText)))
	}

	top := mostUrgent(s, summaryTop)
	if len(top) > 0 {
		var b strings.Builder
		b.WriteString("*Most urgent*")
		for _, l := range top {
			b.WriteString("\n" + summaryClipWords(urgentLine(l, s.Spans(), s.At), 280))
		}
		if more := need - len(top); more > 0 {
			fmt.Fprintf(&b, "\n… %d more in the thread", more)
		} else {
			b.WriteString("\n_Details in the thread._")
		}
		blocks = append(blocks, section(clipRunes(b.String(), MaxSectionText)))
	}

	ctx := []string{}
	switch {
	case s.Spans():
		ctx = append(ctx, "clusters "+md(strings.Join(s.Clusters, ", ")))
	case s.Cluster != "":
		ctx = append(ctx, "cluster "+md(s.Cluster))
	}
	ctx = append(ctx, md(s.Scope.String()))
	if !s.At.IsZero() {
		ctx = append(ctx, s.At.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if s.Duration > 0 {
		ctx = append(ctx, "scanned in "+s.Duration.Round(100*time.Millisecond).String())
	}
	if s.Partial {
		ctx = append(ctx, "*partial*: the scan's deadline ended it, what it did not finish is unknown")
	}
	if s.Unmanaged > 0 {
		ctx = append(ctx, fmt.Sprintf("%d not managed by Image Updater", s.Unmanaged))
	}
	ctx = append(ctx, diagnoseHint(s.Spans()))
	blocks = append(blocks, slack.NewContextBlock("", mdText(clipRunes(strings.Join(ctx, " · "), budgetContext))))
	if o.Buttons {
		if v, err := json.Marshal(s.Scope); err == nil && utf8.RuneCount(v) <= MaxButtonValue {
			blocks = append(blocks, slack.NewActionBlock("imgupd_summary_actions",
				slack.NewButtonBlockElement(ActionSummaryRerun, string(v), plain("Re-run"))))
		}
	}

	fb := fmt.Sprintf("%s %s: %s", phrase.Emoji(s.Worst), md(title), plainCounts(s))
	return Payload{
		Message: Message{Text: clipRunes(fb, MaxMessageText), Blocks: slack.Blocks{BlockSet: blocks}},
		Thread:  summaryThread(s, title),
	}
}

// countLine is the count of each state that has apps, most urgent first,
// each with its emoji; "" when no app is in scope (the header says so).
func countLine(s report.Summary) string {
	var parts []string
	for _, c := range s.Counts {
		if c.Count == 0 {
			continue
		}
		n, words, _ := strings.Cut(phrase.CountPhrase(c.State, c.Count), " ")
		parts = append(parts, fmt.Sprintf("%s *%s* %s", phrase.Emoji(c.State), n, words))
	}
	return strings.Join(parts, "  ·  ")
}

// plainCounts is the notification text's counts: the states with apps.
func plainCounts(s report.Summary) string {
	if parts := phrase.CountPhrases(s); len(parts) > 0 {
		return strings.Join(parts, ", ")
	}
	return phrase.NoApp
}

// mostUrgent are up to n apps that need someone: the most urgent state
// first, within a state the longest in it first, then by stage and name.
func mostUrgent(s report.Summary, n int) []report.SummaryLine {
	type ranked struct {
		l     report.SummaryLine
		state int
		order int
	}
	stateRank := map[report.State]int{}
	for i, st := range report.States() {
		stateRank[st] = i
	}
	var all []ranked
	for _, g := range s.Attention {
		for _, l := range g.Apps {
			all = append(all, ranked{l: l, state: stateRank[g.State], order: len(all)})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.state != b.state {
			return a.state < b.state
		}
		switch {
		case a.l.Since != nil && b.l.Since != nil && !a.l.Since.Equal(*b.l.Since):
			return a.l.Since.Before(*b.l.Since)
		case (a.l.Since != nil) != (b.l.Since != nil):
			return a.l.Since != nil
		}
		return a.order < b.order
	})
	out := make([]report.SummaryLine, 0, min(n, len(all)))
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, all[i].l)
	}
	return out
}

// urgentLine is one app of the message: its state's emoji and words, the
// app, the cause in short (its answer's, else its code and stage), its
// ages.
func urgentLine(l report.SummaryLine, spans bool, at time.Time) string {
	line := fmt.Sprintf("%s `%s` %s", phrase.Emoji(l.State), tick(l.Shown(spans)), md(phrase.Title(l.State)))
	if c := phrase.AnswerCause(l.Answer, l.State); c != "" {
		line += ": " + md(summaryClipWords(c, 200))
	} else {
		if l.Code != "" {
			line += " · `" + tick(string(l.Code)) + "`"
		}
		line += " · " + md(stageName(l))
	}
	if a := phrase.LineAges(l, at); a != "" {
		line += " · " + a
	}
	return line
}

func stageName(l report.SummaryLine) string {
	if l.Stage == "" {
		return "no stage"
	}
	return strings.ToLower(phrase.StageTitle(l.Stage))
}

// summaryThread lists every app that needs someone: a section per state
// and stage (continued in the next section when it is long), each app
// with its code, title and ages, packed into messages within the limits.
func summaryThread(s report.Summary, title string) []Message {
	var chunks []string
	for _, g := range s.Attention {
		head := fmt.Sprintf("%s *%s · %s* (%d)", phrase.Emoji(g.State), md(phrase.Title(g.State)), md(phrase.StageTitle(g.Stage)), len(g.Apps))
		var b strings.Builder
		b.WriteString(head)
		for _, l := range g.Apps {
			line := fmt.Sprintf("\n• `%s`", tick(l.Shown(s.Spans())))
			if l.Code != "" {
				line += " `" + tick(string(l.Code)) + "`"
			}
			line += " " + md(summaryClipWords(strings.Join(strings.Fields(phrase.LineTitle(l)), " "), 200))
			if a := phrase.LineAges(l, s.At); a != "" {
				line += " _(" + a + ")_"
			}
			line = summaryClipWords(line, 400)
			if utf8.RuneCountInString(b.String())+utf8.RuneCountInString(line) > MaxSectionText {
				chunks = append(chunks, b.String())
				b.Reset()
				b.WriteString(head + " _continued_")
			}
			b.WriteString(line)
		}
		chunks = append(chunks, b.String())
	}
	if len(chunks) == 0 {
		return nil
	}
	return pack("imgupd: "+md(title)+", every app that needs someone", chunks)
}

// Alert renders one app's change: it went bad (from up to date or on its
// way to blocked, wrong update or not deployed) or recovered. The header
// is the state's emoji, the app and "is now <state>" (or "recovered:
// <state>"); the body says the cause once (the answer's, without the app
// and state the header has) with the root cause's code and stage; a
// Re-run button that the report's own button handler answers (ActionRerun,
// "namespace/app"). The notification text is the header and the code.
func Alert(t report.Transition, r report.AppResult) Message {
	_, recovery := t.Alerting()
	to := r.State
	if to == "" {
		to = t.To
	}
	name := r.App.String()
	if r.Cluster != "" {
		name = r.Key() // a scan of several clusters: CLUSTER:NAMESPACE/APP
	}
	head := fmt.Sprintf("%s %s is now %s", phrase.Emoji(to), mrkdwn.Plain(name), phrase.Title(to))
	if recovery {
		head = fmt.Sprintf("%s %s recovered: %s", phrase.Emoji(to), mrkdwn.Plain(name), phrase.Title(to))
	}
	head = summaryClipWords(head, MaxHeaderText)
	cause := phrase.AnswerCause(r.Answer, to)
	if cause == "" {
		cause = r.Title
	}
	if cause == "" {
		cause = phrase.AnswerCause(r.Headline, to)
	}
	cause = summaryClipWords(textutil.OneLine(cause), budgetRootCause/2)
	var body string
	if r.Code != "" {
		body = fmt.Sprintf("*Root cause* `%s`", tick(string(r.Code)))
		if r.Stage != "" {
			body += fmt.Sprintf(" (%s)", md(strings.ToLower(phrase.StageTitle(r.Stage))))
		}
		if cause != "" {
			body += ": " + md(cause)
		}
	} else {
		body = md(cause)
	}
	was := ""
	if t.From != "" {
		was = "was " + phrase.Title(t.From) + " · "
	}
	ctx := was + "`/imgupd diagnose " + tick(r.App.String()) + "` for the full report"
	blocks := []slack.Block{slack.NewHeaderBlock(plain(head))}
	if body != "" {
		blocks = append(blocks, section(summaryClipWords(body, budgetRootCause)))
	}
	blocks = append(blocks,
		slack.NewContextBlock("", mdText(summaryClipWords(ctx, budgetContext))),
		slack.NewActionBlock("imgupd_actions",
			slack.NewButtonBlockElement(ActionRerun, clipRunes(r.App.String(), MaxButtonValue), plain("Re-run"))))
	fb := md(head)
	if r.Code != "" && !recovery {
		fb += " (" + md(string(r.Code)) + ")"
	}
	return Message{Text: clipRunes(fb, MaxMessageText), Blocks: slack.Blocks{BlockSet: blocks}}
}

// summaryClipWords clips mrkdwn s to n runes, ending in "…", at a word
// boundary when one is in the last half, never in an entity (&amp;) and
// closing an inline code span it cut open.
func summaryClipWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 3 {
		c := clipRunes(s, n)
		if strings.Count(c, "`")%2 == 1 && strings.Count(s, "`")%2 == 0 {
			return "…" // no room to close the code span it would open
		}
		return c
	}
	r := []rune(s)[:n-2] // room for a closing ` and the …
	if i := summaryLastSpace(r); i >= len(r)/2 {
		r = r[:i]
	}
	cut := summaryTrimEnd(string(wholeEntities(r)))
	if strings.Count(cut, "```")%2 == 1 {
		return clipRunes(s, n)
	}
	if strings.Count(cut, "`")%2 == 1 && strings.Count(s, "`")%2 == 0 {
		return cut + "…`"
	}
	return cut + "…"
}

// summaryTrimEnd drops the spaces and punctuation a cut leaves at the end,
// but not an entity's ";".
func summaryTrimEnd(s string) string {
	for {
		t := strings.TrimRight(s, " ,:·—-")
		if strings.HasSuffix(t, ";") && !summaryEntityEnd.MatchString(t) {
			t = t[:len(t)-1]
		}
		if t == s {
			return s
		}
		s = t
	}
}

var summaryEntityEnd = regexp.MustCompile(`&(amp|lt|gt);$`)

func summaryLastSpace(r []rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] == ' ' || r[i] == '\n' {
			return i
		}
	}
	return -1
}

// diagnoseHint is the context line's next step: with --cluster when the answer spans clusters.
func diagnoseHint(spans bool) string {
	if spans {
		return "`/imgupd diagnose APP -n NAMESPACE --cluster NAME` for an app's full report"
	}
	return "`/imgupd diagnose APP -n NAMESPACE` for an app's full report"
}
