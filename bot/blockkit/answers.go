package blockkit

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/imgupd/imgupd/diagnostics"
)

// Notice is a short answer: help, a refusal, "not found", an error. text
// is chat Markdown from our own code (commands), not from the cluster, so
// it is not escaped; it is clipped to Slack's limits.
func Notice(text string) Message {
	text = strings.TrimSpace(text)
	if text == "" {
		text = "(no answer)"
	}
	return Message{
		Text:   clipRunes(firstLine(text), MaxMessageText),
		Blocks: slack.Blocks{BlockSet: []slack.Block{section(clipRunes(text, MaxSectionText))}},
	}
}

// Progress is the "diagnosing…" message shown while a command runs.
func Progress(what string) Message {
	return Notice(":hourglass_flowing_sand: " + what + "…")
}

// Explain renders a catalogue entry.
func Explain(e diagnostics.Entry) Message {
	body := fmt.Sprintf("*`%s`* (%s stage, %s)\n*%s*\n%s", e.Code, e.Stage, e.Severity, esc(e.Title), esc(e.Meaning))
	blocks := []slack.Block{section(clipRunes(body, MaxSectionText))}
	if e.Fix != "" {
		blocks = append(blocks, section(clipRunes("*Fix:* "+esc(e.Fix), MaxSectionText)))
	}
	return Message{Text: clipRunes(string(e.Code)+": "+e.Title, MaxMessageText), Blocks: slack.Blocks{BlockSet: blocks}}
}

// Tags renders the candidate tables of a report (one alias, or all) with
// up to maxTagRows rows each, split over messages within the limits.
func Tags(r *diagnostics.Report, alias string) []Message {
	var chunks []string
	for _, c := range r.Candidates {
		if alias != "" && c.Alias != alias {
			continue
		}
		chunks = append(chunks, candidateTable(c, maxTagRows))
		if d := c.Decision; d.Reason != "" {
			chunks = append(chunks, clipRunes("*Decision:* "+esc(d.Reason), MaxSectionText))
		}
	}
	if len(chunks) == 0 {
		why := "no image of " + r.App.String() + " got as far as the candidate stage"
		if r.RootCause != nil {
			why += fmt.Sprintf(" (root cause `%s`: %s)", r.RootCause.Code, esc(r.RootCause.Title))
		}
		return []Message{Notice(why)}
	}
	return pack("imgupd: candidate tags for "+r.App.String(), chunks)
}

// maxTagRows is how many candidates a "tags" answer lists per image.
const maxTagRows = 40

// Logs renders Image Updater's log lines about the report's application.
func Logs(r *diagnostics.Report) []Message {
	if len(r.UpdaterLog) == 0 {
		why := "Image Updater's logs have no line about " + esc(r.App.String()) + " in the window read"
		for _, s := range r.Stages {
			for _, f := range s.Findings {
				switch {
				case f.Code == diagnostics.CodeUpdaterLogsUnavailable || f.Code == diagnostics.CodeReadForbidden && strings.Contains(f.Title, "log"):
					why = "Image Updater's logs could not be read: " + esc(f.Title)
				case f.Code == diagnostics.CodeUpdaterCycling:
					// Cycles run but say nothing about the app: show the last.
					why += " (Image Updater logs only errors and updates per application at info level).\n*" + esc(f.Title) + "*"
					for _, e := range f.Evidence {
						why += fmt.Sprintf("\n• %s: `%s`", esc(e.Label), clipRunes(tick(e.Display()), 400))
					}
				}
			}
		}
		return []Message{Notice(why)}
	}
	var chunks []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			chunks = append(chunks, "```"+b.String()+"```")
			b.Reset()
		}
	}
	for _, l := range r.UpdaterLog {
		line := fmt.Sprintf("%s %-5s %s", l.Time.UTC().Format("15:04:05"), strings.ToUpper(clipRunes(l.Level, 5)), noFence(l.Message))
		line = clipRunes(line, 400) + "\n"
		if utf8.RuneCountInString(b.String())+utf8.RuneCountInString(line) > MaxSectionText-8 {
			flush()
		}
		b.WriteString(line)
	}
	flush()
	head := fmt.Sprintf("*Image Updater's last %d log line(s) about %s* (secrets masked)", len(r.UpdaterLog), esc(r.App.String()))
	return pack("imgupd: Image Updater log lines for "+r.App.String(), append([]string{head}, chunks...))
}

// pack puts sections into as few messages as the limits allow.
func pack(text string, chunks []string) []Message {
	var out []Message
	var cur []slack.Block
	total := 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, Message{Text: clipRunes(text, MaxMessageText), Blocks: slack.Blocks{BlockSet: cur}})
		}
		cur, total = nil, 0
	}
	for _, c := range chunks {
		n := utf8.RuneCountInString(c)
		if len(cur) == MaxBlocks-1 || total+n > MaxTotalBlockTxt-500 {
			flush()
		}
		cur = append(cur, section(c))
		total += n
	}
	flush()
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
