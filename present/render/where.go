package render

import (
	"fmt"
	"github.com/imgupd/imgupd/present/phrase"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/report"
)

// WhereText writes a "where is my tag?" answer for a terminal: the
// answer's line, then the apps grouped by answer (running, written,
// due, held back, blocked, wrong update, not deployed, unknown), one line
// each, and the fix of the first app something stops.
func WhereText(w io.Writer, wh *report.Where, o SummaryOptions) {
	var b strings.Builder
	writeWhere(&b, wh, o)
	io.WriteString(w, wrapText(b.String(), o.Width))
}

func writeWhere(w io.Writer, wh *report.Where, o SummaryOptions) {
	o = o.withDefaults()
	st := styler{on: o.Color}
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("%s  %s\n", st.state(wh.Worst(), phrase.Mark(wh.Worst())), vis(wh.Head()))
	for _, l := range whereAbout(wh) {
		p("   %s\n", vis(l))
	}
	if wh.Partial {
		p("   partial: the scan's deadline ended it; the apps it did not finish are unknown\n")
	}
	if len(wh.Apps) == 0 {
		return
	}
	width := 0
	for _, l := range wh.Apps {
		width = max(width, utf8.RuneCountInString(vis(l.Shown(wh.Spans()))))
	}
	for _, a := range report.WhereAnswers() {
		g := wh.Group(a)
		if len(g) == 0 {
			continue
		}
		p("\n%s %s (%d)\n", st.state(a.State(), phrase.Mark(a.State())), st.heading(vis(phrase.WhereTitle(a))), len(g))
		for _, l := range g {
			writeRow(w, "   "+Pad(vis(l.Shown(wh.Spans())), width)+"  ", textutil.ClipWords(vis(textutil.OneLine(l.Says(wh.Tag))), 180), o.Width)
		}
	}
	if l := wh.FirstStopped(); l != nil && l.Fix != nil {
		p("\n%s: ", vis(l.Shown(wh.Spans())))
		writeFix(w, l.Fix, "", look{styler: st, width: o.Width})
	}
	p("\n`%s` shows an app's full report.\n", vis(o.Next(placeholder)))
}

// WhereMarkdown writes the answer for issues and chat.
func WhereMarkdown(w io.Writer, wh *report.Where, o SummaryOptions) {
	o = o.withDefaults()
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("## %s %s\n\n", phrase.Emoji(wh.Worst()), escape(wh.Head()))
	for _, l := range whereAbout(wh) {
		p("- %s\n", escape(l))
	}
	if len(wh.Apps) == 0 {
		return
	}
	for _, a := range report.WhereAnswers() {
		g := wh.Group(a)
		if len(g) == 0 {
			continue
		}
		p("\n### %s %s (%d)\n\n| app | image | answer |\n|---|---|---|\n", phrase.Emoji(a.State()), escape(phrase.WhereTitle(a)), len(g))
		for _, l := range g {
			p("| %s | %s | %s |\n", MarkdownCellCode(l.Shown(wh.Spans())), MarkdownCellCode(l.Image), escape(l.Says(wh.Tag)))
		}
	}
	if l := wh.FirstStopped(); l != nil {
		p("\n### %s %s\n\n", escape(l.Shown(wh.Spans())), MarkdownCode(string(l.Code)))
		markdownFix(w, l.Fix)
	}
	p("\n%s shows an app's full report.\n", MarkdownCode(o.Next(placeholder)))
}

// whereAbout are the answer's particulars: which tag and why that one, a
// tag that is not listed and its nearest, the repositories nearest to one
// no app uses, what the scope left out.
func whereAbout(wh *report.Where) []string {
	var out []string
	switch {
	case wh.Tag != "" && wh.TagFrom != "" && wh.TagFrom != "asked":
		out = append(out, "tag "+wh.Tag+": "+wh.TagFrom)
	case wh.Tag == "" && wh.Digest == "" && len(wh.Apps) > 0:
		out = append(out, "no tag of the repository could be listed: each app's answer says why")
	}
	if wh.Digest != "" {
		if len(wh.DigestTags) > 0 {
			out = append(out, wh.Digest+" is tagged "+strings.Join(wh.DigestTags, ", "))
		}
		if wh.DigestNote != "" {
			out = append(out, wh.DigestNote)
		}
	}
	if len(wh.Nearest) > 0 {
		out = append(out, "nearest tags: "+strings.Join(wh.Nearest, ", "))
	}
	if len(wh.Apps) == 0 {
		if len(wh.Repositories) > 0 {
			out = append(out, "did you mean "+strings.Join(wh.Repositories, ", ")+"?")
		}
		out = append(out, fmt.Sprintf("%d Application(s) Image Updater manages were looked at", wh.Managed))
	}
	if wh.Spans() {
		out = append(out, "clusters "+strings.Join(wh.Clusters, ", "))
	}
	for _, f := range wh.ClusterFailures {
		out = append(out, phrase.ClusterFailure(f))
	}
	return out
}
