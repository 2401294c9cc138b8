package render_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/present/phrase"
	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
	"mvdan.cc/sh/v3/syntax"
)

// builtinReports diagnoses every built-in scenario once per test binary
// (about 15 s on two cores), for every test that reads them.
var builtinReports = sync.OnceValues(func() (map[string]*report.Report, error) {
	all, err := lab.Builtins()
	if err != nil {
		return nil, err
	}
	type one struct {
		name string
		rep  *report.Report
		err  error
	}
	results := make(chan one, len(all))
	sem := make(chan struct{}, 4)
	for _, sc := range all {
		go func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			rep, err := lab.Run(context.Background(), sc)
			results <- one{sc.Name, rep, err}
		}()
	}
	out := map[string]*report.Report{}
	for range all {
		r := <-results
		if r.err != nil {
			return nil, r.err
		}
		out[r.name] = r.rep
	}
	return out, nil
})

const (
	screenWidth  = 100
	screenHeight = 40
)

// TestEveryReportKeepsTheVerdictOnTheLastScreen: every built-in report, as
// a 100×40 terminal shows it, has its recap and (when it has a fix) the
// fix's first step on the last screen; no line is wider than the screen
// but one holding a single word too long for any line (or a line of YAML,
// which is never wrapped); no word is broken across lines: the words are
// those of the unwrapped report, in order.
func TestEveryReportKeepsTheVerdictOnTheLastScreen(t *testing.T) {
	reps, err := builtinReports()
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range reps {
		t.Run(name, func(t *testing.T) {
			var b, plain strings.Builder
			render.Text(&b, r, render.TextOptions{Width: screenWidth})
			render.Text(&plain, r, render.TextOptions{})
			out := b.String()
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			// The shell's prompt takes the screen's last line.
			screen := lines[max(0, len(lines)-(screenHeight-1)):]
			recap := lines[len(lines)-1]
			if want := phrase.Mark(r.State) + " " + string(r.State); !strings.HasPrefix(recap, want) {
				t.Errorf("the last line is %q, want the recap starting %q", recap, want)
			}
			if rc := r.RootCause; rc != nil && !strings.Contains(recap, "["+textutil.Visible(string(rc.Code))+"]") {
				t.Errorf("the recap %q does not name the root cause %s", recap, rc.Code)
			}
			switch rc := r.RootCause; {
			case rc == nil && r.State.ExitCode() == 0:
				if !strings.HasSuffix(recap, " · nothing to do") {
					t.Errorf("a healthy report's recap %q does not say there is nothing to do", recap)
				}
			case firstStepHead(r) == "" && (rc == nil || rc.Fix == nil || rc.Fix.Summary == ""):
				if !strings.Contains(recap, " · next: ") && !strings.HasSuffix(recap, " · nothing to do") {
					t.Errorf("the recap %q of a report without a fix names no next step", recap)
				}
			}
			if steps := firstStepHead(r); steps != "" {
				if !onScreen(screen, steps) {
					t.Errorf("the fix's first step %q is not on the last screen:\n%s", steps, strings.Join(screen, "\n"))
				}
				if !strings.Contains(recap, "fix above, ") {
					t.Errorf("the recap %q does not point at the fix", recap)
				}
			}
			yaml := yamlLines(r)
			for i, l := range lines {
				if utf8.RuneCountInString(l) <= screenWidth || yaml[strings.TrimSpace(l)] || oneWord(l) {
					continue
				}
				t.Errorf("line %d is %d columns wide: %q", i+1, utf8.RuneCountInString(l), l)
			}
			if got, want := words(out), words(plain.String()); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("wrapping changed the words: %s", firstDiff(got, want))
			}
		})
	}
}

// firstStepHead is how the root cause's first fix step begins as the
// report shows it, its first three words ("1. set your"), or "".
func firstStepHead(r *report.Report) string {
	rc := r.RootCause
	if rc == nil || rc.Fix == nil || rc.Fix.Summary == "" {
		return ""
	}
	steps := rc.Fix.Numbered()
	if len(steps) == 0 {
		return ""
	}
	s := steps[0]
	head := s.Lead() + s.Say
	if s.Say == "" {
		head += s.Action()
	}
	w := strings.Fields(textutil.Visible(head))
	return strings.Join(w[:min(3, len(w))], " ")
}

// onScreen: some line of screen starts, after its indent, with s's first
// words.
func onScreen(screen []string, s string) bool {
	s = strings.TrimSpace(s)
	for _, l := range screen {
		l = strings.TrimSpace(l)
		if l != "" && strings.HasPrefix(l, s) {
			return true
		}
	}
	return false
}

// oneWord: the line is one word too long for any line, with its indent
// and the backslash that continues a command: a word of prose, or one word
// of a command as bash reads it ('…' with spaces in it).
func oneWord(l string) bool {
	l = strings.TrimSuffix(strings.TrimSpace(l), " \\")
	if len(strings.Fields(l)) == 1 {
		return true
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(l), "")
	if err != nil || len(f.Stmts) != 1 {
		return false
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	return ok && len(call.Assigns) == 0 && len(call.Args) == 1
}

// yamlLines are the lines of the report's YAML steps and what its patches
// write: never wrapped.
func yamlLines(r *report.Report) map[string]bool {
	out := map[string]bool{}
	add := func(f *report.Fix) {
		if f == nil {
			return
		}
		for _, s := range f.AllSteps() {
			if s.Lang != report.LangShell {
				for _, l := range strings.Split(textutil.VisibleLines(s.Text), "\n") {
					out[strings.TrimSpace(l)] = true
				}
			}
			for _, l := range strings.Split(textutil.VisibleLines(s.Context), "\n") {
				out[strings.TrimSpace(l)] = true
			}
		}
	}
	if r.RootCause != nil {
		add(r.RootCause.Fix)
	}
	for _, s := range r.Stages {
		for _, f := range s.Findings {
			add(f.Fix)
		}
	}
	return out
}

// words are text's words in order, without the backslashes that continue
// a wrapped command.
func words(text string) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		if w != "\\" {
			out = append(out, w)
		}
	}
	return out
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("word %d is %q, want %q", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("%d words, want %d", len(got), len(want))
}
