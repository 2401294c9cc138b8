package command

import (
	"context"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/report"
)

// Lab is the embedded lab a terminal command runs on (demo): its built-in scenarios, a scenario
// file, its fleets. The binary provides it (cmd/imgupd, over the lab package), so that the lab
// stays the binary's (internal/depcheck: lab/only-cmd) and a command's folder imports none of it.
type Lab interface {
	// Scenarios are the built-in scenarios, in the lab's order.
	Scenarios() ([]Scenario, error)
	// Scenario is the built-in scenario named name; false when there is none.
	Scenario(name string) (Scenario, bool)
	// LoadScenario reads the scenario file at path (its error says which part does not parse).
	LoadScenario(path string) (Scenario, error)
	// StartFleet starts the lab fleet named name ("where-web"), its servers running until its
	// Close.
	StartFleet(ctx context.Context, name string) (LabFleet, error)
}

// Scenario is one of the lab's scenarios: a setup of its own and the answer it expects.
type Scenario interface {
	// Info is its name, its description and the answer it expects.
	Info() ScenarioInfo
	// Run diagnoses it in an environment of its own, stopped before Run returns.
	Run(ctx context.Context) (*report.Report, error)
	// Check is the lab's check of one of its reports: the code the report names (its root
	// cause's, else its first warning's, "unknown" or "healthy") and whether that code and the
	// state are the ones it expects.
	Check(rep *report.Report) (named string, passed bool)
}

// ScenarioInfo is what a scenario says of itself.
type ScenarioInfo struct {
	Name, Description string
	// Expect is the code its diagnosis must name ("healthy" when nothing may fail or warn),
	// ExpectState the state it must answer with ("" for any).
	Expect, ExpectState string
}

// LabFleet is a lab fleet started (Lab.StartFleet): the engine over it and its registry's
// host, an image without a host of its own being that registry's.
type LabFleet struct {
	Engine   *diagnostics.Engine
	Registry string
	// Close stops its servers.
	Close func()
}

// ExitAs is Answer printed as it is (its kind, its exporters) with Err as the exit status that
// follows it (nil: 0), in place of Answer's own (Exiter): demo prints a scenario's report or the
// lab as a fleet summary, and its exit status says whether each scenario gave the answer it
// expects, not the worst state.
type ExitAs struct {
	Answer Answer
	Err    error
}

func (a ExitAs) AnswerKind() AnswerKind { return a.Answer.AnswerKind() }

// Exit is Err.
func (a ExitAs) Exit() error { return a.Err }
