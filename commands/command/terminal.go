package command

import (
	"io"
	"strings"
)

// IO is a terminal command's I/O: what Run may read (In: --updater-log -) and where it may say
// how far it is (Err: the progress line). What it answers is its return value, which one
// registry of exporters (cmd/imgupd) prints in the format asked for.
type IO struct {
	In  io.Reader
	Err io.Writer
}

// An Answer is what a terminal command prints: one typed value (a report, a fleet summary, a
// "where" answer, the catalogue, a simulation, a checked configuration, the demo's scenario
// list, the version), whatever the format.
type Answer interface{ AnswerKind() AnswerKind }

// AnswerKind names a kind of answer; each command declares the kinds it produces, and the
// exporters say which kinds they write.
type AnswerKind string

const (
	AnswerReport     AnswerKind = "report"     // diagnose, demo --scenario
	AnswerSummary    AnswerKind = "summary"    // summary, demo --summary
	AnswerWhere      AnswerKind = "where"      // where, demo --where
	AnswerCatalogue  AnswerKind = "catalogue"  // explain
	AnswerSimulation AnswerKind = "simulation" // simulate
	AnswerConfig     AnswerKind = "config"     // config check
	AnswerScenarios  AnswerKind = "scenarios"  // demo
	AnswerVersion    AnswerKind = "version"    // version
)

// OrList is "A", "A or B", "A, B or C".
func OrList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
