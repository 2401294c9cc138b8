package main

import (
	"errors"
	"fmt"

	summarycmd "github.com/imgupd/imgupd/commands/summary"
	"github.com/imgupd/imgupd/report"
)

// summaryOutput is a summary to print and how the text forms name the next step: summary's
// answer (commands/summary), and demo --summary's.
type summaryOutput = summarycmd.Answer

// failWith wraps an error in code, unless it carries its own exit status already.
func failWith(code int) func(error) error {
	return func(err error) error {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return &exitError{code: code, err: err}
	}
}

// stateExit is the exit status of a state (State.ExitCode); the output is
// already printed, so no message is added.
func stateExit(s report.State) error {
	if code := s.ExitCode(); code != 0 {
		return &exitError{code: code, err: fmt.Errorf("")}
	}
	return nil
}
