// Package report is the answer's data: a diagnosis Report (the state, the
// root cause, findings with their evidence and fix, what was not verified),
// the catalogue of finding codes, a fleet Summary and a Where answer. The
// engine fills it; the media (present/…), the bot and the CLI read it. It
// holds no words of its own (present/phrase has them), does no I/O and
// reaches no source or client.
package report
