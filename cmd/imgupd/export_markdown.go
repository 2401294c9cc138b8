package main

import (
	"github.com/imgupd/imgupd/commands/explain"
	"github.com/imgupd/imgupd/present/render"
)

// markdownExporter writes answers as Markdown, for issues, pull requests
// and docs (the catalogue is docs/findings.md).
func markdownExporter() exporter {
	return exporter{name: "markdown", mode: shownMarkdown, answers: map[answerKind]export{
		answerReport: exportAs("", func(io streams, v reportOutput) error {
			render.Markdown(io.Out, v.Report)
			return nil
		}),
		answerSummary: exportAs("", func(io streams, v summaryOutput) error {
			render.SummaryMarkdownWith(io.Out, v.Summary, v.Options)
			return nil
		}),
		answerWhere: exportAs("", func(io streams, v whereOutput) error {
			render.WhereMarkdown(io.Out, v.Where, v.Options)
			return nil
		}),
		answerCatalogue: exportAs("docs/findings.md", func(io streams, v explain.Answer) error {
			if v.One {
				explain.WriteEntry(io.Out, v.Entries[0]) // one entry reads as in text
				return nil
			}
			explain.WriteMarkdown(io.Out, v.Entries)
			return nil
		}),
		// The scenario table reads as well in Markdown as in a terminal.
		answerScenarios: exportAs("", writeScenarioTable),
	}}
}
