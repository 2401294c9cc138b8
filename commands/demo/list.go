package demo

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/present/phrase"
	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
)

// Result is one scenario run: its report (nil when it could not run: Err), the code the report
// names for the lab's check, whether that is the answer it expects, and its time.
type Result struct {
	Scenario command.ScenarioInfo
	Report   *report.Report
	Named    string
	Passed   bool
	Err      error
	Took     time.Duration
}

// RunScenarios diagnoses scenarios, at most parallel at a time, keeping their order; done, when
// set, hears how many have finished.
func RunScenarios(ctx context.Context, all []command.Scenario, parallel int, done func(done, total int)) []Result {
	out := make([]Result, len(all))
	sem := make(chan struct{}, max(1, parallel))
	var wg sync.WaitGroup
	var mu sync.Mutex
	finished := 0
	for i, sc := range all {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			start := time.Now()
			rep, err := sc.Run(ctx)
			out[i] = Result{Scenario: sc.Info(), Report: rep, Err: err, Took: time.Since(start)}
			if err == nil {
				out[i].Named, out[i].Passed = sc.Check(rep)
			}
			if done != nil {
				mu.Lock()
				finished++
				done(finished, len(all))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}

// List is the scenario list (demo without --scenario, --summary or --where): a table (text and
// Markdown alike, WriteTable) or JSON (Rows). Expected adds the lab's own check to the table;
// JSON always has it.
type List struct {
	Results  []Result
	Expected bool
}

func (List) AnswerKind() command.AnswerKind { return command.AnswerScenarios }

// Exit is 2 when a scenario could not run, else 1 when one did not give the answer it expects.
func (l List) Exit() error {
	failed, broken := 0, 0
	for _, r := range l.Results {
		if r.Err != nil {
			broken++
		} else if !r.Passed {
			failed++
		}
	}
	switch {
	case broken > 0:
		return command.Exit(2, fmt.Errorf("%d scenario(s) could not run", broken))
	case failed > 0:
		return command.Exit(1, fmt.Errorf("%d scenario(s) did not give their expected verdict", failed))
	}
	return nil
}

// Row is one scenario in the list's JSON ({"scenarios": [...]}).
type Row struct {
	Name          string  `json:"name"`
	Expected      string  `json:"expected"`
	ExpectedState string  `json:"expectedState,omitempty"`
	RootCause     *string `json:"rootCause"`
	Primary       string  `json:"primary"`
	State         string  `json:"state,omitempty"`
	Verdict       string  `json:"verdict,omitempty"`
	Passed        bool    `json:"passed"`
	DurationMs    int64   `json:"durationMs"`
	Error         string  `json:"error,omitempty"`
}

// Rows are the list's JSON rows, a row per scenario (never nil).
func (l List) Rows() []Row {
	rows := []Row{}
	for _, r := range l.Results {
		x := Row{Name: r.Scenario.Name, Expected: r.Scenario.Expect, ExpectedState: r.Scenario.ExpectState, Passed: r.Passed, DurationMs: r.Took.Milliseconds()}
		if r.Err != nil {
			x.Error = r.Err.Error()
		} else {
			x.Primary, x.State, x.Verdict = r.Named, string(r.Report.State), string(r.Report.Verdict)
			if rc := r.Report.RootCause; rc != nil {
				c := string(rc.Code)
				x.RootCause = &c
			}
		}
		rows = append(rows, x)
	}
	return rows
}

// Width is the scenario table's width off a terminal (COLUMNS unset): a 100-column terminal's.
const Width = 100

// WriteTable prints a line per scenario in width columns (0: Width), then the tally: for a
// newcomer, what each setup's answer is, or with Expected the lab's own check.
func (l List) WriteTable(w io.Writer, width int) {
	failed := 0
	for _, r := range l.Results {
		if r.Err != nil || !r.Passed {
			failed++
		}
	}
	if l.Expected {
		expectedTable(w, l.Results)
		fmt.Fprintf(w, "\n%d passed, %d failed\n", len(l.Results)-failed, failed)
	} else {
		if width <= 0 {
			width = Width
		}
		scenarioTable(w, l.Results, width)
		fmt.Fprintf(w, "\n%d scenarios, each a setup of its own with its registry and git server.\n", len(l.Results))
		if failed == 0 {
			fmt.Fprintln(w, "Each gave the answer it expects (--expected shows the check).")
		} else {
			fmt.Fprintf(w, "%d did not give the answer they expect: --expected shows which.\n", failed)
		}
	}
	fmt.Fprintln(w, "imgupd demo --scenario NAME shows a full report and its fix.")
}

// scenarioTable is a row per scenario in width columns: its name, its state (mark and words) and
// the cause in words, wrapped at its spaces under itself. A name too long for its column has a
// line of its own, the state and cause on the next, so that every name can be copied whole for
// --scenario.
func scenarioTable(w io.Writer, results []Result, width int) {
	const nameW, gap = 34, 2
	stateW := len("STATE")
	states := make([]string, len(results))
	for i, r := range results {
		states[i] = "error"
		if r.Err == nil {
			states[i] = phrase.Mark(r.Report.State) + " " + phrase.Title(r.Report.State)
		}
		stateW = max(stateW, utf8.RuneCountInString(states[i]))
	}
	causeW := max(width-nameW-stateW-2*gap, 20)
	row := func(name, state, cause string) {
		lines := render.WrapCell(cause, causeW)
		fmt.Fprintf(w, "%s%s%s\n", render.Pad(name, nameW+gap), render.Pad(state, stateW+gap), lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "%s%s\n", strings.Repeat(" ", nameW+gap+stateW+gap), l)
		}
	}
	row("SCENARIO", "STATE", "CAUSE")
	for i, r := range results {
		name := r.Scenario.Name
		if utf8.RuneCountInString(name) > nameW {
			fmt.Fprintln(w, name)
			name = ""
		}
		cause := ""
		switch {
		case r.Err != nil:
			cause = oneLine(r.Err.Error())
		case !r.Passed:
			cause = "✗ not the answer it expects: " + scenarioCause(r.Report)
		default:
			cause = scenarioCause(r.Report)
		}
		row(name, states[i], cause)
	}
}

// scenarioCause is a report's cause in words, as a summary line gives it: its answer without
// the app and state, else its root cause's title.
func scenarioCause(rep *report.Report) string {
	if c := phrase.AnswerCause(rep.Answer, rep.State); c != "" {
		return textutil.Visible(c)
	}
	if rep.RootCause != nil {
		return textutil.Visible(textutil.OneLine(rep.RootCause.Title))
	}
	return ""
}

// expectedTable is the lab's own check: every scenario's state, root-cause code (or first
// warning), the state and code it expects with ✔ or ✗ MISSED, and its time.
func expectedTable(w io.Writer, results []Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tSTATE\tROOT CAUSE / FIRST WARNING\tEXPECTED\tTIME")
	for _, r := range results {
		if r.Err != nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Scenario.Name, "error", oneLine(r.Err.Error()), r.Scenario.Expect, r.Took.Round(time.Millisecond))
			continue
		}
		mark := "✔"
		if !r.Passed {
			mark = "✗ MISSED"
		}
		want := r.Scenario.Expect
		if r.Scenario.ExpectState != "" {
			want = r.Scenario.ExpectState + " " + want
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s %s\t%s\n", r.Scenario.Name, r.Report.State, r.Named, mark, want, r.Took.Round(time.Millisecond))
	}
	tw.Flush()
}
