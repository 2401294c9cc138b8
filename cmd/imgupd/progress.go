package main

import (
	"fmt"
	goio "io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/internal/textutil"
)

// progress is the line long work rewrites on a terminal's stderr: what it does, how far it is
// (done of total units, or what it is on) and the time elapsed, refreshed as work advances and
// every second; stop clears it. It is drawn only on a terminal: a file, a pipe or a CI log
// gets nothing, and stdout (the answer, -o json) never does.
type progress struct {
	w     goio.Writer
	start time.Time
	tick  *time.Ticker
	quit  chan struct{}
	// label opens the line ("scanning"), unit counts ("apps"), and waiting is said before the
	// total is known ("listing Applications").
	label, unit, waiting string

	mu          sync.Mutex
	done, total int
	current     string
	stopped     bool
}

// newProgress is a progress line on w, or nil when w is not a terminal. It is drawn at once,
// so a terminal sees the work start within the first second.
func newProgress(w goio.Writer, label, unit, waiting string) *progress {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	p := &progress{w: w, start: time.Now(), tick: time.NewTicker(time.Second), quit: make(chan struct{}), label: label, unit: unit, waiting: waiting}
	p.draw()
	go func() {
		for {
			select {
			case <-p.tick.C:
				p.mu.Lock()
				p.draw()
				p.mu.Unlock()
			case <-p.quit:
				return
			}
		}
	}()
	return p
}

// progressFor is newProgress for a command printing in format output: none for the formats a
// program reads (json, blockkit), whose runs are scripted.
func progressFor(w goio.Writer, output, label, unit, waiting string) *progress {
	if output != "text" && output != "markdown" {
		return nil
	}
	return newProgress(w, label, unit, waiting)
}

// progressOf is progressFor with the progress line of the table's entry name (commands.Table:
// its Progress), on what (the entry's %s: diagnose's NAMESPACE/APP).
func progressOf(name string, w goio.Writer, output, what string) *progress {
	s, _ := commands.Lookup(name)
	label := s.Progress.Label
	if strings.Contains(label, "%s") {
		label = fmt.Sprintf(label, what)
	}
	return progressFor(w, output, label, s.Progress.Unit, s.Progress.Waiting)
}

// update says done of total units are finished.
func (p *progress) update(done, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = done, total
	p.draw()
}

// on says what the work is on now ("Registry and network"); it is shown after the count.
func (p *progress) on(what string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.current = what
	p.draw()
}

// draw writes the line; p.mu is held. What it is on may come from the cluster (a stage title
// does not, an app name does): it is shown as visible text, on one line, clipped.
func (p *progress) draw() {
	if p.stopped {
		return
	}
	elapsed := time.Since(p.start).Round(time.Second)
	var line string
	switch {
	case p.total > 0:
		line = fmt.Sprintf("%s: %d/%d %s", p.label, p.done, p.total, p.unit)
	case p.current != "":
		line = p.label
	default:
		line = p.label + ": " + p.waiting
	}
	if p.current != "" {
		sep := ", "
		if p.total == 0 {
			sep = ": "
		}
		line += sep + textutil.ClipWords(textutil.Visible(textutil.OneLine(p.current)), 48)
	}
	fmt.Fprintf(p.w, "\r%s, %s\x1b[K", line, elapsed)
}

// stop clears the line (once; a nil progress does nothing).
func (p *progress) stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	p.tick.Stop()
	close(p.quit)
	fmt.Fprint(p.w, "\r\x1b[K")
}

// Update, On and Stop are the progress line as a command's folder sees it (command.Progress).
func (p *progress) Update(done, total int) { p.update(done, total) }
func (p *progress) On(what string)         { p.on(what) }
func (p *progress) Stop()                  { p.stop() }
