package blockkit

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/present/blockkit/mrkdwn"
	"github.com/imgupd/imgupd/report"
)

// Notice is a short answer: help, a refusal, "not found", an error. text
// is chat Markdown from imgupd's own code (`code`, *bold*, _italic_, an
// emoji mark first) with raw values in it — names the user typed, text the
// cluster or Slack returned: Notice escapes &, < and > everywhere and breaks
// emoji shortcodes outside code (bar the leading mark), so nothing in it
// becomes a mention, a link or an emoji. A notice with the bot's own
// mentions is NoticeMrkdwn's. It is clipped to Slack's limits.
func Notice(text string) Message {
	return NoticeMrkdwn(Chat(strings.TrimSpace(text)))
}

// NoticeMrkdwn is a Notice of mrkdwn that is already safe to send.
func NoticeMrkdwn(text Mrkdwn) Message {
	s := strings.TrimSpace(string(text))
	if s == "" {
		s = "(no answer)"
	}
	return Message{
		Text:   clipRunes(textutil.FirstLine(s), MaxMessageText),
		Blocks: slack.Blocks{BlockSet: []slack.Block{section(clipRunes(s, MaxSectionText))}},
	}
}

// Progress is the "diagnosing…" message shown while a command runs; what is
// chat Markdown with raw values, as Notice's.
func Progress(what string) Message {
	return Notice(":hourglass_flowing_sand: " + what + "…")
}

// Explain renders a catalogue entry: imgupd's own text, compiled in, so its
// * _ ~ ` are kept as written (mrkdwn.Own).
func Explain(e report.Entry) Message {
	own := mrkdwn.Own
	body := fmt.Sprintf("*`%s`* (%s stage, %s)\n*%s*\n%s", tick(string(e.Code)), own(string(e.Stage)), own(string(e.Severity)), own(e.Title), own(e.Meaning))
	blocks := []slack.Block{section(clipRunes(body, MaxSectionText))}
	if e.Fix != "" {
		blocks = append(blocks, section(clipRunes("*Fix:* "+own(e.Fix), MaxSectionText)))
	}
	return Message{Text: clipRunes(own(string(e.Code)+": "+e.Title), MaxMessageText), Blocks: slack.Blocks{BlockSet: blocks}}
}

// Tags renders the candidate tables of a report (one alias, or all) with
// up to maxTagRows rows each, split over messages within the limits.
func Tags(r *report.Report, alias string) []Message {
	var chunks []string
	for _, c := range r.Candidates {
		if alias != "" && c.Alias != alias {
			continue
		}
		chunks = append(chunks, candidateTable(c, maxTagRows))
		if d := c.Decision; d.Reason != "" {
			chunks = append(chunks, clipRunes("*Decision:* "+md(d.Reason), MaxSectionText))
		}
	}
	if len(chunks) == 0 {
		why := "no image of " + md(r.App.String()) + " got as far as the candidate stage"
		if r.RootCause != nil {
			why += fmt.Sprintf(" (root cause `%s`: %s)", tick(string(r.RootCause.Code)), md(r.RootCause.Title))
		}
		return []Message{NoticeMrkdwn(Mrkdwn(why))}
	}
	return pack("imgupd: candidate tags for "+md(r.App.String()), chunks)
}

// maxTagRows is how many candidates a "tags" answer lists per image.
const maxTagRows = 40

// Logs renders Image Updater's log lines about the report's application.
func Logs(r *report.Report) []Message {
	if len(r.UpdaterLog) == 0 {
		why := "Image Updater's logs have no line about " + md(r.App.String()) + " in the window read"
		for _, s := range r.Stages {
			for _, f := range s.Findings {
				switch f.Role {
				case report.RoleLogsUnread:
					why = "Image Updater's logs could not be read: " + md(f.Title)
				case report.RoleLastCycle:
					// Cycles run but say nothing about the app: show the last.
					why += " (Image Updater logs only errors and updates per application at info level).\n*" + md(f.Title) + "*"
					for _, e := range f.Evidence {
						why += fmt.Sprintf("\n• %s: `%s`", md(e.Label), clipRunes(tick(e.Display()), 400))
					}
				}
			}
		}
		return []Message{NoticeMrkdwn(Mrkdwn(why))}
	}
	head := fmt.Sprintf("*Image Updater's last %d log line(s) about %s* (secrets masked)", len(r.UpdaterLog), md(r.App.String()))
	return pack("imgupd: Image Updater log lines for "+md(r.App.String()), append([]string{head}, logChunks(r)...))
}

// logChunks are the report's log lines as code blocks within a section's
// limit: time, level (whole, padded to the longest present) and message.
func logChunks(r *report.Report) []string {
	width := 0
	for _, l := range r.UpdaterLog {
		width = max(width, utf8.RuneCountInString(l.Level))
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
		line := fmt.Sprintf("%s %-*s %s", l.Time.UTC().Format("15:04:05"), width, codeLine(strings.ToUpper(l.Level)), codeLine(l.Message))
		line = clipRunes(line, 400) + "\n"
		if utf8.RuneCountInString(b.String())+utf8.RuneCountInString(line) > MaxSectionText-8 {
			flush()
		}
		b.WriteString(line)
	}
	flush()
	return chunks
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
