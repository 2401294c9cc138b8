package blockkit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/present/blockkit/mrkdwn"
	"github.com/imgupd/imgupd/present/phrase"
	"github.com/imgupd/imgupd/report"
)

// Slack's limits (shared/reference/slack-payloads.md §3), with the
// conservative choices made here.
const (
	MaxBlocks      = 50
	MaxSectionText = 3000
	MaxFieldText   = 2000
	MaxFields      = 10
	MaxHeaderText  = 150
	// MaxHeaderLine is the longest header imgupd writes: Slack allows 150
	// characters but wraps a header at about 60 on a laptop's screen, and a
	// wrapped header pushes the cause and its fix down.
	MaxHeaderLine = 60
	// MaxInlineCode is the longest value the message shows as inline code
	// (a key value: a tag, a host, a field); longer evidence (URLs, error
	// chains, log lines) goes to the thread, where it does not push the fix
	// off the screen.
	MaxInlineCode    = 80
	MaxContextElems  = 10
	MaxActionElems   = 25
	MaxButtonText    = 75
	MaxButtonValue   = 2000
	MaxID            = 255
	MaxMessageText   = 4000
	MaxTotalBlockTxt = 12000 // Slack answers msg_blocks_too_long at about 13.2k
	// Budgets of the report message's sections, which together stay under
	// MaxTotalBlockTxt: header 150, root cause 2400, fix 2400, stages 3000,
	// not checked 800, context 300.
	budgetRootCause = 2400
	budgetFix       = 2400
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
	// Cluster, when imgupd reads several clusters, is the report's: the
	// buttons' commands name it ("namespace/app --cluster NAME"); "" names
	// none.
	Cluster string
}

// Action IDs of the report's buttons; the value is "namespace/app", with
// " --cluster NAME" when the answer names its cluster (or the code, for
// Explain): the words after the command's verb, which the bot reads with
// the chat's grammar.
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

// Report renders a report: the message says the answer (header, on one
// line), the cause in one line with its key values and its fix as steps
// (an unknown answer: the one next step that would decide it), the stages
// that failed or warn, one line for the rest, and what was not verified in
// the small print; the thread holds the root cause's long evidence, the
// full stage list, the other findings, the candidate tables and the
// updater's log lines. Buttons are offered only for what has something to
// show.
func Report(r *report.Report, o Options) Payload {
	head := headerText(r)
	blocks := []slack.Block{slack.NewHeaderBlock(plain(head))}
	fullFix := false
	var moved []report.Evidence
	if rc := r.RootCause; rc != nil {
		var text string
		text, moved = rootCause(r, rc, head)
		blocks = append(blocks, section(clipRunes(text, budgetRootCause)))
		if rc.Fix != nil && rc.Fix.Summary != "" {
			var fix string
			fix, fullFix = fixText(rc.Fix, budgetFix)
			blocks = append(blocks, section(fix))
		}
	} else {
		var lines []string
		// The header may hold only the app and its state: the cause, or the
		// headline's particulars, follow in a line.
		line := r.Headline
		if line == "" {
			line = r.Answer
		}
		if c := phrase.AnswerCause(line, r.State); c != "" && !strings.Contains(head, mrkdwn.Plain(textutil.OneLine(c))) {
			lines = append(lines, clipRunes(md(c), budgetRootCause/2))
		}
		if step := phrase.NextStep(r); step != "" {
			lines = append(lines, nextStep(step))
		}
		if len(lines) > 0 {
			blocks = append(blocks, section(strings.Join(lines, "\n")))
		}
	}
	blocks = append(blocks, slack.NewDividerBlock())
	if st := stageSummary(r); st != "" {
		blocks = append(blocks, section(st))
	}
	if nv := notVerifiedOf(r); len(nv) > 0 {
		// Caveats are small print: the answer and its fix stay the
		// biggest blocks of the message.
		blocks = append(blocks, slack.NewContextBlock("", mdText(clipRunes(notVerified(nv, phrase.NextStep(r)), budgetUnchecked))))
	}
	ctx := fmt.Sprintf("Image Updater %s · %s mode · %d registry request(s) · `imgupd explain CODE`", md(r.UpdaterVersion), md(orDash(r.Mode)), r.RegistryRequests)
	if r.Cluster != "" {
		ctx = "cluster " + md(r.Cluster) + " · " + ctx
	}
	blocks = append(blocks, slack.NewContextBlock("", mdText(clipRunes(ctx, budgetContext))))
	if o.Buttons {
		blocks = append(blocks, buttons(r, o.Cluster))
	}
	return Payload{
		Message: Message{Text: clipRunes(md(notificationText(r)), MaxMessageText), Blocks: slack.Blocks{BlockSet: blocks}},
		Thread:  thread(r, fullFix, moved),
	}
}

// headerText is the answer on one line (MaxHeaderLine): the state's emoji
// and Report.Answer (the app, its state and the cause) when it fits, else
// the answer without its cause ("🔴 argocd/web is blocked", "🟤 argocd/web
// waits for a merge"; the message's first line says the cause), else the
// state and the app, clipped.
func headerText(r *report.Report) string {
	e := phrase.Emoji(r.State) + " "
	fits := func(s string) bool { return s != "" && utf8.RuneCountInString(e+s) <= MaxHeaderLine }
	answer := mrkdwn.Plain(textutil.OneLine(r.Answer))
	if fits(answer) {
		return e + answer
	}
	if c := mrkdwn.Plain(textutil.OneLine(phrase.AnswerCause(r.Answer, r.State))); c != "" && strings.HasSuffix(answer, c) {
		if h := strings.TrimSuffix(strings.TrimSuffix(answer, c), ": "); h != answer && fits(h) {
			return e + h
		}
	}
	// Another form ("argocd/web waits for a merge: …"): what says the app
	// and its state comes before the first colon.
	app := mrkdwn.Plain(r.App.String())
	if h, _, ok := strings.Cut(answer, ": "); ok && h != app && strings.Contains(h, app) && fits(h) {
		return e + h
	}
	head := e + phrase.Title(r.State) + " · "
	return head + clipRunes(app, MaxHeaderLine-utf8.RuneCountInString(head))
}

// notificationText is the answer in one line, cause and all: what a
// notification and a screen reader say.
func notificationText(r *report.Report) string {
	answer := textutil.OneLine(r.Answer)
	if answer == "" {
		answer = r.App.String() + " — " + phrase.Title(r.State)
	}
	return phrase.Emoji(r.State) + " " + mrkdwn.Plain(answer)
}

// nextStep is an unknown answer's one next step (phrase.NextStep).
func nextStep(step string) string {
	return "*Next step:* " + md(step)
}

// rootCause is the root cause's section: its code and, when the header
// could not hold it, the cause in the catalogue's words; its own title, the
// detail, the evidence that is a key value (at most four lines) and, for
// an unknown answer, the next step that would decide it. moved is the
// evidence the thread shows instead: values longer than MaxInlineCode.
func rootCause(r *report.Report, rc *report.Finding, head string) (text string, moved []report.Evidence) {
	var b strings.Builder
	label := "Root cause"
	if r.State == report.StateUnknown {
		label = "Could not check"
	}
	fmt.Fprintf(&b, "*%s* `%s`", label, tick(string(rc.Code)))
	if c := phrase.AnswerCause(r.Answer, r.State); c != "" && !strings.Contains(head, mrkdwn.Plain(textutil.OneLine(c))) {
		b.WriteString(": " + md(textutil.OneLine(c)))
	}
	b.WriteString("\n" + clipRunes(md(rc.Title), maxTitle))
	if rc.Detail != "" {
		b.WriteString("\n" + md(rc.Detail))
	}
	shown := 0
	for _, e := range rc.Evidence {
		v := tick(e.Display())
		if shownRunes(v) > MaxInlineCode || shown == 4 {
			moved = append(moved, e)
			continue
		}
		shown++
		fmt.Fprintf(&b, "\n• %s: `%s`", md(e.Label), v)
	}
	if len(moved) > 0 || utf8.RuneCountInString(md(rc.Title)) > maxTitle {
		var labels []string
		for _, e := range moved {
			labels = append(labels, md(e.Label))
		}
		line := "\n• in the thread: the title in full"
		if len(labels) > 0 {
			line = "\n• longer evidence in the thread: " + strings.Join(labels, ", ")
		}
		b.WriteString(clipRunes(line, 300))
	}
	if step := phrase.NextStep(r); step != "" {
		b.WriteString("\n" + nextStep(step))
	}
	return b.String(), moved
}

// maxTitle is how much of the root cause's own title the message shows
// (an error chain can run to thousands of characters); the thread shows it
// whole.
const maxTitle = 300

// shownRunes is how many characters Slack shows for mrkdwn: an entity as
// one, the zero-width spaces that break shortcodes as none.
func shownRunes(s string) int {
	return utf8.RuneCountInString(entities.Replace(s))
}

var entities = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "\u200b", "")

// stepTexts are a fix's steps, each a complete piece of mrkdwn: "*1.*
// say — _run_ (shell):" and its code block, the placeholders to replace;
// a step with Or reads "*or* say …" under the step it replaces.
func stepTexts(f *report.Fix) []string {
	var out []string
	for _, s := range f.Numbered() {
		var b strings.Builder
		switch lead := s.Lead(); {
		case s.N > 0:
			fmt.Fprintf(&b, "*%d.* ", s.N)
		case lead != "":
			b.WriteString("*" + strings.TrimSuffix(lead, ": ") + "* ")
		}
		if s.Say != "" {
			// A Say can hold a long value (a branch of thousands of
			// characters): the head stays a head; the command below holds
			// the value whole.
			b.WriteString(md(textutil.ClipWords(s.Say, 300)) + " — ")
		}
		action := s.Action()
		if s.Object != "" && s.Lang != report.LangShell {
			action = strings.Replace(action, s.Object, md(s.Object), 1)
		}
		b.WriteString("_" + action + "_")
		if s.Lang == report.LangYAML && s.Edit != "" && !s.SameObject {
			b.WriteString(" (`" + tick(s.Edit) + "`)")
		}
		b.WriteString(":\n```" + code(strings.TrimRight(s.Text, "\n")) + "```")
		out = append(out, b.String())
	}
	return out
}

// fixHead is "*Fix:* summary _(where)_".
func fixHead(f *report.Fix) string {
	s := "*Fix:* " + md(f.Summary)
	if f.Where != "" {
		s += " _(" + md(f.Where) + ")_"
	}
	return s
}

// fixText is the fix within budget runes: its summary and every step that
// fits. A step that does not fit is not cut: the text says the full fix is
// in the thread, and more is true.
func fixText(f *report.Fix, budget int) (text string, more bool) {
	const inThread = "\n_(the full fix is in the thread)_"
	b := clipRunes(fixHead(f), budget/2)
	left := budget - utf8.RuneCountInString(b) - utf8.RuneCountInString(inThread)
	for _, s := range stepTexts(f) {
		n := utf8.RuneCountInString(s) + 1
		if more || n > left {
			more = true
			continue
		}
		b += "\n" + s
		left -= n
	}
	if more {
		b += inThread
	}
	return b, more
}

// fixChunks are the fix's sections for the thread, each within a
// section's limit: no step is cut; a step's code longer than a section is
// split at line ends over several sections, each saying it continues.
func fixChunks(title string, f *report.Fix) []string {
	var chunks []string
	cur := title
	add := func(s string) {
		if utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(s) > MaxSectionText {
			chunks = append(chunks, cur)
			cur = "_(continued)_"
		}
		cur += "\n" + s
	}
	steps := f.Numbered()
	for k, s := range stepTexts(f) {
		if utf8.RuneCountInString(s) <= MaxSectionText-100 {
			add(s)
			continue
		}
		if steps[k].Lang == report.LangShell {
			// A command cut over two code blocks would run, pasted block by
			// block, as two commands (the first one a command cut short):
			// a command is shown whole or not at all.
			head, _, _ := strings.Cut(s, "\n```")
			add(head + "\n_(this command is " + strconv.Itoa(utf8.RuneCountInString(steps[k].Text)) + " characters, more than a Slack message shows in one piece: `imgupd diagnose` in a terminal, or its `-o json`, shows it whole)_")
			continue
		}
		for i, piece := range splitCode(s, MaxSectionText-100) {
			if i > 0 {
				piece = "_(the step continues)_\n" + piece
			}
			add(piece)
		}
	}
	return append(chunks, cur)
}

// splitCode splits a step's text (a line, then a code block) into pieces
// of at most n runes, at line ends inside the code block, each piece a
// complete code block.
func splitCode(s string, n int) []string {
	i := strings.Index(s, "```")
	j := strings.LastIndex(s, "```")
	if i < 0 || j <= i {
		return []string{s}
	}
	head, body, tail := s[:i], s[i+3:j], s[j+3:]
	var out []string
	cur := head + "```"
	for _, line := range strings.SplitAfter(body, "\n") {
		for utf8.RuneCountInString(line) > n-10 {
			r := []rune(line)
			out = append(out, cur+string(r[:n/2])+"```")
			cur, line = "```", string(r[n/2:])
		}
		if utf8.RuneCountInString(cur)+utf8.RuneCountInString(line)+3 > n {
			out = append(out, strings.TrimSuffix(cur, "\n")+"```")
			cur = "```"
		}
		cur += line
	}
	return append(out, cur+"```"+tail)
}

// stageSummary is the message's stage section: the stages that failed or
// warn, one line each with their worst finding other than the root cause,
// then one line for the rest ("7 other stages passed · 1 not verified").
func stageSummary(r *report.Report) string {
	var lines []string
	passed, skipped, unverified := 0, 0, 0
	nv := map[report.Code]bool{}
	for _, u := range r.NotVerified {
		nv[u.Code] = true
	}
	for _, s := range r.Stages {
		s.Status = s.Effective()
		switch s.Status {
		case report.Fail, report.Warn, report.Unknown:
		case report.Skipped:
			skipped++
			continue
		default:
			passed++
			continue
		}
		f, hasRoot := shownFinding(s, nv)
		switch {
		case f != nil:
			lines = append(lines, clipRunes(fmt.Sprintf("%s %s — `%s` %s", marks[s.Status], md(s.Title), tick(string(f.Code)), md(f.Title)), 400))
		case hasRoot:
			lines = append(lines, fmt.Sprintf("%s %s (the root cause)", marks[s.Status], md(s.Title)))
		case s.Status == report.Unknown:
			unverified++
		default:
			lines = append(lines, fmt.Sprintf("%s %s", marks[s.Status], md(s.Title)))
		}
	}
	if rest := report.OtherStages(passed, skipped, unverified, len(lines) > 0); rest != "" {
		mark := marks[report.Pass]
		if passed == 0 {
			// "8 not verified" is no pass.
			mark = marks[report.Unknown]
		}
		lines = append(lines, mark+" "+rest)
	}
	return clipRunes(strings.Join(lines, "\n"), MaxSectionText)
}

// shownFinding is the finding a stage line shows: its worst non-passing
// finding that is not the root cause (shown above) and not a check that
// Not verified lists; hasRoot says the stage holds the root cause.
func shownFinding(s report.StageResult, nv map[report.Code]bool) (f *report.Finding, hasRoot bool) {
	for _, sev := range []report.Severity{report.Fail, report.Unknown, report.Warn} {
		for i := range s.Findings {
			x := &s.Findings[i]
			if x.RootCause {
				hasRoot = true
			}
			if x.Severity != sev || x.RootCause || sev == report.Unknown && nv[x.Code] {
				continue
			}
			if f == nil {
				f = x
			}
		}
	}
	return f, hasRoot
}

// notVerifiedOf is what the message lists as not verified: every entry but
// the root cause (shown above).
func notVerifiedOf(r *report.Report) []report.NotVerified {
	var out []report.NotVerified
	for _, u := range r.NotVerified {
		if rc := r.RootCause; rc != nil && rc.Code == u.Code && rc.Stage == u.Stage {
			continue
		}
		out = append(out, u)
	}
	return out
}

// notVerified lists what imgupd could not check and what would verify it,
// each verify text once: the checks verified the same way share a line,
// and one the message gave as its next step (step) is not said again.
func notVerified(nv []report.NotVerified, step string) string {
	var b strings.Builder
	b.WriteString("*Not verified:*")
	var order []string
	groups := map[string][]string{}
	for i, u := range nv {
		what := md(u.What)
		if u.Decides {
			what += " _(decides the answer)_"
		}
		key := u.VerifyBy
		if key == "" {
			key = "\x00" + strconv.Itoa(i) // its own line
		}
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], what)
	}
	for _, v := range order {
		// The verify text is kept whole; what it verifies is clipped.
		verify := ""
		switch {
		case strings.HasPrefix(v, "\x00"):
		case step != "" && phrase.Step(v) == step:
			verify = " — verify: the next step above"
		default:
			verify = " — verify: " + clipRunes(md(v), 300)
		}
		b.WriteString("\n• " + clipRunes(strings.Join(groups[v], "; "), 400-utf8.RuneCountInString(verify)) + verify)
	}
	return b.String()
}

// stageList is the thread's full stage list: every stage, its mark, title
// and worst finding's code (the findings follow with their titles).
func stageList(r *report.Report) string {
	var b strings.Builder
	b.WriteString("*Stages*")
	said := map[string]bool{}
	for _, s := range r.Stages {
		line := fmt.Sprintf("\n%s %s", marks[s.Status], md(s.Title))
		switch {
		case s.SkipReason != "" && said[s.SkipReason]:
			line += " — _skipped (as above)_"
		case s.SkipReason != "":
			said[s.SkipReason] = true
			line += " — _" + md(s.SkipReason) + "_"
		default:
			if f := s.WorstFinding(); f != nil {
				line += " — `" + tick(string(f.Code)) + "`"
				if f.RootCause {
					line += " (the root cause)"
				}
			}
		}
		b.WriteString(clipRunes(line, 400))
	}
	return clipRunes(b.String(), MaxSectionText)
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
		fmt.Fprintf(&b, "%s %-20s %s\n", rank, clipRunes(codeLine(t.Tag), 20), clipRunes(codeLine(strings.TrimPrefix(string(t.Fate), "dropped: ")+": "+t.Why), 110))
	}
	b.WriteString("```")
	return clipRunes(b.String(), MaxSectionText)
}

// buttons are Re-run, and each button whose answer has something to
// show: the candidate tags when a tag was listed, the log lines when
// Image Updater wrote some, the explanation of a root cause.
func buttons(r *report.Report, cluster string) *slack.ActionBlock {
	app := clipRunes(r.App.String()+ClusterArg(cluster), MaxButtonValue)
	els := []slack.BlockElement{slack.NewButtonBlockElement(ActionRerun, app, plain("Re-run"))}
	if slices.ContainsFunc(r.Candidates, func(c report.CandidateTable) bool { return len(c.Decision.Tags) > 0 }) {
		els = append(els, slack.NewButtonBlockElement(ActionTags, app, plain("Show candidate tags")))
	}
	if len(r.UpdaterLog) > 0 {
		els = append(els, slack.NewButtonBlockElement(ActionLogs, app, plain("Show updater log lines")))
	}
	if rc := r.RootCause; rc != nil && explained(rc.Code) {
		// The code is in the section above; a label longer than about 30
		// characters is cut short by Slack.
		els = append(els, slack.NewButtonBlockElement(ActionExplain, clipRunes(string(rc.Code), MaxButtonValue), plain("Explain the finding")))
	}
	return slack.NewActionBlock("imgupd_actions", els...)
}

// ClusterArg is " --cluster NAME", or "" for no cluster: what a button's
// value adds after the app or the scope.
func ClusterArg(cluster string) string {
	if cluster == "" {
		return ""
	}
	return " --cluster " + cluster
}

// explained: the catalogue has an entry for the code, so Explain shows it
// (a code it does not know would answer "unknown code").
func explained(c report.Code) bool {
	_, ok := report.Lookup(string(c))
	return ok
}

// thread carries the root cause's evidence the message did not show (moved)
// with its whole title, the full stage list, every non-passing finding but
// the root cause with its evidence and fix, the root cause's fix when the
// message could not hold it, the candidate tables and the updater's log
// lines, in messages that each stay within the limits.
func thread(r *report.Report, fullFix bool, moved []report.Evidence) []Message {
	// A thread message says nothing twice: evidence and fixes shared by
	// several findings (one per image) are shown once, and a place once.
	said, fixSaid := map[string]bool{}, map[string]string{}
	var chunks []string
	if rc := r.RootCause; rc != nil && (len(moved) > 0 || utf8.RuneCountInString(md(rc.Title)) > maxTitle) {
		var b strings.Builder
		fmt.Fprintf(&b, "*Evidence for the root cause `%s`*", tick(string(rc.Code)))
		if utf8.RuneCountInString(md(rc.Title)) > maxTitle {
			b.WriteString("\n" + clipRunes(md(rc.Title), MaxSectionText/2))
		}
		for _, e := range moved {
			line := evidenceLine(e)
			said[line] = true
			b.WriteString(line)
		}
		chunks = append(chunks, clipRunes(b.String(), MaxSectionText))
	}
	chunks = append(chunks, stageList(r))
	if rc := r.RootCause; fullFix && rc != nil && rc.Fix != nil {
		chunks = append(chunks, fixChunks(clipRunes(fmt.Sprintf("*The full fix for `%s`* (the root cause)\n%s", tick(string(rc.Code)), fixHead(rc.Fix)), MaxSectionText/2), rc.Fix)...)
	}
	for _, s := range r.Stages {
		for _, f := range s.Findings {
			if f.Severity == report.Pass || f.Severity == report.Info || f.RootCause {
				continue
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s *%s* `%s` %s", marks[f.Severity], md(s.Title), tick(string(f.Code)), md(f.Title))
			for _, e := range f.Evidence {
				line := evidenceLine(e)
				if !said[line] {
					said[line] = true
					b.WriteString(line)
				}
			}
			head := clipRunes(b.String(), MaxSectionText)
			if fx := f.Fix; fx != nil && fx.Summary != "" {
				key := fixHead(fx) + "\n" + strings.Join(stepTexts(fx), "\n")
				if first, ok := fixSaid[key]; ok {
					chunks = append(chunks, clipRunes(head+"\n*Fix:* as for `"+tick(first)+"` above", MaxSectionText))
					continue
				}
				fixSaid[key] = string(f.Code)
				shown := *fx
				if said["where:"+fx.Where] {
					shown.Where = ""
				}
				said["where:"+fx.Where] = true
				fc := fixChunks(clipRunes(fixHead(&shown), MaxSectionText/2), fx)
				if utf8.RuneCountInString(head)+1+utf8.RuneCountInString(fc[0]) <= MaxSectionText {
					fc[0] = head + "\n" + fc[0]
				} else {
					chunks = append(chunks, head)
				}
				chunks = append(chunks, fc...)
				continue
			}
			chunks = append(chunks, head)
		}
	}
	for _, c := range r.Candidates {
		chunks = append(chunks, candidateTable(c, 40))
	}
	if len(r.UpdaterLog) > 0 {
		chunks = append(chunks, fmt.Sprintf("*Image Updater's log lines about %s* (the last %d, secrets masked)", md(r.App.String()), len(r.UpdaterLog)))
		chunks = append(chunks, logChunks(r)...)
	}
	return pack("imgupd: details for "+md(r.App.String()), chunks)
}

// evidenceLine is a thread line of evidence: its label and its value as
// inline code, clipped to 500 characters.
func evidenceLine(e report.Evidence) string {
	return fmt.Sprintf("\n• %s: `%s`", md(e.Label), clipRunes(tick(e.Display()), 500))
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

// plain is a plain_text object, shown as written: on one line, nothing
// hidden (mrkdwn.Plain; callers that clip apply it first).
func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, mrkdwn.Plain(s), false, false)
}

// clipRunes clips s to n runes at a word boundary (the last space in the
// second half, as textutil.ClipWords), ending with "…" (and closing a code
// block or an inline code span it cut open: the rest of the line would
// otherwise be read as markup, or the code as text). It never cuts an
// entity (&amp; &lt; &gt;) in two: Slack would show the half.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	cut := wordCut(r, n-1) + "…"
	switch {
	case strings.Count(cut, "```")%2 == 1:
		cut = wordCut(r, n-4) + "…```"
	case openSpan(cut):
		cut = wordCut(r, n-2) + "…`"
	}
	return cut
}

// openSpan reports whether the last line of s (no code block open) has an
// inline code span it does not close.
func openSpan(s string) bool {
	if i := strings.LastIndex(s, "```"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.Count(s, "`")%2 == 1
}

// wordCut is r's first n runes (n < len(r)), backed up to the last space
// or line end in their second half, without an entity cut short.
func wordCut(r []rune, n int) string {
	if n < 1 {
		return ""
	}
	cut := r[:n]
	if !unicode.IsSpace(r[n]) {
		for i := n - 1; i >= n/2 && i > 0; i-- {
			if unicode.IsSpace(r[i]) {
				cut = r[:i]
				break
			}
		}
	}
	return string(wholeEntities([]rune(strings.TrimRight(string(cut), " \n,;:·—-"))))
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
