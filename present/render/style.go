package render

import (
	"bytes"

	"github.com/imgupd/imgupd/report"
)

// Colour on a terminal: ANSI SGR sequences around what the renderer itself
// writes (marks, state words, headings), never around a value the cluster
// wrote, which reaches a renderer only through vis, so that it holds no
// ESC of its own. The sequences are a fixed list (sgrs): the last net in
// cmd/imgupd lets exactly these through and shows every other ESC as \x1b.
const (
	sgrReset   = "\x1b[0m"
	sgrBold    = "\x1b[1m"
	sgrDim     = "\x1b[2m"
	sgrRed     = "\x1b[31m"
	sgrGreen   = "\x1b[32m"
	sgrYellow  = "\x1b[33m"
	sgrMagenta = "\x1b[35m"
	sgrCyan    = "\x1b[36m"
)

var sgrs = []string{sgrReset, sgrBold, sgrDim, sgrRed, sgrGreen, sgrYellow, sgrMagenta, sgrCyan}

// StyleAt is the length of the colour sequence a renderer writes that b
// starts with, or 0: what a writer between a renderer and the terminal may
// let through when colour is on.
func StyleAt(b []byte) int {
	for _, s := range sgrs {
		if bytes.HasPrefix(b, []byte(s)) {
			return len(s)
		}
	}
	return 0
}

// styler paints the renderer's own words when colour is on, and is the
// identity when it is off.
type styler struct{ on bool }

func (st styler) paint(sgr, s string) string {
	if !st.on || s == "" {
		return s
	}
	return sgr + s + sgrReset
}

// state paints s (a mark or a state's words) in its state's colour: green
// when nothing is to be done, yellow when it waits or is held, red when it
// is stopped or wrong, magenta when it is not known.
func (st styler) state(s report.State, text string) string {
	return st.paint(stateSGR(s), text)
}

// severity paints a finding's or a stage's mark.
func (st styler) severity(s report.Severity, text string) string {
	return st.paint(severitySGR(s), text)
}

// heading paints a section's heading.
func (st styler) heading(text string) string { return st.paint(sgrBold, text) }

// dim paints what is there to read only when looking for it.
func (st styler) dim(text string) string { return st.paint(sgrDim, text) }

func stateSGR(s report.State) string {
	switch s {
	case report.StateUpToDate, report.StateOnItsWay:
		return sgrGreen
	case report.StateHeldBack, report.StateNotDeployed, report.StateWaitingForMerge:
		return sgrYellow
	case report.StateBlocked, report.StateWrongUpdate:
		return sgrRed
	}
	return sgrMagenta
}

func severitySGR(s report.Severity) string {
	switch s {
	case report.Fail:
		return sgrRed
	case report.Warn:
		return sgrYellow
	case report.Pass:
		return sgrGreen
	case report.Info:
		return sgrCyan
	case report.Skipped:
		return sgrDim
	}
	return sgrMagenta
}
