package render

import (
	"fmt"
	"github.com/imgupd/imgupd/present/phrase"
	"io"
	"strings"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/report"
)

// Markdown writes the report as GitHub-flavoured Markdown (issues, wikis,
// chat), in the shape of the Slack message and its thread: the answer as
// the heading, the root cause with its evidence and its fix as steps, the
// stages that failed or warn and one line for the rest, Not verified once;
// then, folded, the full stage list, the other findings, the candidate
// tables and Image Updater's log lines.
func Markdown(w io.Writer, r *report.Report) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("## %s %s\n\n", phrase.Emoji(r.State), escape(answer(r)))
	if headlineSaysMore(r) {
		p("%s\n\n", escape(r.Headline))
	}
	p("state %s (exit %d) · Image Updater %s (%s mode)%s\n\n", MarkdownCode(string(r.State)), r.State.ExitCode(), escape(r.UpdaterVersion), escape(orDash(r.Mode)), assumed(r))
	if rc := r.RootCause; rc != nil {
		p("**%s** %s: %s\n\n", rootLabel(r), MarkdownCode(string(rc.Code)), escape(rc.Title))
		if rc.Detail != "" {
			p("%s\n\n", escape(rc.Detail))
		}
		for _, e := range rc.Evidence {
			p("- %s: %s\n", escape(e.Label), MarkdownCode(e.Display()))
		}
		if len(rc.Evidence) > 0 {
			p("\n")
		}
		markdownFix(w, rc.Fix)
	}
	if lines := markdownStages(r); len(lines) > 0 {
		p("%s\n\n", strings.Join(lines, "  \n"))
	}
	if nv := notVerifiedOf(r); len(nv) > 0 {
		p("**Not verified**\n\n")
		for _, u := range nv {
			p("- %s%s", escape(u.What), decidesNote(u))
			if u.VerifyBy != "" {
				p(" — verify: %s", escape(u.VerifyBy))
			}
			p("\n")
		}
		p("\n")
	}
	p("<details><summary>Details: every stage, the other findings, candidates, log lines</summary>\n\n")
	p("| | stage | worst finding |\n|---|---|---|\n")
	said := map[string]bool{}
	for _, s := range r.Stages {
		cell := ""
		switch {
		case s.SkipReason != "" && said[s.SkipReason]:
			cell = "skipped (as above)"
		case s.SkipReason != "":
			said[s.SkipReason] = true
			cell = escape(s.SkipReason)
		default:
			if f := s.WorstFinding(); f != nil {
				cell = MarkdownCellCode(string(f.Code))
				if f.RootCause {
					cell += " (the root cause)"
				}
			}
		}
		p("| %s | %s | %s |\n", Symbol(s.Status), escape(s.Title), cell)
	}
	for _, s := range r.Stages {
		for _, f := range s.Findings {
			if f.Severity == report.Pass || f.Severity == report.Info || f.RootCause {
				continue
			}
			p("\n%s **%s** %s: %s\n", Symbol(f.Severity), escape(s.Title), MarkdownCode(string(f.Code)), escape(f.Title))
			if len(f.Evidence) > 0 {
				p("\n")
			}
			for _, e := range f.Evidence {
				p("- %s: %s\n", escape(e.Label), MarkdownCode(e.Display()))
			}
			p("\n")
			markdownFix(w, f.Fix)
		}
	}
	for _, c := range r.Candidates {
		p("\n**Candidates for %s** (%s): %s\n\n| rank | tag | fate | why |\n|---|---|---|---|\n", escape(c.Alias), escape(c.Image), escape(c.Decision.Reason))
		for i, t := range c.Decision.Tags {
			if i == 30 {
				p("| | … %d more | | |\n", len(c.Decision.Tags)-30)
				break
			}
			rank := ""
			if t.Rank > 0 {
				rank = fmt.Sprint(t.Rank)
			}
			p("| %s | %s | %s | %s |\n", rank, MarkdownCellCode(t.Tag), escape(string(t.Fate)), escape(t.Why))
		}
	}
	if len(r.UpdaterLog) > 0 {
		// Each line on one line with nothing hidden, in a block whose
		// fences no run of backticks in a message can close.
		width := 0
		for _, l := range r.UpdaterLog {
			width = max(width, len(textutil.Visible(l.Level)))
		}
		var lines strings.Builder
		for _, l := range r.UpdaterLog {
			fmt.Fprintf(&lines, "%s %-*s %s\n", l.Time.UTC().Format("15:04:05"), width, textutil.Visible(strings.ToUpper(l.Level)), textutil.Visible(l.Message))
		}
		fence := markdownFence(lines.String())
		p("\n**Image Updater's log lines about %s** (the last %d, secrets masked)\n\n%stext\n%s%s\n", escape(r.App.String()), len(r.UpdaterLog), fence, lines.String(), fence)
	}
	p("\n</details>\n")
}

// markdownStages are the stages that failed, warn or could not be
// checked, one line each with their worst finding other than the root
// cause, then one line for the rest.
func markdownStages(r *report.Report) []string {
	nv := map[report.Code]bool{}
	for _, u := range r.NotVerified {
		nv[u.Code] = true
	}
	var lines []string
	passed, skipped, unverified := 0, 0, 0
	for _, s := range r.Stages {
		st := s.Effective()
		switch {
		case st == report.Skipped:
			skipped++
			continue
		case st == report.Pass || st == report.Info:
			passed++
			continue
		case st == report.Unknown && onlyNotVerified(s, nv):
			unverified++
			continue
		}
		line := Symbol(st) + " " + escape(s.Title)
		var shown *report.Finding
		root := false
		for _, sev := range []report.Severity{report.Fail, report.Unknown, report.Warn} {
			for i := range s.Findings {
				f := &s.Findings[i]
				root = root || f.RootCause
				if shown == nil && f.Severity == sev && !f.RootCause && !(sev == report.Unknown && nv[f.Code]) {
					shown = f
				}
			}
		}
		switch {
		case shown != nil:
			line += fmt.Sprintf(" — %s %s", MarkdownCode(string(shown.Code)), escape(shown.Title))
		case root:
			line += " (the root cause)"
		}
		lines = append(lines, line)
	}
	if rest := report.OtherStages(passed, skipped, unverified, len(lines) > 0); rest != "" {
		lines = append(lines, Symbol(report.Pass)+" "+rest)
	}
	return lines
}

// markdownFix writes a fix: its summary and place, then its steps, each
// naming its language, in fenced blocks.
func markdownFix(w io.Writer, f *report.Fix) {
	if f == nil || f.Summary == "" {
		return
	}
	fmt.Fprintf(w, "**Fix:** %s", escape(f.Summary))
	if f.Where != "" {
		fmt.Fprintf(w, " _(%s)_", escape(f.Where))
	}
	fmt.Fprint(w, "\n\n")
	for _, s := range stepLines(f) {
		// A step is pasted as shown: its lines as they are (internal/shell
		// writes no raw control; anything else hidden is shown), in a block
		// no run of backticks in it can close.
		text := textutil.VisibleLines(s.text)
		lang := map[report.StepLang]string{report.LangShell: "sh", report.LangYAML: "yaml"}[s.lang]
		if lang == "" {
			lang = "text"
		}
		fence := markdownFence(text)
		fmt.Fprintf(w, "%s\n\n%s%s\n%s\n%s\n\n", escape(s.head), fence, lang, text, fence)
		if s.context != "" {
			context := textutil.VisibleLines(strings.TrimRight(s.context, "\n"))
			fence := markdownFence(context)
			fmt.Fprintf(w, "which writes:\n\n%syaml\n%s\n%s\n\n", fence, context, fence)
		}
	}
}

// escape is running text: MarkdownText.
func escape(s string) string { return MarkdownText(s) }
