package main

import (
	"context"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/commands/demo"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// scenarioList is demo's scenario list (commands/demo), which the text, Markdown and JSON
// exporters print.
type scenarioList = demo.List

// writeScenarioJSON prints {"scenarios": [...]}, a row per scenario.
func writeScenarioJSON(io streams, l scenarioList) error {
	return writeAnswerJSON(io.Out, map[string]any{"scenarios": l.Rows()})
}

// writeScenarioTable prints the scenario table (text and Markdown alike) in the terminal's
// width, else in demo.Width.
func writeScenarioTable(io streams, l scenarioList) error {
	l.WriteTable(io.Out, io.textWidth())
	return nil
}

// embeddedLab is the lab demo runs on (command.Lab): the lab package, which only this binary
// imports (internal/depcheck: lab/only-cmd).
type embeddedLab struct{}

func (embeddedLab) Scenarios() ([]command.Scenario, error) {
	all, err := lab.Builtins()
	if err != nil {
		return nil, err
	}
	out := make([]command.Scenario, len(all))
	for i, sc := range all {
		out[i] = labScenario{sc}
	}
	return out, nil
}

func (embeddedLab) Scenario(name string) (command.Scenario, bool) {
	sc, ok := lab.Builtin(name)
	if !ok {
		return nil, false
	}
	return labScenario{sc}, true
}

func (embeddedLab) LoadScenario(path string) (command.Scenario, error) {
	sc, err := lab.LoadFile(path)
	if err != nil {
		return nil, err
	}
	return labScenario{sc}, nil
}

func (embeddedLab) StartFleet(ctx context.Context, name string) (command.LabFleet, error) {
	sc, err := lab.Fleet(name)
	if err != nil {
		return command.LabFleet{}, err
	}
	env, err := lab.Start(ctx, sc)
	if err != nil {
		return command.LabFleet{}, err
	}
	return command.LabFleet{Engine: env.Engine(), Registry: env.Vars["REGISTRY"], Close: env.Close}, nil
}

// labScenario is a lab scenario as demo runs it (command.Scenario).
type labScenario struct{ sc *lab.Scenario }

func (s labScenario) Info() command.ScenarioInfo {
	return command.ScenarioInfo{Name: s.sc.Name, Description: s.sc.Description, Expect: s.sc.Expect, ExpectState: s.sc.ExpectState}
}

func (s labScenario) Run(ctx context.Context) (*report.Report, error) { return lab.Run(ctx, s.sc) }

func (s labScenario) Check(rep *report.Report) (string, bool) {
	return lab.Primary(rep), s.sc.Matches(rep)
}

// withLab makes demo run on l (a test's, which runs each scenario once for all its tests).
func withLab(l command.Lab) rootOption {
	return func(o *rootOptions) { o.lab = l }
}
