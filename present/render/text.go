// Package render turns a diagnosis Report into text for a terminal, Markdown
// for issues and chat, and JSON. Renderers only format: everything shown is
// in the Report.
package render

import (
	"fmt"
	"github.com/imgupd/imgupd/present/phrase"
	"io"
	"strings"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

// vis is a value as a terminal shows it: on one line, every control,
// escape sequence, bidi control and zero-width character written as its
// escape (textutil.Visible), so that nothing the cluster wrote moves the
// cursor, clears the screen, sets a title, makes a link or starts a line.
// Every string of a report but imgupd's own constants goes through it.
func vis(s string) string { return textutil.Visible(s) }

// Symbols per status, as in `flux check`.
var symbols = map[report.Severity]string{
	report.Fail: "✗", report.Warn: "⚠", report.Info: "ℹ", report.Pass: "✔",
	report.Skipped: "⏭", report.Unknown: "?",
}

// Symbol is the status mark of a severity.
func Symbol(s report.Severity) string { return symbols[s] }

// TextOptions shape the terminal output.
type TextOptions struct {
	// Verbose shows passing findings and their evidence too, and the
	// candidate tables.
	Verbose bool
	// MaxTags caps the candidate table (0 = 12).
	MaxTags int
	// Width wraps every line at its spaces to this many columns and sizes
	// the tables to it (0: no wrapping, for files and pipes).
	Width int
	// Color paints the marks, the state and the headings (ANSI SGR), never
	// a value the cluster wrote.
	Color bool
}

func (o TextOptions) styler() styler { return styler{on: o.Color} }

func (o TextOptions) look() look { return look{styler: o.styler(), width: o.Width} }

// look is how the text is shown: painted or not, wrapped to a width or not.
type look struct {
	styler
	width int
}

// Text writes the report for a terminal: the answer first, the root
// cause with its evidence, the stages that failed, warn or could not be
// checked with their findings, the passed stages in one line, the
// candidates in one line each, what was not verified, then the root
// cause's fix as steps and last the recap, the verdict in one line: the
// fix and the verdict stay on the last screen however long the report.
// Verbose lists every stage and finding and the candidate tables instead.
// The whole report is one write, wrapped to o.Width.
func Text(w io.Writer, r *report.Report, o TextOptions) {
	var b strings.Builder
	writeText(&b, r, o)
	io.WriteString(w, wrapText(b.String(), o.Width))
}

func writeText(w io.Writer, r *report.Report, o TextOptions) {
	if o.MaxTags == 0 {
		o.MaxTags = 12
	}
	st := o.styler()
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("%s  %s\n", st.state(r.State, phrase.Mark(r.State)), vis(answer(r)))
	if headlineSaysMore(r) {
		p("   %s\n", vis(r.Headline))
	}
	p("   state %s (exit %d) · Image Updater %s (%s mode)%s\n", st.state(r.State, vis(string(r.State))), r.State.ExitCode(), vis(r.UpdaterVersion), vis(orDash(r.Mode)), assumed(r))
	if rc := r.RootCause; rc != nil {
		p("\n%s [%s] %s\n", st.heading(rootLabel(r)), vis(string(rc.Code)), vis(rc.Title))
		if rc.Detail != "" {
			p("   %s\n", vis(rc.Detail))
		}
		writeEvidence(w, rc.Evidence, "   ")
		switch n := fixSteps(rc.Fix); {
		case n > 0:
			p("   ↓ the fix is below (%d %s)\n", n, plural(n, "step", "steps"))
		case rc.Fix != nil && rc.Fix.Summary != "":
			p("   ↓ the fix is below\n")
		}
	}
	p("\n")
	if o.Verbose {
		for _, s := range r.Stages {
			writeStage(w, s, o)
		}
	} else {
		writeStages(w, r, o)
	}
	for _, c := range r.Candidates {
		if !o.Verbose {
			p("\n%s %s (%s): %s%s\n", st.heading("Candidates for"), vis(c.Alias), vis(c.Image), vis(c.Decision.Reason), tagsNote(c.Decision))
			continue
		}
		p("\n%s %s (%s): %s\n", st.heading("Candidates for"), vis(c.Alias), vis(c.Image), vis(c.Decision.Reason))
		writeTags(w, c.Decision, o.MaxTags, o.Width)
	}
	if nv := notVerifiedOf(r); len(nv) > 0 {
		p("\n%s\n", st.heading("Not verified:"))
		for _, u := range nv {
			p("   - %s%s\n", vis(u.What), decidesNote(u))
			if u.VerifyBy != "" {
				p("     verify: %s\n", vis(u.VerifyBy))
			}
		}
	}
	if rc := r.RootCause; rc != nil && rc.Fix != nil && rc.Fix.Summary != "" {
		// The fix last, above the recap: what to do stays on the last
		// screen, however long the report.
		p("\n")
		writeFix(w, rc.Fix, "", o.look())
	}
	p("\n%d registry request(s), %s. `imgupd explain CODE` explains a code.\n", r.RegistryRequests, r.Duration.Round(1e6))
	p("%s\n", recap(r, o))
}

// tagsNote says how many tags the table -v shows would list.
func tagsNote(d updater.Decision) string {
	if len(d.Tags) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d %s: -v lists them)", len(d.Tags), plural(len(d.Tags), "tag", "tags"))
}

// recap is the report's last line, the verdict again for the one whose
// screen no longer shows the first: the mark, the state, the root cause's
// code and what to do ("fix above, 3 steps", the one next step, "nothing
// to do"), within the width.
func recap(r *report.Report, o TextOptions) string {
	st := o.styler()
	head := string(r.State)
	if rc := r.RootCause; rc != nil {
		head += " [" + string(rc.Code) + "]"
	}
	line := vis(head) + " · " + recapNext(r)
	limit := o.Width
	if limit <= 0 {
		limit = 100
	}
	line = textutil.ClipWords(line, limit-2) // the mark and a space before it
	mark := phrase.Mark(r.State)
	state := string(r.State)
	if strings.HasPrefix(line, state) {
		line = st.state(r.State, state) + line[len(state):]
	}
	return st.state(r.State, mark) + " " + line
}

// fixSteps is how many steps the fix shows (0: none, or no fix).
func fixSteps(f *report.Fix) int {
	if f == nil || f.Summary == "" {
		return 0
	}
	return len(stepLines(f))
}

// recapNext is what to do, in a few words: the root cause's fix above and
// its steps, else the one check that would decide it, else nothing.
func recapNext(r *report.Report) string {
	if rc := r.RootCause; rc != nil && rc.Fix != nil && rc.Fix.Summary != "" {
		if n := fixSteps(rc.Fix); n > 0 {
			return fmt.Sprintf("fix above, %d %s", n, plural(n, "step", "steps"))
		}
		return "fix above"
	}
	for _, u := range r.NotVerified {
		if u.VerifyBy != "" && (u.Decides || r.State == report.StateUnknown) {
			return "next: " + vis(textutil.OneLine(u.VerifyBy))
		}
	}
	if r.State.ExitCode() == 0 {
		return "nothing to do"
	}
	if rc := r.RootCause; rc != nil {
		return "next: imgupd explain " + vis(string(rc.Code))
	}
	return "next: -v shows every check"
}

// writeStages lists the stages that failed, warn or could not be checked
// with their findings, then the passed stages in one line (with the
// findings that help read the report), then the skipped ones. A stage
// whose only problem is a check listed under Not verified is named there.
func writeStages(w io.Writer, r *report.Report, o TextOptions) {
	nv := map[report.Code]bool{}
	for _, u := range r.NotVerified {
		nv[u.Code] = true
	}
	st := o.styler()
	var passed, unverified []string
	var context []report.Finding
	var skipped []report.StageResult
	checks := 0 // passing checks shown only with -v
	for _, s := range r.Stages {
		s.Status = s.Effective()
		switch {
		case s.Status == report.Skipped:
			skipped = append(skipped, s)
		case s.Status == report.Fail || s.Status == report.Warn:
			writeStage(w, s, o)
		case s.Status == report.Unknown && !onlyNotVerified(s, nv):
			writeStage(w, s, o)
		case s.Status == report.Unknown:
			unverified = append(unverified, vis(s.Title))
			fallthrough
		default:
			if s.Status != report.Unknown {
				passed = append(passed, vis(s.Title))
			}
			for _, f := range s.Findings {
				switch {
				case f.Severity == report.Pass:
					checks++
				case f.Role == report.RoleContext && f.Severity == report.Info:
					context = append(context, f)
				}
			}
		}
	}
	if len(passed) > 0 {
		fmt.Fprintf(w, "%s %d %s passed: %s\n", st.severity(report.Pass, Symbol(report.Pass)), len(passed), plural(len(passed), "stage", "stages"), strings.Join(passed, ", "))
	}
	if checks > 0 {
		fmt.Fprintf(w, "   %d %s passed (-v shows them)\n", checks, plural(checks, "check", "checks"))
	}
	if len(unverified) > 0 {
		fmt.Fprintf(w, "%s %d %s not verified (below): %s\n", st.severity(report.Unknown, Symbol(report.Unknown)), len(unverified), plural(len(unverified), "stage", "stages"), strings.Join(unverified, ", "))
	}
	for _, f := range context {
		fmt.Fprintf(w, "   %s [%s] %s\n", st.severity(f.Severity, Symbol(f.Severity)), vis(string(f.Code)), vis(f.Title))
	}
	said := map[string]bool{}
	for _, s := range skipped {
		switch {
		case said[s.SkipReason]:
			fmt.Fprintf(w, "%s %s — skipped (as above)\n", st.severity(s.Status, Symbol(s.Status)), vis(s.Title))
		default:
			said[s.SkipReason] = true
			fmt.Fprintf(w, "%s %s — %s\n", st.severity(s.Status, Symbol(s.Status)), vis(s.Title), vis(orDash(s.SkipReason)))
		}
	}
}

// onlyNotVerified: every problem of the stage is a check Not verified
// lists.
func onlyNotVerified(s report.StageResult, nv map[report.Code]bool) bool {
	for _, f := range s.Findings {
		switch f.Severity {
		case report.Fail, report.Warn:
			return false
		case report.Unknown:
			if !nv[f.Code] || f.RootCause {
				return false
			}
		}
	}
	return true
}

// writeStage writes one stage and its findings (all of them with
// Verbose; otherwise the problems and the context).
func writeStage(w io.Writer, s report.StageResult, o TextOptions) {
	st := o.styler()
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("%s %s", st.severity(s.Status, Symbol(s.Status)), vis(s.Title))
	if s.SkipReason != "" {
		p(" — %s", vis(s.SkipReason))
	}
	p("\n")
	for _, f := range s.Findings {
		if !o.Verbose && (f.Severity == report.Pass || f.Severity == report.Info) && f.Role != report.RoleContext {
			continue
		}
		if f.RootCause {
			if o.Verbose {
				p("   %s [%s] %s (root cause, above)\n", st.severity(f.Severity, Symbol(f.Severity)), vis(string(f.Code)), vis(f.Title))
			} else {
				p("   %s [%s] (root cause, above)\n", st.severity(f.Severity, Symbol(f.Severity)), vis(string(f.Code)))
			}
			continue
		}
		p("   %s [%s] %s\n", st.severity(f.Severity, Symbol(f.Severity)), vis(string(f.Code)), vis(f.Title))
		if o.Verbose || f.Severity == report.Fail || f.Severity == report.Warn || f.Severity == report.Unknown {
			writeEvidence(w, f.Evidence, "      ")
			if f.Severity != report.Pass && f.Severity != report.Info {
				writeFix(w, f.Fix, "      ", o.look())
			}
		}
	}
}

// answer is Report.Answer, or the app and its state when the report has
// none.
func answer(r *report.Report) string {
	if r.Answer != "" {
		return r.Answer
	}
	if r.Headline != "" {
		return r.Headline
	}
	return r.App.String() + " — " + phrase.Title(r.State)
}

// headlineSaysMore: with no root cause to follow, the headline has
// particulars the answer left out (every image's move).
func headlineSaysMore(r *report.Report) bool {
	return r.RootCause == nil && r.Headline != "" && r.Headline != answer(r)
}

// notVerifiedOf is what Not verified lists: every entry but the root cause
// (shown above).
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

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func writeEvidence(w io.Writer, ev []report.Evidence, indent string) {
	for _, e := range ev {
		fmt.Fprintf(w, "%s· %s: %s\n", indent, vis(e.Label), vis(e.Display()))
	}
}

func writeFix(w io.Writer, f *report.Fix, indent string, lk look) {
	if f == nil || f.Summary == "" {
		return
	}
	fmt.Fprintf(w, "%s→ %s %s", indent, lk.heading("Fix:"), vis(f.Summary))
	if f.Where != "" {
		fmt.Fprintf(w, " (%s)", vis(f.Where))
	}
	fmt.Fprintln(w)
	for _, s := range stepLines(f) {
		fmt.Fprintf(w, "%s  %s\n", indent, vis(s.head))
		// A step's lines are its own (a command, a YAML document); what
		// else it holds is shown (internal/shell writes no raw control).
		// Code is never wrapped by the last pass (codeMark): a command only
		// where bash reads it the same (wrapShell), YAML not at all.
		lines := strings.Split(textutil.VisibleLines(s.text), "\n")
		if s.lang == report.LangShell {
			lines = wrapShell(textutil.VisibleLines(s.text), s.vars, lk.width, len(indent)+6)
		}
		for _, l := range lines {
			fmt.Fprintf(w, "%s%s      %s\n", codeMark, indent, l)
		}
		if s.context != "" {
			fmt.Fprintf(w, "%s    which writes:\n", indent)
			for _, l := range strings.Split(textutil.VisibleLines(strings.TrimRight(s.context, "\n")), "\n") {
				fmt.Fprintf(w, "%s%s      %s\n", codeMark, indent, l)
			}
		}
	}
}

// step is one fix step as the renderers show it: its head ("1. say — run
// (shell):"), its text, what it writes (YAML to read, not to paste).
type step struct {
	head, text, context string
	lang                report.StepLang
	// vars are the reader's variables the text uses.
	vars []string
}

// stepLines are a fix's steps (a fix with only a snippet is one step of
// its language), numbered, each saying what to do with its text.
func stepLines(f *report.Fix) []step {
	var out []step
	for _, s := range f.Numbered() {
		head := s.Lead()
		if s.Say != "" {
			head += s.Say + " — "
		}
		head += s.Action() + ":"
		if s.Lang == report.LangYAML && s.Edit != "" && !s.SameObject {
			head = strings.TrimSuffix(head, ", YAML:") + " (" + s.Edit + "), YAML:"
		}
		out = append(out, step{head: head, text: strings.TrimRight(s.Text, "\n"), context: s.Context, lang: s.Lang, vars: s.Vars()})
	}
	return out
}

// writeTags writes the candidate table: rank, tag, fate, why. Without a
// width, in fixed columns; with one, each column as wide as its widest
// cell (the tag's at most a third of the width: a longer tag has its row's
// rest on the next line) and the why wrapped under itself.
func writeTags(w io.Writer, d updater.Decision, maxTags, width int) {
	tags := d.Tags
	more := 0
	if len(tags) > maxTags {
		tags, more = tags[:maxTags], len(tags)-maxTags
	}
	tagW, fateW := 24, 22
	if width > 0 {
		tagW, fateW = 0, 0
		for _, t := range tags {
			tagW = max(tagW, columns(vis(t.Tag)))
			fateW = max(fateW, columns(fateOf(t)))
		}
		tagW = min(tagW, width/3)
	}
	for _, t := range tags {
		rank := "  "
		if t.Rank > 0 {
			rank = fmt.Sprintf("%2d", t.Rank)
		}
		if width <= 0 {
			fmt.Fprintf(w, "   %s %-24s %-22s %s\n", rank, vis(t.Tag), fateOf(t), vis(t.Why))
			continue
		}
		tag := vis(t.Tag)
		if columns(tag) > tagW {
			fmt.Fprintf(w, "   %s %s\n", rank, tag)
			tag, rank = "", "  "
		}
		lead := fmt.Sprintf("   %s %s %s ", rank, Pad(tag, tagW), Pad(fateOf(t), fateW))
		for _, l := range wrapLine(lead+vis(t.Why), width, columns(lead)) {
			fmt.Fprintln(w, strings.TrimRight(l, " "))
		}
	}
	if more > 0 {
		fmt.Fprintf(w, "   … %d more (imgupd simulate lists them all)\n", more)
	}
}

// fateOf is a tag's fate as the table shows it ("allow-tags", "selected").
func fateOf(t updater.TagFate) string {
	return vis(strings.TrimPrefix(string(t.Fate), "dropped: "))
}

// Pad is s followed by spaces to n columns (colour sequences take none): a
// table's cell.
func Pad(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-columns(s)))
}

// rootLabel names the root cause section: what stops the tag, or what
// could not be checked.
func rootLabel(r *report.Report) string {
	if r.State == report.StateUnknown {
		return "Could not check"
	}
	return "Root cause"
}

func decidesNote(u report.NotVerified) string {
	if u.Decides {
		return " (decides the answer)"
	}
	return ""
}

func assumed(r *report.Report) string {
	if r.UpdaterVersionAssumed {
		return ", version assumed"
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
