package blockkit

import (
	"fmt"
	"github.com/imgupd/imgupd/present/phrase"
	"strings"

	"github.com/slack-go/slack"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/present/blockkit/mrkdwn"
	"github.com/imgupd/imgupd/report"
)

// whereTop is how many apps of one answer the message lists; the thread
// has them all.
const whereTop = 8

// Where renders a "where is my tag?" answer: the header (the most urgent
// answer's mark and the answer in one line), what the tag is and why, the
// apps grouped by answer, the fix of the first app something stops, and
// in the thread every app with its answer.
func Where(w *report.Where) Payload {
	head := phrase.Emoji(w.Worst()) + " " + textutil.ClipWords(mrkdwn.Plain(textutil.OneLine(w.Head())), MaxHeaderText-3)
	blocks := []slack.Block{slack.NewHeaderBlock(plain(clipRunes(head, MaxHeaderText)))}
	if about := whereAboutLines(w); len(about) > 0 {
		blocks = append(blocks, section(clipRunes(strings.Join(about, "\n"), budgetRootCause)))
	}
	var thread []string
	for _, a := range report.WhereAnswers() {
		g := w.Group(a)
		if len(g) == 0 {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s *%s* (%d)", phrase.Emoji(a.State()), md(phrase.WhereTitle(a)), len(g))
		for i, l := range g {
			if i == whereTop {
				fmt.Fprintf(&b, "\n… %d more in the thread", len(g)-whereTop)
				break
			}
			b.WriteString(clipRunes("\n"+whereLineText(l, w.Spans(), w.Tag), 300))
		}
		blocks = append(blocks, section(clipRunes(b.String(), MaxSectionText)))
		if len(g) > whereTop {
			var t strings.Builder
			fmt.Fprintf(&t, "%s *%s* (%d)", phrase.Emoji(a.State()), md(phrase.WhereTitle(a)), len(g))
			for _, l := range g {
				t.WriteString(clipRunes("\n"+whereLineText(l, w.Spans(), w.Tag), 300))
			}
			thread = append(thread, clipRunes(t.String(), MaxSectionText))
		}
		if len(blocks) >= MaxBlocks-4 {
			break
		}
	}
	if l := w.FirstStopped(); l != nil {
		// The first app something stops: its root cause's fix, as steps;
		// the others' fixes go to the thread.
		head := fmt.Sprintf("*%s* `%s`\n", md(l.Shown(w.Spans())), tick(string(l.Code)))
		text, more := fixText(l.Fix, budgetFix)
		blocks = append(blocks, section(head+text))
		if more {
			thread = append(thread, fixChunks(head+fixHead(l.Fix), l.Fix)...)
		}
		for i := range w.Apps {
			o := &w.Apps[i]
			if o == l || o.Fix == nil || o.Fix.Summary == "" || o.Answer == report.WhereRunning || o.Answer == report.WhereWritten || o.Answer == report.WhereDue {
				continue
			}
			h := fmt.Sprintf("*%s* `%s`\n", md(o.Shown(w.Spans())), tick(string(o.Code)))
			thread = append(thread, fixChunks(h+fixHead(o.Fix), o.Fix)...)
		}
	}
	ctx := []string{}
	switch {
	case w.Spans():
		ctx = append(ctx, "clusters "+md(strings.Join(w.Clusters, ", ")))
	case w.Cluster != "":
		ctx = append(ctx, "cluster "+md(w.Cluster))
	}
	ctx = append(ctx, md(w.Scope.String()))
	if w.Partial {
		ctx = append(ctx, "*partial*: the scan's deadline ended it, what it did not finish is unknown")
	}
	ctx = append(ctx, diagnoseHint(w.Spans()))
	blocks = append(blocks, slack.NewContextBlock("", mdText(clipRunes(strings.Join(ctx, " · "), budgetContext))))
	return Payload{
		Message: Message{Text: clipRunes(md(head), MaxMessageText), Blocks: slack.Blocks{BlockSet: blocks}},
		Thread:  pack("imgupd: where "+md(w.Asked), thread),
	}
}

// whereLineText is one app's line: the app, its image's alias and the
// answer in words (values escaped).
func whereLineText(l report.WhereLine, spans bool, tag string) string {
	app := "`" + tick(l.Shown(spans)) + "`"
	if l.Alias != "" {
		app += " (" + md(l.Alias) + ")"
	}
	return "• " + app + " — " + md(textutil.ClipWords(textutil.OneLine(l.Says(tag)), 220))
}

// whereAboutLines say which tag the answer is about and why, a tag that is
// not listed and its nearest, the repositories nearest to one no app uses.
func whereAboutLines(w *report.Where) []string {
	var out []string
	if w.Tag != "" && w.TagFrom != "" && w.TagFrom != "asked" {
		out = append(out, fmt.Sprintf("Tag `%s`: %s.", tick(w.Tag), md(w.TagFrom)))
	}
	if w.Digest != "" {
		if len(w.DigestTags) > 0 {
			out = append(out, fmt.Sprintf("`%s` is tagged %s.", tick(w.Digest), md(strings.Join(w.DigestTags, ", "))))
		}
		if w.DigestNote != "" {
			out = append(out, md(w.DigestNote)+".")
		}
	}
	if len(w.Nearest) > 0 {
		out = append(out, "Nearest tags: "+md(strings.Join(w.Nearest, ", "))+".")
	}
	if len(w.Apps) == 0 {
		if len(w.Repositories) > 0 {
			out = append(out, "Did you mean "+md(strings.Join(w.Repositories, ", "))+"?")
		}
		out = append(out, fmt.Sprintf("%d application(s) Image Updater manages that you may see were looked at.", w.Managed))
	}
	for _, f := range w.ClusterFailures {
		out = append(out, ":grey_question: "+md(textutil.ClipWords(phrase.ClusterFailure(f), 280)))
	}
	return out
}
