package main

import (
	goio "io"

	"github.com/imgupd/imgupd/commands/command"
	configcheck "github.com/imgupd/imgupd/commands/config/check"
	"github.com/imgupd/imgupd/commands/explain"
	simulatecmd "github.com/imgupd/imgupd/commands/simulate"
	"github.com/imgupd/imgupd/internal/jsonindent"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/simulate"
)

// jsonExporter writes answers as JSON (writeJSON): a report, a summary and a
// "where" answer as their report types, a simulation as every tag's fate, a
// checked configuration whole, the scenario list as {"scenarios": [...]};
// each opens with "schemaVersion" (jsonSchemaVersion).
func jsonExporter() exporter {
	return exporter{name: "json", mode: shownJSON, answers: map[answerKind]export{
		answerReport:  exportAs("", func(io streams, v reportOutput) error { return writeAnswerJSON(io.Out, v.Report) }),
		answerSummary: exportAs("", func(io streams, v summaryOutput) error { return writeAnswerJSON(io.Out, v.Summary) }),
		answerWhere:   exportAs("", func(io streams, v whereOutput) error { return writeAnswerJSON(io.Out, v.Where) }),
		answerSimulation: exportAs("", func(io streams, v simulatecmd.Answer) error {
			return writeAnswerJSON(io.Out, simulate.NewJSON(v.Result))
		}),
		answerConfig:    exportAs("", func(io streams, v configcheck.Answer) error { return writeAnswerJSON(io.Out, v) }),
		answerScenarios: exportAs("", writeScenarioJSON),
		answerCatalogue: exportAs("", func(io streams, v explain.Answer) error {
			return writeAnswerJSON(io.Out, struct {
				Codes []report.Entry `json:"codes"`
			}{v.Entries})
		}),
		answerPlain: exportAs("", func(io streams, v command.TextWriter) error { return writeAnswerJSON(io.Out, v) }),
	}}
}

// jsonSchemaVersion is the version of every -o json answer's shape, its first
// field: it grows when a field changes meaning or goes away, never for a new
// field, so a script can refuse a shape it does not know.
const jsonSchemaVersion = 1

// writeAnswerJSON writes v, a JSON object, as writeJSON does, with
// "schemaVersion" as its first field.
func writeAnswerJSON(w goio.Writer, v any) error {
	return jsonindent.EncodeObject(w, v, "  ", "schemaVersion", jsonSchemaVersion)
}

// errNotObject: an answer written as JSON that is not an object (a bug: every
// answer type is a struct or a map).
var errNotObject = jsonindent.ErrNotObject
