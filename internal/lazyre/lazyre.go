// Package lazyre compiles a regular expression on first use rather than at
// program start: a command that never reaches a pattern does not pay for it
// (imgupd's start-up cost, bench/simulate-process.sh).
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called
// and returns the same *regexp.Regexp on every call. A bad expr panics at
// that first call, as regexp.MustCompile would at init: each package's
// tests call every pattern it declares so that happens in tests.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
