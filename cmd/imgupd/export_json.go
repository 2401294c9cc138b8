package main

import "github.com/imgupd/imgupd/simulate"

// jsonExporter writes answers as JSON (writeJSON): a report, a summary and a
// "where" answer as their report types, a simulation as every tag's fate, a
// checked configuration whole, the scenario list as {"scenarios": [...]}.
func jsonExporter() exporter {
	return exporter{name: "json", mode: shownJSON, answers: map[answerKind]export{
		answerReport:     exportAs("", func(io streams, v reportOutput) error { return writeJSON(io.Out, v.report) }),
		answerSummary:    exportAs("", func(io streams, v summaryOutput) error { return writeJSON(io.Out, v.summary) }),
		answerWhere:      exportAs("", func(io streams, v whereOutput) error { return writeJSON(io.Out, v.where) }),
		answerSimulation: exportAs("", func(io streams, v simulateOutput) error { return writeJSON(io.Out, simulate.NewJSON(v.result)) }),
		answerConfig:     exportAs("", func(io streams, c *checkedConfig) error { return writeJSON(io.Out, c) }),
		answerScenarios:  exportAs("", writeScenarioJSON),
	}}
}
