package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/commands/diagnose"
	"github.com/imgupd/imgupd/commands/summary"
	"github.com/imgupd/imgupd/commands/where"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
)

// Options are `imgupd demo`'s: what it runs (every built-in scenario, one scenario, the lab as a
// fleet summary, or where a tag runs on the lab fleet where-web) and how.
type Options struct {
	// Scenario is one scenario to run: a built-in name or a file.
	Scenario string
	// Summary shows every built-in scenario as one fleet.
	Summary bool
	// Where is an image to find on the lab fleet where-web.
	Where string
	// Expected adds the lab's own check to the scenario list.
	Expected bool
	// Verbose, in text, shows a report's passing checks and all evidence.
	Verbose bool
	// Parallel is how many scenarios run at once.
	Parallel int
}

// Term is how the terminal runs demo with run (Run, or a test's). Its -o takes a report's
// formats, which are a summary's and a "where" answer's too; the scenario list has fewer
// (Run refuses the others).
func Term(run func(context.Context, Options, command.IO) (command.Answer, error)) *command.Term {
	t := command.TermOf(command.AnswerReport, 0, 0, Flags, nil, run)
	t.OutputHelp = OutputHelp
	return t
}

// allFormats are a report's, a summary's and a "where" answer's formats, as the flags' help
// names them (cmd/imgupd's TestDemoFormatsAgree holds them to the exporters').
const allFormats = "text, json, markdown or blockkit"

// OutputHelp is demo's -o help, with %s for a report's formats: the scenario list's follow
// (cmd/imgupd's TestDemoFormatsAgree holds them to the exporters').
const OutputHelp = "output format: %s; without --scenario or --summary: text, json or markdown"

// Flags defines demo's flags (all but -o) into o.
func Flags(f *pflag.FlagSet, o *Options) {
	f.StringVar(&o.Scenario, "scenario", "", "run one scenario: a built-in name or a file")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "text: passing checks, all evidence and the candidate tables")
	f.IntVar(&o.Parallel, "parallel", 4, "scenarios run at once")
	f.StringVar(&o.Where, "where", "", "IMAGE[:TAG|@DIGEST]: where is my tag, on the lab fleet where-web (team/web), in -o "+allFormats)
	f.BoolVar(&o.Expected, "expected", false, "the lab's own check, in the scenario list: each scenario's root-cause code, the state and code it expects, whether it gave them, and its time")
	f.BoolVar(&o.Summary, "summary", false, "a fleet summary over every built-in scenario (each one an app lab/NAME), in -o "+allFormats)
}

// Run runs the lab io gives (io.Lab): 64 for flags that do not go together or a scenario that
// is neither built in nor a file, 2 for a scenario or fleet that cannot start. Its answer is the
// scenario list (List), one scenario's report or the lab as a fleet summary, whose exit status
// says whether each scenario gave the answer it expects (command.ExitAs), or a "where" answer
// (where.Answer, its own exit status).
func Run(ctx context.Context, o Options, io command.IO) (command.Answer, error) {
	if o.Where != "" {
		if o.Scenario != "" || o.Summary {
			return nil, command.Exit(64, errors.New("--where runs on the lab fleet where-web: drop --scenario and --summary"))
		}
		return runWhere(ctx, o, io)
	}
	if o.Scenario == "" && !o.Summary && !io.Prints(command.AnswerScenarios) {
		// Only blockkit is a report's format and not the list's.
		return nil, command.Exit(64, fmt.Errorf("--output %s prints one report's Slack payload: add --scenario NAME (or --summary)", io.Output))
	}
	if io.Lab == nil {
		return nil, command.Exit(2, errors.New("internal error: demo was given no lab"))
	}
	if o.Summary {
		if o.Scenario != "" {
			return nil, command.Exit(64, errors.New("--summary covers every built-in scenario: drop --scenario"))
		}
		return runSummary(ctx, o, io)
	}
	if o.Scenario != "" {
		return runOne(ctx, o, io)
	}
	all, err := io.Lab.Scenarios()
	if err != nil {
		return nil, command.Exit(2, err)
	}
	prog := io.StartProgress("")
	results := RunScenarios(ctx, all, max(1, o.Parallel), prog.Update)
	prog.Stop()
	return List{Results: results, Expected: o.Expected}, nil
}

// runOne diagnoses one scenario, built in or a file; the report's exit status is whether it
// gave the answer it expects (1 with what it named instead), not its state's.
func runOne(ctx context.Context, o Options, io command.IO) (command.Answer, error) {
	sc, ok := io.Lab.Scenario(o.Scenario)
	if !ok {
		if _, err := os.Stat(o.Scenario); err != nil {
			var names []string
			all, _ := io.Lab.Scenarios()
			for _, s := range all {
				names = append(names, s.Info().Name)
			}
			msg := fmt.Sprintf("no built-in scenario or file %q", o.Scenario)
			if near := textutil.NearestOne(o.Scenario, names, func(_ string, d int) bool { return d <= len(o.Scenario)/2+2 }); near != "" {
				msg += "; did you mean " + near + "?"
			}
			return nil, command.Exit(64, errors.New(msg+" (imgupd demo lists them)"))
		}
		var err error
		if sc, err = io.Lab.LoadScenario(o.Scenario); err != nil {
			return nil, command.Exit(2, err)
		}
	}
	rep, err := sc.Run(ctx)
	if err != nil {
		return nil, command.Exit(2, err)
	}
	info := sc.Info()
	a := command.ExitAs{Answer: diagnose.Answer{Report: rep, Heading: fmt.Sprintf("Scenario %s: %s", info.Name, strings.TrimSpace(info.Description)), Verbose: o.Verbose}}
	if named, passed := sc.Check(rep); !passed {
		msg := fmt.Sprintf("scenario %s expects %s, the diagnosis names %s", info.Name, info.Expect, named)
		if info.ExpectState != "" && string(rep.State) != info.ExpectState {
			msg += fmt.Sprintf(" (state %s, expected %s)", rep.State, info.ExpectState)
		}
		a.Err = command.Exit(1, errors.New(msg))
	}
	return a, nil
}

// runSummary diagnoses every built-in scenario (each its own environment) and shows them as one
// fleet: an app lab/NAME per scenario, summarized and rendered as `imgupd summary` renders a
// cluster's. The exit status is the demo's: whether each scenario gave its expected answer.
func runSummary(ctx context.Context, o Options, io command.IO) (command.Answer, error) {
	all, err := io.Lab.Scenarios()
	if err != nil {
		return nil, command.Exit(2, err)
	}
	start := time.Now()
	prog := io.StartProgress("")
	results := RunScenarios(ctx, all, max(1, o.Parallel), prog.Update)
	prog.Stop()
	res := &fleet.Result{Cluster: "lab", StartedAt: start, Duration: time.Since(start)}
	for _, r := range results {
		a := report.AppResult{App: report.AppRef{Namespace: "lab", Name: r.Scenario.Name}, Project: "default"}
		if r.Err != nil {
			a.State, a.Title = report.StateUnknown, "the scenario could not run: "+oneLine(r.Err.Error())
			a.Headline = "lab/" + r.Scenario.Name + ": " + a.Title
		} else {
			rep := *r.Report
			rep.App = a.App // one fleet: the scenario names the app
			// The answer and the headline name the app they were made for.
			rep.Answer = strings.Replace(rep.Answer, r.Report.App.String(), a.App.String(), 1)
			rep.Headline = strings.Replace(rep.Headline, r.Report.App.String(), a.App.String(), 1)
			a = fleet.ResultOf(&rep, "default")
		}
		res.Apps = append(res.Apps, a)
	}
	sort.Slice(res.Apps, func(i, j int) bool { return res.Apps[i].App.Name < res.Apps[j].App.Name })
	next := func(a report.AppRef) string {
		if a.Name == "APP" {
			return io.Name + " demo --scenario NAME"
		}
		return io.Name + " demo --scenario " + a.Name
	}
	sum := summary.Answer{Summary: fleet.Summarize(res, nil), Options: render.SummaryOptions{Command: io.Name, Next: next}}
	return command.ExitAs{Answer: sum, Err: List{Results: results}.Exit()}, nil
}

// runWhere answers o.Where on the lab fleet where-web; an image without a registry host is the
// lab registry's.
func runWhere(ctx context.Context, o Options, io command.IO) (command.Answer, error) {
	if io.Lab == nil {
		return nil, command.Exit(2, errors.New("internal error: demo was given no lab"))
	}
	f, err := io.Lab.StartFleet(ctx, "where-web")
	if err != nil {
		return nil, command.Exit(2, err)
	}
	defer f.Close()
	image := o.Where
	if first, _, ok := strings.Cut(image, "/"); !ok || !strings.ContainsAny(first, ".:") && first != "localhost" {
		image = f.Registry + "/" + image
	}
	q, err := fleet.ParseImageQuery(image)
	if err != nil {
		return nil, command.Exit(2, err)
	}
	w, err := (&fleet.Scanner{Engine: f.Engine}).Where(ctx, fleet.Query{}, q)
	if err != nil {
		return nil, command.Exit(2, err)
	}
	return where.Answer{Where: w, Options: render.SummaryOptions{Command: io.Name}}, nil
}

// oneLine is an error message on one line with nothing hidden: errors carry text a registry,
// git or the API server wrote.
func oneLine(s string) string { return textutil.Visible(textutil.OneLine(s)) }
