package main

import (
	"fmt"

	"github.com/imgupd/imgupd/commands/command"
	configcheck "github.com/imgupd/imgupd/commands/config/check"
	"github.com/imgupd/imgupd/commands/explain"
	simulatecmd "github.com/imgupd/imgupd/commands/simulate"
	"github.com/imgupd/imgupd/internal/textutil"

	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/simulate"
)

// textExporter writes answers for a terminal.
func textExporter() exporter {
	return exporter{name: "text", mode: shownText, answers: map[answerKind]export{
		answerReport: exportAs("", func(io streams, v reportOutput) error {
			if v.Heading != "" {
				// A scenario file's words: shown, never acted on (colour included).
				fmt.Fprintf(io.Out, "%s\n\n", render.Wrap(textutil.VisibleLines(v.Heading), io.textWidth()))
			}
			render.Text(io.Out, v.Report, render.TextOptions{Verbose: v.Verbose, Width: io.textWidth(), Color: io.colored()})
			return nil
		}),
		answerSummary: exportAs("", func(io streams, v summaryOutput) error {
			v.Options.Width, v.Options.Color = io.textWidth(), io.colored()
			render.SummaryText(io.Out, v.Summary, v.Options)
			return nil
		}),
		answerWhere: exportAs("", func(io streams, v whereOutput) error {
			v.Options.Width, v.Options.Color = io.textWidth(), io.colored()
			render.WhereText(io.Out, v.Where, v.Options)
			return nil
		}),
		answerCatalogue: exportAs("", func(io streams, v explain.Answer) error {
			for _, e := range v.Entries {
				explain.WriteEntry(io.Out, e)
				if !v.One {
					fmt.Fprintln(io.Out)
				}
			}
			return nil
		}),
		answerSimulation: exportAs("", func(io streams, v simulatecmd.Answer) error {
			simulate.WriteText(io.Out, v.Result, simulate.TextOptions{All: v.All})
			return nil
		}),
		// What serve resolves, or the problems (on stderr).
		answerConfig: exportAs("", func(io streams, v configcheck.Answer) error {
			v.WriteText(io.Out, io.Err)
			return nil
		}),
		answerScenarios: exportAs("", writeScenarioTable),
		answerPlain: exportAs("", func(io streams, v command.TextWriter) error {
			v.WriteText(io.Out)
			return nil
		}),
	}}
}
