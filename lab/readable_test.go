package lab

import (
	"github.com/imgupd/imgupd/present/phrase"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
)

// TestTextReadsInTenSeconds (render's rules, here to share the lab's one
// run of each scenario): over every built-in scenario, the terminal
// report opens with the state's mark and the answer, lists the passed
// stages in one line (no passed stage on a line of its own), says "Not
// verified" at most once and does not repeat the root cause's title; -v
// still lists every stage. The Markdown report opens with the answer and
// says Not verified and the root cause once too.
func TestTextReadsInTenSeconds(t *testing.T) {
	all, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range all {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			d := diagnoseBuiltin(sc) // the run TestBuiltinScenarios makes
			if d.err != nil {
				t.Fatal(d.err)
			}
			r := d.rep
			var b strings.Builder
			render.Text(&b, r, render.TextOptions{})
			out := b.String()
			lines := strings.Split(out, "\n")
			if want := phrase.Mark(r.State) + "  " + textutil.Visible(r.Answer); lines[0] != want {
				t.Errorf("line 1 is %q, want %q", lines[0], want)
			}
			var passed []string
			for _, s := range r.Stages {
				if s.Status == report.Pass || s.Status == report.Info {
					passed = append(passed, s.Title)
				}
				for _, l := range lines {
					if l == render.Symbol(report.Pass)+" "+s.Title {
						t.Errorf("the passed stage %q has a line of its own", s.Title)
					}
				}
			}
			if len(passed) > 0 {
				n := 0
				for _, l := range lines {
					if strings.HasPrefix(l, "✔ ") && strings.Contains(l, " passed: ") && strings.HasSuffix(l, strings.Join(passed, ", ")) {
						n++
					}
				}
				if n != 1 {
					t.Errorf("%d lines list the %d passed stages, want one:\n%s", n, len(passed), out)
				}
			}
			if n := strings.Count(out, "Not verified"); n > 1 {
				t.Errorf("\"Not verified\" %d times:\n%s", n, out)
			}
			if rc := r.RootCause; rc != nil {
				if n := strings.Count(out, textutil.Visible(rc.Title)); n != 1 {
					t.Errorf("the root cause's title is said %d times:\n%s", n, out)
				}
			}
			var md strings.Builder
			render.Markdown(&md, r)
			if want := "## " + phrase.Emoji(r.State) + " " + render.MarkdownText(r.Answer) + "\n"; !strings.HasPrefix(md.String(), want) {
				t.Errorf("the Markdown report does not open with %q:\n%s", want, md.String())
			}
			if n := strings.Count(md.String(), "Not verified"); n > 1 {
				t.Errorf("the Markdown report says \"Not verified\" %d times:\n%s", n, md.String())
			}
			if rc := r.RootCause; rc != nil {
				if n := strings.Count(md.String(), render.MarkdownText(rc.Title)); n != 1 {
					t.Errorf("the Markdown report says the root cause's title %d times:\n%s", n, md.String())
				}
			}
			var v strings.Builder
			render.Text(&v, r, render.TextOptions{Verbose: true})
			for _, s := range r.Stages {
				if !strings.Contains(v.String(), render.Symbol(s.Status)+" "+s.Title+"\n") && s.SkipReason == "" {
					t.Errorf("-v does not list the stage %q:\n%s", s.Title, v.String())
				}
			}
		})
	}
}
