package bot

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/slack-go/slack"

	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/present/blockkit"
)

// maxProgressNotes bounds the times a slash command's "Scanning …" note is replaced: Slack takes
// five posts to a response_url in all, and an answer given to the asker alone needs some of them.
const maxProgressNotes = 2

// fleetAnswer reports whether a command scans the fleet (summary, where), which can take long
// enough that its asker wants to see it advance.
func fleetAnswer(c commands.Command) bool {
	switch c.(type) {
	case commands.Summary, commands.Where:
		return true
	}
	return false
}

// progressNote is how a slash command's fleet scan shows that it advances: once the scan has run
// ProgressAfter, the ephemeral "Scanning …" note the ack showed is replaced (response_url,
// replace_original) by the same line with the apps done of the total and the time, and again
// after ProgressEvery, at most maxProgressNotes times. It is called from the scan's workers and
// posts before it returns, so no note can land after the answer. Each note says how far the scan
// was then, which stays true once it has finished.
func (b *Bot) progressNote(ctx context.Context, inv *invocation) func(done, total int) {
	var (
		mu   sync.Mutex
		sent int
		last time.Time
	)
	return func(done, total int) {
		now := time.Now()
		mu.Lock()
		due := sent < maxProgressNotes && done < total && now.Sub(inv.start) >= b.cfg.ProgressAfter &&
			(last.IsZero() || now.Sub(last) >= b.cfg.ProgressEvery)
		if due {
			sent++
			last = now
		}
		mu.Unlock()
		if !due {
			return
		}
		text := fmt.Sprintf("%s: %d of %d apps diagnosed after %s", commands.ProgressText(inv.cmd), done, total, now.Sub(inv.start).Round(time.Second))
		m := blockkit.Progress(text)
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := b.postResponse(pctx, inv, m, slack.MsgOptionReplaceOriginal(inv.respURL)); err != nil {
			// Progress is a courtesy: the answer follows whatever happens here. The response
			// URL itself stays out of the log (it lets anyone post for 30 minutes).
			b.cfg.Log.Debug("progress note not replaced", "error", errorCode(err))
		}
	}
}
