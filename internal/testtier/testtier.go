// Package testtier lets a test say which tier of `make test` runs it.
//
// The race tier (`make race`) runs the packages with concurrency under the race detector, and
// the unit tier leaves those packages out (the same tests, run once). A test that checks what a
// reader sees over every scenario (the payloads, the hostile texts) runs the same engine and
// renderers that the lab's TestBuiltinScenarios already runs under the race detector, scenario by
// scenario; under -race it costs minutes and finds no race the lab's run would not. Such a test
// calls ContentOnly: under -race it is skipped, and `make unit` runs it without -race
// (the Makefile's RACE_CONTENT names it; internal/testtier's test keeps the two in step).
package testtier

import "testing"

// Race reports whether the test binary was built with -race.
const Race = race

// ContentOnly skips t under the race detector: t checks content that the unit tier checks
// without -race (the Makefile's RACE_CONTENT), not concurrency.
func ContentOnly(t testing.TB) {
	t.Helper()
	if Race {
		t.Skip("a content check over every scenario: the unit tier runs it without -race (make unit, RACE_CONTENT); under -race the lab's TestBuiltinScenarios runs every scenario's engine")
	}
}
