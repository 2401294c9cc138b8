package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/imgupd/imgupd/diagnostics/report"
)

// Markdown writes the report as GitHub-flavoured Markdown (issues, wikis, chat).
func Markdown(w io.Writer, r *report.Report) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("## %s %s\n\n", StateMark(r.State), escape(r.Headline))
	p("state `%s` (exit %d) · Image Updater %s (%s mode)%s\n\n", r.State, r.State.ExitCode(), r.UpdaterVersion, orDash(r.Mode), assumed(r))
	if rc := r.RootCause; rc != nil {
		p("**%s** `%s`: %s\n\n", rootLabel(r), rc.Code, escape(rc.Title))
		if rc.Detail != "" {
			p("%s\n\n", escape(rc.Detail))
		}
		for _, e := range rc.Evidence {
			p("- %s: `%s`\n", e.Label, strings.ReplaceAll(e.Display(), "`", "'"))
		}
		if rc.Fix != nil && rc.Fix.Summary != "" {
			p("\n**Fix:** %s", escape(rc.Fix.Summary))
			if rc.Fix.Where != "" {
				p(" (%s)", escape(rc.Fix.Where))
			}
			p("\n")
			if rc.Fix.Snippet != "" {
				p("\n```%s\n%s\n```\n", rc.Fix.Lang, rc.Fix.Snippet)
			}
		}
		p("\n")
	}
	p("| | stage | findings |\n|---|---|---|\n")
	for _, s := range r.Stages {
		var items []string
		for _, f := range s.Findings {
			if f.Severity == report.Pass || f.Severity == report.Info {
				continue
			}
			items = append(items, fmt.Sprintf("%s `%s` %s", Symbol(f.Severity), f.Code, escape(f.Title)))
		}
		if s.SkipReason != "" {
			items = append(items, escape(s.SkipReason))
		}
		if len(items) == 0 {
			items = []string{"ok"}
		}
		p("| %s | %s | %s |\n", Symbol(s.Status), s.Title, strings.Join(items, "<br>"))
	}
	if len(r.NotVerified) > 0 {
		p("\n**Not verified**\n\n")
		for _, u := range r.NotVerified {
			p("- %s%s", escape(u.What), decidesNote(u))
			if u.VerifyBy != "" {
				p(" — verify: %s", escape(u.VerifyBy))
			}
			p("\n")
		}
	}
	for _, c := range r.Candidates {
		p("\n<details><summary>Candidates for %s (%s)</summary>\n\n%s\n\n| rank | tag | fate | why |\n|---|---|---|---|\n", c.Alias, c.Image, escape(c.Decision.Reason))
		for i, t := range c.Decision.Tags {
			if i == 30 {
				p("| | … %d more | | |\n", len(c.Decision.Tags)-30)
				break
			}
			rank := ""
			if t.Rank > 0 {
				rank = fmt.Sprint(t.Rank)
			}
			p("| %s | `%s` | %s | %s |\n", rank, t.Tag, t.Fate, escape(t.Why))
		}
		p("\n</details>\n")
	}
}

func escape(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}
