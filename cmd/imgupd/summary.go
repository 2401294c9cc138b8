package main

import (
	"fmt"

	summarycmd "github.com/imgupd/imgupd/commands/summary"
	"github.com/imgupd/imgupd/report"
)

// summaryOutput is a summary to print and how the text forms name the next step: summary's
// answer (commands/summary), and demo --summary's.
type summaryOutput = summarycmd.Answer

// stateExit is the exit status of a state (State.ExitCode); the output is
// already printed, so no message is added.
func stateExit(s report.State) error {
	if code := s.ExitCode(); code != 0 {
		return &exitError{code: code, err: fmt.Errorf("")}
	}
	return nil
}
