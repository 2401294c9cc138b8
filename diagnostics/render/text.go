// Package render turns a diagnosis Report into text for a terminal, Markdown
// for issues and chat, and JSON. Renderers only format: everything shown is
// in the Report.
package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/imgupd/imgupd/diagnostics/report"
	"github.com/imgupd/imgupd/diagnostics/updater"
)

// Symbols per status, as in `flux check`.
var symbols = map[report.Severity]string{
	report.Fail: "✗", report.Warn: "⚠", report.Info: "ℹ", report.Pass: "✔",
	report.Skipped: "⏭", report.Unknown: "?",
}

// Symbol is the status mark of a severity.
func Symbol(s report.Severity) string { return symbols[s] }

// TextOptions shape the terminal output.
type TextOptions struct {
	// Verbose shows passing findings and their evidence too.
	Verbose bool
	// MaxTags caps the candidate table (0 = 12).
	MaxTags int
}

// Text writes the report for a terminal: the verdict and root cause with its
// fix first, then one block per stage.
func Text(w io.Writer, r *report.Report, o TextOptions) {
	if o.MaxTags == 0 {
		o.MaxTags = 12
	}
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("%s  %s\n", StateMark(r.State), r.Headline)
	p("   state %s (exit %d) · Image Updater %s (%s mode)%s\n", r.State, r.State.ExitCode(), r.UpdaterVersion, orDash(r.Mode), assumed(r))
	if rc := r.RootCause; rc != nil {
		p("\n%s [%s] %s\n", rootLabel(r), rc.Code, rc.Title)
		if rc.Detail != "" {
			p("   %s\n", rc.Detail)
		}
		writeEvidence(w, rc.Evidence, "   ")
		writeFix(w, rc.Fix, "   ")
	}
	p("\n")
	for _, s := range r.Stages {
		p("%s %s", Symbol(s.Status), s.Title)
		if s.SkipReason != "" {
			p(" — %s", s.SkipReason)
		}
		p("\n")
		for _, f := range s.Findings {
			if !o.Verbose && (f.Severity == report.Pass || f.Severity == report.Info) && f.Role != report.RoleContext {
				continue
			}
			if f.RootCause {
				p("   %s [%s] %s (root cause, above)\n", Symbol(f.Severity), f.Code, f.Title)
				continue
			}
			p("   %s [%s] %s\n", Symbol(f.Severity), f.Code, f.Title)
			if o.Verbose || f.Severity == report.Fail || f.Severity == report.Warn || f.Severity == report.Unknown {
				writeEvidence(w, f.Evidence, "      ")
				if f.Severity != report.Pass && f.Severity != report.Info {
					writeFix(w, f.Fix, "      ")
				}
			}
		}
	}
	for _, c := range r.Candidates {
		p("\nCandidates for %s (%s): %s\n", c.Alias, c.Image, c.Decision.Reason)
		writeTags(w, c.Decision, o.MaxTags)
	}
	if len(r.NotVerified) > 0 {
		p("\nNot verified:\n")
		for _, u := range r.NotVerified {
			p("   - %s%s\n", u.What, decidesNote(u))
			if u.VerifyBy != "" {
				p("     verify: %s\n", u.VerifyBy)
			}
		}
	}
	p("\n%d registry request(s), %s. `imgupd explain CODE` explains a code.\n", r.RegistryRequests, r.Duration.Round(1e6))
}

func writeEvidence(w io.Writer, ev []report.Evidence, indent string) {
	for _, e := range ev {
		fmt.Fprintf(w, "%s· %s: %s\n", indent, e.Label, e.Display())
	}
}

func writeFix(w io.Writer, f *report.Fix, indent string) {
	if f == nil || f.Summary == "" {
		return
	}
	fmt.Fprintf(w, "%s→ Fix: %s", indent, f.Summary)
	if f.Where != "" {
		fmt.Fprintf(w, " (%s)", f.Where)
	}
	fmt.Fprintln(w)
	if f.Snippet != "" {
		for _, l := range strings.Split(f.Snippet, "\n") {
			fmt.Fprintf(w, "%s    %s\n", indent, l)
		}
	}
}

func writeTags(w io.Writer, d updater.Decision, max int) {
	shown := 0
	for _, t := range d.Tags {
		if shown == max {
			fmt.Fprintf(w, "   … %d more (imgupd simulate lists them all)\n", len(d.Tags)-shown)
			return
		}
		rank := "  "
		if t.Rank > 0 {
			rank = fmt.Sprintf("%2d", t.Rank)
		}
		fmt.Fprintf(w, "   %s %-24s %-22s %s\n", rank, t.Tag, strings.TrimPrefix(string(t.Fate), "dropped: "), t.Why)
		shown++
	}
}

// StateMark is the mark of a state (State.Mark).
func StateMark(s report.State) string { return s.Mark() }

// rootLabel names the root cause section: what stops the tag, or what
// could not be checked.
func rootLabel(r *report.Report) string {
	if r.State == report.StateUnknown {
		return "Could not check"
	}
	return "Root cause"
}

func decidesNote(u report.NotVerified) string {
	if u.Decides {
		return " (decides the answer)"
	}
	return ""
}

func assumed(r *report.Report) string {
	if r.UpdaterVersionAssumed {
		return ", version assumed"
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
