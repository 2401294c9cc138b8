package main

import "github.com/imgupd/imgupd/present/blockkit"

// blockkitExporter writes the Slack payload the bot posts for an answer,
// as JSON.
func blockkitExporter() exporter {
	const note = "the Slack payload"
	return exporter{name: "blockkit", mode: shownJSON, answers: map[answerKind]export{
		answerReport: exportAs(note, func(io streams, v reportOutput) error {
			return writeJSON(io.Out, blockkit.Report(v.Report, blockkit.Options{Buttons: true}))
		}),
		answerSummary: exportAs(note, func(io streams, v summaryOutput) error {
			return writeJSON(io.Out, blockkit.Summary(v.Summary, blockkit.SummaryOptions{Buttons: true}))
		}),
		answerWhere: exportAs(note, func(io streams, v whereOutput) error {
			return writeJSON(io.Out, blockkit.Where(v.Where))
		}),
	}}
}
