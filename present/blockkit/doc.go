// Package blockkit renders a diagnosis Report as Slack Block Kit payloads:
// the report message (the verdict on one line, the root cause with its key
// values and fix or an unknown answer's next step, one line per stage, what
// was not verified as small print, the buttons that have something to show)
// and the thread replies that carry the long evidence and what does not fit,
// and validates every payload against Slack's
// documented limits. It only formats: everything shown is in the Report.
package blockkit
