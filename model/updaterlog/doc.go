// Package updaterlog reads and interprets the logs of the Argo CD Image
// Updater controller.
//
// It has three layers, each usable on its own:
//
//   - Parse turns a log stream into Lines: logrus text (`time=... level=...
//     msg="..." key=value`), logrus JSON (`--logformat json`), logrus's
//     terminal format (`INFO[...] msg key=value`), and, kept unparsed but with
//     a level where one can be read, klog and controller-runtime lines and Go
//     panics with their stack traces.
//   - Classify matches a Line against a catalogue of the messages that matter
//     for "why did it not update?", built from the controller's format
//     strings, and names the error cause inside it where one is known.
//   - Analyze summarises a whole log for one Application: cycles and their
//     counters, the cycle interval, the lines about the Application, errors
//     and warnings, the last successful update.
//
// Redact masks secrets in any text taken from a log; every excerpt shown as
// evidence must go through it (Line.Redacted does so for a whole Line).
//
// The package does no I/O beyond the io.Reader handed to Parse and decides no
// verdicts: it reports what the logs say, the engine decides what it means.
package updaterlog
