package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/present/phrase"
	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
)

type demoOptions struct {
	scenario string
	output   string
	verbose  bool
	parallel int
	summary  bool
	where    string
	expected bool
	command  string // how the binary was started, for the next step
}

func newDemoCmd(io streams) *cobra.Command {
	o := &demoOptions{}
	cmd := fromTable("demo", &cobra.Command{
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.command = cmd.Root().DisplayName()
			return runDemo(cmd.Context(), o, io)
		},
	})
	f := cmd.Flags()
	f.StringVar(&o.scenario, "scenario", "", "run one scenario: a built-in name or a file")
	formatsOf(answerReport).flag(cmd, &o.output, "output format: %s; without --scenario or --summary: "+formatsOf(answerScenarios).list(false))
	f.BoolVarP(&o.verbose, "verbose", "v", false, "text: passing checks, all evidence and the candidate tables")
	f.IntVar(&o.parallel, "parallel", 4, "scenarios run at once")
	f.StringVar(&o.where, "where", "", "IMAGE[:TAG|@DIGEST]: where is my tag, on the lab fleet where-web (team/web), in -o "+formatsOf(answerWhere).list(false))
	f.BoolVar(&o.expected, "expected", false, "the lab's own check, in the scenario list: each scenario's root-cause code, the state and code it expects, whether it gave them, and its time")
	f.BoolVar(&o.summary, "summary", false, "a fleet summary over every built-in scenario (each one an app lab/NAME), in -o "+formatsOf(answerSummary).list(false))
	return cmd
}

func runDemo(ctx context.Context, o *demoOptions, io streams) error {
	// The flag's formats are a report's (--scenario), which are a
	// summary's (--summary) too; the scenario list has fewer.
	if o.where != "" {
		if o.scenario != "" || o.summary {
			return usageError(errors.New("--where runs on the lab fleet where-web: drop --scenario and --summary"))
		}
		return demoWhere(ctx, o, io)
	}
	if err := formatsOf(answerReport).check(o.output); err != nil {
		return usageError(err)
	}
	list := formatsOf(answerScenarios)
	if err := list.check(o.output); err != nil && o.scenario == "" && !o.summary {
		// Only blockkit is a report's format and not the list's.
		return usageError(fmt.Errorf("--output %s prints one report's Slack payload: add --scenario NAME (or --summary)", o.output))
	}
	if o.summary {
		if o.scenario != "" {
			return usageError(errors.New("--summary covers every built-in scenario: drop --scenario"))
		}
		return demoSummary(ctx, o, io)
	}
	if o.scenario != "" {
		return demoOne(ctx, o, io)
	}
	all, err := lab.Builtins()
	if err != nil {
		return &exitError{code: exitNoDecide, err: err}
	}
	prog := progressOf("demo", io.Err, o.output, "")
	results := runScenarios(ctx, all, max(1, o.parallel), prog.update)
	prog.stop()
	failed, broken := 0, 0
	for _, r := range results {
		if r.err != nil {
			broken++
		} else if !r.passed {
			failed++
		}
	}
	if err := list.write(io, o.output, scenarioList{results: results, expected: o.expected}); err != nil {
		return &exitError{code: exitNoDecide, err: err}
	}
	switch {
	case broken > 0:
		return &exitError{code: exitNoDecide, err: fmt.Errorf("%d scenario(s) could not run", broken)}
	case failed > 0:
		return &exitError{code: exitFinding, err: fmt.Errorf("%d scenario(s) did not give their expected verdict", failed)}
	}
	return nil
}

// scenarioList is the scenario list (demo without --scenario or
// --summary): a table (text and markdown alike) or JSON. expected adds the
// lab's own check to the table (--expected); JSON always has it.
type scenarioList struct {
	results  []scenarioResult
	expected bool
}

func (scenarioList) AnswerKind() answerKind { return answerScenarios }

// writeScenarioJSON prints {"scenarios": [...]}, a row per scenario.
func writeScenarioJSON(io streams, results scenarioList) error {
	type row struct {
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
	rows := []row{}
	for _, r := range results.results {
		x := row{Name: r.sc.Name, Expected: r.sc.Expect, ExpectedState: r.sc.ExpectState, Passed: r.passed, DurationMs: r.took.Milliseconds()}
		if r.err != nil {
			x.Error = r.err.Error()
		} else {
			x.Primary, x.State, x.Verdict = lab.Primary(r.rep), string(r.rep.State), string(r.rep.Verdict)
			if rc := r.rep.RootCause; rc != nil {
				c := string(rc.Code)
				x.RootCause = &c
			}
		}
		rows = append(rows, x)
	}
	return writeAnswerJSON(io.Out, map[string]any{"scenarios": rows})
}

// writeScenarioTable prints a line per scenario, then the tally: for a newcomer, what each
// setup's answer is (scenarioTable), or with --expected the lab's own check (expectedTable).
func writeScenarioTable(io streams, list scenarioList) error {
	failed := 0
	for _, r := range list.results {
		if r.err != nil || !r.passed {
			failed++
		}
	}
	if list.expected {
		expectedTable(io, list.results)
		fmt.Fprintf(io.Out, "\n%d passed, %d failed\n", len(list.results)-failed, failed)
	} else {
		width := demoWidth
		if io.term != nil && io.term.width > 0 {
			width = io.term.width
		}
		scenarioTable(io, list.results, width)
		fmt.Fprintf(io.Out, "\n%d scenarios, each a setup of its own with its registry and git server.\n", len(list.results))
		if failed == 0 {
			fmt.Fprintln(io.Out, "Each gave the answer it expects (--expected shows the check).")
		} else {
			fmt.Fprintf(io.Out, "%d did not give the answer they expect: --expected shows which.\n", failed)
		}
	}
	fmt.Fprintln(io.Out, "imgupd demo --scenario NAME shows a full report and its fix.")
	return nil
}

// demoWidth is the scenario table's width off a terminal (COLUMNS unset): a 100-column terminal's.
const demoWidth = 100

// scenarioTable is a row per scenario in width columns: its name, its state (mark and words) and
// the cause in words, wrapped at its spaces under itself. A name too long for its column has a
// line of its own, the state and cause on the next, so that every name can be copied whole for
// --scenario.
func scenarioTable(io streams, results []scenarioResult, width int) {
	const nameW, gap = 34, 2
	stateW := len("STATE")
	states := make([]string, len(results))
	for i, r := range results {
		states[i] = "error"
		if r.err == nil {
			states[i] = phrase.Mark(r.rep.State) + " " + phrase.Title(r.rep.State)
		}
		stateW = max(stateW, utf8.RuneCountInString(states[i]))
	}
	causeW := max(width-nameW-stateW-2*gap, 20)
	row := func(name, state, cause string) {
		lines := render.WrapCell(cause, causeW)
		fmt.Fprintf(io.Out, "%s%s%s\n", render.Pad(name, nameW+gap), render.Pad(state, stateW+gap), lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(io.Out, "%s%s\n", strings.Repeat(" ", nameW+gap+stateW+gap), l)
		}
	}
	row("SCENARIO", "STATE", "CAUSE")
	for i, r := range results {
		name := r.sc.Name
		if utf8.RuneCountInString(name) > nameW {
			fmt.Fprintln(io.Out, name)
			name = ""
		}
		cause := ""
		switch {
		case r.err != nil:
			cause = oneLine(r.err.Error())
		case !r.passed:
			cause = "✗ not the answer it expects: " + scenarioCause(r.rep)
		default:
			cause = scenarioCause(r.rep)
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
func expectedTable(io streams, results []scenarioResult) {
	tw := tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tSTATE\tROOT CAUSE / FIRST WARNING\tEXPECTED\tTIME")
	for _, r := range results {
		if r.err != nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.sc.Name, "error", oneLine(r.err.Error()), r.sc.Expect, r.took.Round(time.Millisecond))
			continue
		}
		mark := "✔"
		if !r.passed {
			mark = "✗ MISSED"
		}
		want := r.sc.Expect
		if r.sc.ExpectState != "" {
			want = r.sc.ExpectState + " " + want
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s %s\t%s\n", r.sc.Name, r.rep.State, lab.Primary(r.rep), mark, want, r.took.Round(time.Millisecond))
	}
	tw.Flush()
}

type scenarioResult struct {
	sc     *lab.Scenario
	rep    *report.Report
	err    error
	passed bool
	took   time.Duration
}

// runScenarios diagnoses scenarios, at most parallel at a time, keeping order; done, when set,
// hears how many have finished.
func runScenarios(ctx context.Context, all []*lab.Scenario, parallel int, done func(done, total int)) []scenarioResult {
	out := make([]scenarioResult, len(all))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	var mu sync.Mutex
	finished := 0
	for i, sc := range all {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			start := time.Now()
			rep, err := lab.Run(ctx, sc)
			out[i] = scenarioResult{sc: sc, rep: rep, err: err, took: time.Since(start)}
			if err == nil {
				out[i].passed = sc.Matches(rep)
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

func demoOne(ctx context.Context, o *demoOptions, io streams) error {
	sc, ok := lab.Builtin(o.scenario)
	if !ok {
		if _, err := os.Stat(o.scenario); err != nil {
			var names []string
			all, _ := lab.Builtins()
			for _, s := range all {
				names = append(names, s.Name)
			}
			msg := fmt.Sprintf("no built-in scenario or file %q", o.scenario)
			if near := nearest(o.scenario, names); near != "" {
				msg += "; did you mean " + near + "?"
			}
			return usageError(errors.New(msg + " (imgupd demo lists them)"))
		}
		var err error
		if sc, err = lab.LoadFile(o.scenario); err != nil {
			return &exitError{code: exitNoDecide, err: err}
		}
	}
	rep, err := lab.Run(ctx, sc)
	if err != nil {
		return &exitError{code: exitNoDecide, err: err}
	}
	heading := fmt.Sprintf("Scenario %s: %s", sc.Name, strings.TrimSpace(sc.Description))
	if err := formatsOf(answerReport).write(io, o.output, reportOutput{Report: rep, Heading: heading, Verbose: o.verbose}); err != nil {
		return &exitError{code: exitNoDecide, err: err}
	}
	if !sc.Matches(rep) {
		msg := fmt.Sprintf("scenario %s expects %s, the diagnosis names %s", sc.Name, sc.Expect, lab.Primary(rep))
		if sc.ExpectState != "" && string(rep.State) != sc.ExpectState {
			msg += fmt.Sprintf(" (state %s, expected %s)", rep.State, sc.ExpectState)
		}
		return &exitError{code: exitFinding, err: errors.New(msg)}
	}
	return nil
}

// demoSummary diagnoses every built-in scenario (each its own environment)
// and shows them as one fleet: an app lab/NAME per scenario, summarized and
// rendered as `imgupd summary` renders a cluster's. The exit status is the
// demo's: whether each scenario gave its expected answer.
func demoSummary(ctx context.Context, o *demoOptions, io streams) error {
	all, err := lab.Builtins()
	if err != nil {
		return &exitError{code: exitNoDecide, err: err}
	}
	start := time.Now()
	prog := progressOf("demo", io.Err, o.output, "")
	results := runScenarios(ctx, all, max(1, o.parallel), prog.update)
	prog.stop()
	res := &fleet.Result{Cluster: "lab", StartedAt: start, Duration: time.Since(start)}
	failed, broken := 0, 0
	for _, r := range results {
		a := report.AppResult{App: report.AppRef{Namespace: "lab", Name: r.sc.Name}, Project: "default"}
		switch {
		case r.err != nil:
			broken++
			a.State, a.Title = report.StateUnknown, "the scenario could not run: "+oneLine(r.err.Error())
			a.Headline = "lab/" + r.sc.Name + ": " + a.Title
		default:
			if !r.passed {
				failed++
			}
			rep := *r.rep
			rep.App = a.App // one fleet: the scenario names the app
			// The answer and the headline name the app they were made for.
			rep.Answer = strings.Replace(rep.Answer, r.rep.App.String(), a.App.String(), 1)
			rep.Headline = strings.Replace(rep.Headline, r.rep.App.String(), a.App.String(), 1)
			a = fleet.ResultOf(&rep, "default")
		}
		res.Apps = append(res.Apps, a)
	}
	sort.Slice(res.Apps, func(i, j int) bool { return res.Apps[i].App.Name < res.Apps[j].App.Name })
	next := func(a report.AppRef) string {
		if a.Name == "APP" {
			return o.command + " demo --scenario NAME"
		}
		return o.command + " demo --scenario " + a.Name
	}
	v := summaryOutput{Summary: fleet.Summarize(res, nil), Options: render.SummaryOptions{Command: o.command, Next: next}}
	if err := formatsOf(answerSummary).write(io, o.output, v); err != nil {
		return &exitError{code: exitNoDecide, err: err}
	}
	switch {
	case broken > 0:
		return &exitError{code: exitNoDecide, err: fmt.Errorf("%d scenario(s) could not run", broken)}
	case failed > 0:
		return &exitError{code: exitFinding, err: fmt.Errorf("%d scenario(s) did not give their expected verdict", failed)}
	}
	return nil
}
