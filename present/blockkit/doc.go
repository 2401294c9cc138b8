// Package blockkit renders a diagnosis Report as Slack Block Kit payloads:
// the report message (verdict, root cause and fix, one line per stage, the
// candidate table of the failing image, buttons) and the thread replies that
// carry what does not fit, and validates every payload against Slack's
// documented limits. It only formats: everything shown is in the Report.
package blockkit
