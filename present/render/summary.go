package render

import (
	"fmt"
	"github.com/imgupd/imgupd/present/phrase"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/report"
)

// SummaryOptions shape the terminal and Markdown summaries.
type SummaryOptions struct {
	// Command is how the next step names the binary ("imgupd", or
	// "kubectl imgupd" as a kubectl plugin); "" is "imgupd".
	Command string
	// Next is the command that shows one app's full report (default:
	// "COMMAND diagnose NAME -n NAMESPACE"); it is also called with the
	// placeholders APP and NAMESPACE for the general form.
	Next func(app report.AppRef) string
	// TitleWidth clips each app's root-cause title in text (0 = 60
	// characters).
	TitleWidth int
	// Width, in text, wraps every line at its spaces to this many columns
	// and sizes the columns to it (0: no wrapping).
	Width int
	// Color, in text, paints the marks, the states and the headings.
	Color bool
}

func (o SummaryOptions) withDefaults() SummaryOptions {
	if o.Command == "" {
		o.Command = "imgupd"
	}
	if o.TitleWidth <= 0 {
		o.TitleWidth = 60
	}
	if o.Next == nil {
		cmd := o.Command
		o.Next = func(a report.AppRef) string { return cmd + " diagnose " + a.Name + " -n " + a.Namespace }
	}
	return o
}

// placeholder is the app the next step's general form names.
var placeholder = report.AppRef{Namespace: "NAMESPACE", Name: "APP"}

// SummaryText writes a fleet summary for a terminal: a header line, the
// count of each state that has apps (each state its own mark), the apps
// that need someone grouped by state then stage (app, root-cause code, the
// cause in short, since when, how long a newer tag has waited), and the
// command that shows one app's full report.
func SummaryText(w io.Writer, s report.Summary, o SummaryOptions) {
	var b strings.Builder
	writeSummary(&b, s, o)
	io.WriteString(w, wrapText(b.String(), o.Width))
}

func writeSummary(w io.Writer, s report.Summary, o SummaryOptions) {
	o = o.withDefaults()
	st := styler{on: o.Color}
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("%s  %s\n", st.state(s.Worst, phrase.Mark(s.Worst)), vis(SummaryHeader(s)))
	if s.Partial {
		p("   partial: the scan's deadline ended it; the apps it did not finish are unknown\n")
	}
	for _, f := range s.ClusterFailures {
		p("   %s\n", vis(phrase.ClusterFailure(f)))
	}
	p("\n")
	counts := s.StatesWithApps()
	if len(counts) == 0 {
		p("   %s\n", phrase.NoApp)
	}
	width := 0
	for _, c := range counts {
		width = max(width, utf8.RuneCountInString(phrase.Title(c.State)))
	}
	for _, c := range counts {
		p("   %s %s %4d\n", st.state(c.State, phrase.Mark(c.State)), st.state(c.State, Pad(phrase.Title(c.State), width)), c.Count)
	}
	if s.Unmanaged > 0 {
		p("   (%d more Application(s) in the scope that Image Updater does not manage)\n", s.Unmanaged)
	}
	if n := s.NeedAttention(); n > 0 {
		p("\n%d app(s) need someone:\n", n)
		// Columns: app, code, cause, ages (each as wide as its widest, within bounds).
		appW, codeW, causeW := 0, 0, 0
		for _, g := range s.Attention {
			for _, l := range g.Apps {
				appW = max(appW, utf8.RuneCountInString(vis(l.Shown(s.Spans()))))
				codeW = max(codeW, utf8.RuneCountInString(vis(string(l.Code))))
				causeW = max(causeW, utf8.RuneCountInString(summaryClip(LineCause(l), o.TitleWidth)))
			}
		}
		appW, codeW = min(appW, 64), min(codeW, 40)
		if o.Width > 0 {
			// The cause keeps at least a third of the width.
			appW = min(appW, max(12, o.Width/3))
		}
		for _, g := range s.Attention {
			p("\n%s %s · %s (%d)\n", st.state(g.State, phrase.Mark(g.State)), st.heading(vis(phrase.Title(g.State))), vis(phrase.StageTitle(g.Stage)), len(g.Apps))
			for _, l := range g.Apps {
				cause := summaryClip(LineCause(l), o.TitleWidth)
				ages := phrase.LineAges(l, s.At)
				if o.Width <= 0 {
					line := fmt.Sprintf("   %-*s  %-*s  %-*s", appW, vis(l.Shown(s.Spans())), codeW, vis(orDash(string(l.Code))), causeW, cause)
					if ages != "" {
						line += "  " + ages
					}
					p("%s\n", strings.TrimRight(line, " "))
					continue
				}
				writeSummaryRow(w, l, s.Spans(), cause, ages, appW, codeW, causeW, o.Width)
			}
		}
	}
	p("\n")
	if first := firstAttention(s); first != nil {
		p("Next: %s shows an app's full report and its fix, e.g. %s\n", vis(o.Next(placeholder)), vis(o.Next(first.App)))
	} else if s.Total > 0 {
		p("Nothing needs anyone. %s shows an app's full report.\n", vis(o.Next(placeholder)))
	}
}

// SummaryMarkdown writes a fleet summary as GitHub-flavoured Markdown
// (issues, wikis, chat): the header, a table of the states that have apps,
// a table per state and stage of the apps that need someone.
func SummaryMarkdown(w io.Writer, s report.Summary) { SummaryMarkdownWith(w, s, SummaryOptions{}) }

// SummaryMarkdownWith is SummaryMarkdown with the next step's command of o
// (Command, Next; TitleWidth does not apply: Markdown causes are clipped at
// 200 characters).
func SummaryMarkdownWith(w io.Writer, s report.Summary, o SummaryOptions) {
	o = o.withDefaults()
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("## %s %s\n\n", phrase.Mark(s.Worst), escape(SummaryHeader(s)))
	if s.Partial {
		p("**Partial:** the scan's deadline ended it; the apps it did not finish are unknown.\n\n")
	}
	for _, f := range s.ClusterFailures {
		p("**%s**\n\n", escape(phrase.ClusterFailure(f)))
	}
	if counts := s.StatesWithApps(); len(counts) == 0 {
		p("%s.\n", summaryUpperFirst(phrase.NoApp))
	} else {
		p("| | state | apps |\n|---|---|---:|\n")
		for _, c := range counts {
			p("| %s | %s | %d |\n", phrase.Mark(c.State), phrase.Title(c.State), c.Count)
		}
	}
	if s.Unmanaged > 0 {
		p("\n%d more Application(s) in the scope that Image Updater does not manage.\n", s.Unmanaged)
	}
	for _, g := range s.Attention {
		p("\n### %s %s · %s (%d)\n\n| app | code | cause | since | newer tag waiting |\n|---|---|---|---|---|\n",
			phrase.Mark(g.State), escape(phrase.Title(g.State)), escape(phrase.StageTitle(g.Stage)), len(g.Apps))
		for _, l := range g.Apps {
			code := "—"
			if l.Code != "" {
				code = MarkdownCellCode(string(l.Code))
			}
			p("| %s | %s | %s | %s | %s |\n", MarkdownCellCode(l.Shown(s.Spans())), code, escape(summaryClip(LineCause(l), 200)), ageOrDash(l.Since, s.At), ageOrDash(l.Waiting, s.At))
		}
	}
	if first := firstAttention(s); first != nil {
		p("\n%s shows an app's full report and its fix (%s).\n", MarkdownCode(o.Next(placeholder)), MarkdownCode(o.Next(first.App)))
	} else if s.Total > 0 {
		p("\nNothing needs anyone. %s shows an app's full report.\n", MarkdownCode(o.Next(placeholder)))
	}
}

// SummaryHeader is the summary's first line: "Image Updater fleet on
// prod-eu · every Application · 2026-11-29 12:00 UTC · 42 apps in 3.2s".
func SummaryHeader(s report.Summary) string {
	parts := []string{"Image Updater fleet"}
	switch {
	case s.Spans():
		parts[0] += " on clusters " + strings.Join(s.Clusters, ", ")
	case s.Cluster != "":
		parts[0] += " on " + s.Cluster
	}
	parts = append(parts, s.Scope.String())
	if !s.At.IsZero() {
		parts = append(parts, s.At.UTC().Format("2006-01-02 15:04 UTC"))
	}
	n := fmt.Sprintf("%d app(s)", s.Total)
	if s.Total == 1 {
		n = "1 app"
	}
	if s.Duration > 0 {
		n += " in " + roundDuration(s.Duration)
	}
	parts = append(parts, n)
	if s.Partial {
		parts = append(parts, "partial")
	}
	return strings.Join(parts, " · ")
}

// writeSummaryRow writes one app's row sized to width: the app and the code
// in columns as wide as needed, the cause and the ages after them, in a
// column of their own when it fits, else wrapped under the cause.
func writeSummaryRow(w io.Writer, l report.SummaryLine, spans bool, cause, ages string, appW, codeW, causeW, width int) {
	app := vis(l.Shown(spans))
	if columns(app) > appW {
		// A name longer than its column has the row's rest under it.
		fmt.Fprintf(w, "   %s\n", app)
		app = ""
	}
	lead := "   " + Pad(app, appW) + "  " + Pad(vis(orDash(string(l.Code))), codeW) + "  "
	rest := cause
	if ages != "" {
		if columns(lead)+causeW+2+columns(ages) <= width {
			rest = Pad(cause, causeW) + "  " + ages
		} else {
			rest = cause + " · " + ages
		}
	}
	writeRow(w, lead, rest, width)
}

// writeRow writes a table row: lead (the columns before the last, padded),
// then the last column, wrapped to width under itself.
func writeRow(w io.Writer, lead, last string, width int) {
	if width <= 0 {
		fmt.Fprintln(w, strings.TrimRight(lead+last, " "))
		return
	}
	indent := columns(lead)
	if indent > width/2 && indent+columns(last) > width {
		// Too little room for the last column: it goes under the row.
		fmt.Fprintln(w, strings.TrimRight(lead, " "))
		lead, indent = "      ", 6
	}
	for _, l := range wrapLine(lead+last, width, indent) {
		fmt.Fprintln(w, strings.TrimRight(l, " "))
	}
}

// LineCause is an app's cause in short: its answer's cause in the
// catalogue's words (AnswerCause), else its root-cause title, else why it
// has none.
func LineCause(l report.SummaryLine) string {
	if c := phrase.AnswerCause(l.Answer, l.State); c != "" {
		return c
	}
	return phrase.LineTitle(l)
}

func ageOrDash(t *time.Time, at time.Time) string {
	if t == nil {
		return "—"
	}
	return phrase.Age(at.Sub(*t))
}

func firstAttention(s report.Summary) *report.SummaryLine {
	for _, g := range s.Attention {
		if len(g.Apps) > 0 {
			return &g.Apps[0]
		}
	}
	return nil
}

func roundDuration(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// summaryClip shortens s, on one line, to n runes at a word boundary,
// ending in "…".
func summaryClip(s string, n int) string {
	return textutil.ClipWords(textutil.Visible(textutil.OneLine(s)), n)
}

// summaryUpperFirst capitalizes a sentence's first letter.
func summaryUpperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[n:]
}
